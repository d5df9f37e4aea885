"""Embedding cache behaviour (a second embed computes nothing), the bundled
offline model, and the cosine helpers against hand values."""

import hashlib

import numpy as np
import pytest

from workbench.metrics.embeddings import (
    DEFAULT_MODEL,
    Embedder,
    InMemoryEmbeddingCache,
    cosine_similarity,
    cosine_similarity_matrix,
    text_hash,
)


class CountingEmbedder(Embedder):
    """Counts model calls and texts; optionally fakes the model with fixed vectors."""

    def __init__(self, *args, fake=True, **kwargs):
        super().__init__(*args, **kwargs)
        self.fake, self.calls, self.texts_seen = fake, 0, []

    def _encode(self, texts):
        self.calls += 1
        self.texts_seen.extend(texts)
        if not self.fake:
            return super()._encode(texts)
        return np.array([[len(t), t.count("a") + 1.0, 1.0] for t in texts])


def test_text_hash_is_sha256_of_utf8():
    assert text_hash("café") == hashlib.sha256("café".encode("utf-8")).hexdigest()


def test_second_embed_of_same_texts_computes_nothing():
    cache = InMemoryEmbeddingCache()
    emb = CountingEmbedder(cache=cache)
    first = emb.embed(["alpha", "beta", "alpha"])           # duplicate encoded once
    assert emb.calls == 1 and emb.texts_seen == ["alpha", "beta"] and len(cache) == 2
    assert np.allclose(np.linalg.norm(first, axis=1), 1.0)
    assert np.array_equal(first[0], first[2])
    second = emb.embed(["beta", "alpha"])
    assert emb.calls == 1 and emb.encoded_count == 2
    assert np.allclose(second, first[[1, 0]])
    # A new Embedder over the same cache (a later analysis) also computes nothing.
    later = CountingEmbedder(cache=cache)
    later.embed(["alpha", "beta"])
    assert later.calls == 0
    # Only the miss is encoded when old and new texts are mixed.
    emb.embed(["alpha", "gamma"])
    assert emb.calls == 2 and emb.texts_seen[-1:] == ["gamma"]


def test_cache_is_keyed_by_model():
    cache = InMemoryEmbeddingCache()
    CountingEmbedder("model-a", cache=cache).embed(["x"])
    other = CountingEmbedder("model-b", cache=cache)
    other.embed(["x"])
    assert other.calls == 1 and len(cache) == 2


def test_empty_input():
    emb = CountingEmbedder()
    assert emb.embed([]).shape == (0, 0) and emb.calls == 0


def test_cosine_helpers_by_hand():
    v = np.array([[3.0, 4.0], [4.0, 3.0], [0.0, 2.0]])
    s = cosine_similarity_matrix(v)
    assert s[0, 1] == pytest.approx(24 / 25) and s[0, 2] == pytest.approx(4 / 5)
    assert np.allclose(np.diag(s), 1.0) and np.allclose(s, s.T)
    assert cosine_similarity(v[0], v[2]) == pytest.approx(0.8)
    with pytest.raises(ValueError):
        cosine_similarity_matrix(np.zeros((2, 2)))


def test_bundled_model_offline_and_cached():
    emb = CountingEmbedder(DEFAULT_MODEL, fake=False)
    texts = ["The migration could cause data loss during cut-over.",
             "Moving the data may lose records while switching systems.",
             "Quarterly revenue depends on the holiday season."]
    v = emb.embed(texts)
    assert v.shape == (3, 384) and np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    s = emb.similarity_matrix(texts)                     # served from the cache
    assert emb.calls == 1
    assert s[0, 1] > s[0, 2] + 0.2                       # paraphrases beat an unrelated text
    again = emb.embed(texts)
    assert emb.calls == 1 and np.allclose(again, v)


def test_a_first_embedding_reports_its_steps_and_no_third_party_bar_is_drawn(capfd):
    """Issue 15: loading the model and N of M texts are reported; transformers' "Loading weights" bar is
    silenced (switched on first, so this load would draw it if the silencing failed; the hub's bars draw
    only on downloads, which an offline load never makes)."""
    from transformers.utils import logging as transformers_logging

    from workbench.metrics.embeddings import EMBEDDING, LOADING, progress_text

    transformers_logging.enable_progress_bar()
    steps = []
    emb = Embedder(DEFAULT_MODEL, batch_size=2, progress=lambda *step: steps.append(step))
    emb.embed(["one risk", "another risk", "a third", "one risk"])  # three distinct texts, two batches
    assert steps == [(LOADING, 0, 0), (EMBEDDING, 0, 3), (EMBEDDING, 2, 3), (EMBEDDING, 3, 3)]
    assert progress_text(EMBEDDING, 2, 3) == "2 of 3 texts embedded"
    assert progress_text(LOADING, 0, 0).startswith("loading the embedding model")
    err = capfd.readouterr().err
    assert "Loading weights" not in err and "it/s" not in err and "Batches" not in err
