"""The embedding cache in the store: one float32 vector per (model, text hash).

`StoreEmbeddingCache` implements the `EmbeddingCache` protocol of
`workbench.metrics.embeddings` (`get_many` / `put_many`), so an analysis run
twice -- in the same process or a new one -- embeds each text only once.
Vectors are stored as little-endian float32 blobs with their dimension.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import sqlite_utils

from store.db import writer

_CHUNK = 500
_DTYPE = np.dtype("<f4")


def encode_vector(vector: np.ndarray) -> tuple[int, bytes]:
    v = np.asarray(vector, dtype=_DTYPE).ravel()
    if not np.isfinite(v).all():
        raise ValueError("an embedding vector contains NaN or inf")
    return int(v.size), v.tobytes()


def decode_vector(blob: bytes, dim: int) -> np.ndarray:
    v = np.frombuffer(blob, dtype=_DTYPE)
    if v.size != dim:
        raise ValueError(f"stored embedding has {v.size} values, its row says {dim}")
    return v.astype(np.float32)


class StoreEmbeddingCache:
    """Embedding vectors cached in the store's `embeddings` table."""

    def __init__(self, db: sqlite_utils.Database) -> None:
        self.db = db
        self.reads = 0    # vectors served from the store (for benchmarks and tests)
        self.writes = 0   # vectors written

    def get_many(self, model: str, hashes: Sequence[str]) -> dict[str, np.ndarray]:
        wanted = list(dict.fromkeys(hashes))
        found: dict[str, np.ndarray] = {}
        for i in range(0, len(wanted), _CHUNK):
            chunk = wanted[i:i + _CHUNK]
            marks = ", ".join("?" for _ in chunk)
            for text_hash, dim, blob in self.db.execute(
                    f"SELECT text_hash, dim, vector FROM embeddings WHERE model = ? AND text_hash IN ({marks})",
                    [model, *chunk]).fetchall():
                found[text_hash] = decode_vector(blob, dim)
        self.reads += len(found)
        return found

    def put_many(self, model: str, vectors: Mapping[str, np.ndarray]) -> None:
        rows = [(model, h, *encode_vector(v)) for h, v in vectors.items()]
        if not rows:
            return
        with writer(self.db):
            self.db.conn.executemany(
                "INSERT OR REPLACE INTO embeddings (model, text_hash, dim, vector) VALUES (?, ?, ?, ?)", rows)
        self.writes += len(rows)

    def count(self, model: str | None = None) -> int:
        if model is None:
            return self.db.execute("SELECT count(*) FROM embeddings").fetchone()[0]
        return self.db.execute("SELECT count(*) FROM embeddings WHERE model = ?", [model]).fetchone()[0]
