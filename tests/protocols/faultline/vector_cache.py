"""A sentence-vector cache on disk for the faultline tests: all-mpnet-base-v2's vectors of the crux corpus cost
about a minute of CPU to compute (the model's load included), and the same few hundred questions are read by
every run of the suite and by each xdist worker.

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
    or this run's own folder under a --basetemp of the user's choosing."""
    for folder in (basetemp, *basetemp.parents):
        if folder.name.startswith("pytest-of-"):
            return folder / "sentence-vectors"
    return basetemp / "sentence-vectors"
