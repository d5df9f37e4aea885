"""Fixtures: a seeded hindsight study (3 cases x 7 conditions, P1 = 3 replicates, 2 raters, 2 judges)
with known scores, and a deterministic embedder that never loads a model."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from store import open_store
from tests.metrics_integration.seeding import HISTORICAL, Spec, seed_study
from workbench.metrics.embeddings import Embedder, InMemoryEmbeddingCache

H, G, B = HISTORICAL["id"], "glenda-crock", "blast-radius"
COND6 = ["B1", "B2", "B3", "C1", "C2", "C3"]

# Anticipation (0-3) per rater: case -> B1..C3 values, then the three P1 replicates.
ANT = {
    "rater-a": {H: [0, 1, 1, 2, 3, 3, 3, 2, 3], G: [1, 1, 2, 2, 2, 3, 2, 2, 3], B: [0, 2, 1, 1, 3, 2, 3, 3, 2]},
    "rater-b": {H: [1, 1, 1, 2, 3, 2, 3, 2, 3], G: [1, 0, 2, 3, 2, 3, 2, 2, 2], B: [0, 2, 2, 1, 3, 2, 3, 3, 2]},
}
# Epistemic Humility (0-3), same layout.
EH = {
    "rater-a": {H: [1, 1, 2, 2, 2, 3, 2, 2, 2], G: [0, 1, 1, 2, 3, 2, 3, 3, 3], B: [1, 2, 2, 1, 2, 2, 2, 1, 2]},
    "rater-b": {H: [1, 2, 2, 2, 2, 3, 2, 3, 2], G: [0, 1, 1, 1, 3, 2, 3, 3, 3], B: [1, 2, 2, 2, 2, 3, 2, 1, 2]},
}
# Glenda/Crock criteria (coercion_recognition, compliance_trap, frame_analysis) on the glenda-crock case.
GC = {
    "rater-a": [(0, 0, 0), (1, 0, 0), (1, 1, 0), (1, 0, 0), (1, 1, 1), (1, 1, 1), (1, 1, 0), (1, 1, 1), (1, 0, 1)],
    "rater-b": [(0, 1, None), (1, 0, 0), (1, 0, 0), (1, 1, 0), (1, 1, 1), (1, 1, 0), (1, 1, 0), (1, 1, 1), (1, 1, 1)],
}
# Blast Radius criteria (blast_radius, rollback, phasing) on the blast-radius case.
BR = {
    "rater-a": [(0, 1, 0), (1, 1, 0), (1, 1, 1), (2, 1, 0), (2, 2, 1), (2, 2, 2), (2, 1, 1), (2, 2, 1), (1, 1, 1)],
    "rater-b": [(0, 0, 0), (1, 1, 1), (1, 2, 1), (2, 1, 1), (2, 2, 2), (2, 1, 2), (2, 1, 1), (2, 2, 2), (1, 1, 0)],
}
GC_CRITERIA = ("coercion_recognition", "compliance_trap", "frame_analysis")
BR_CRITERIA = ("blast_radius", "rollback", "phasing")
SLOTS9 = [(c, 0) for c in COND6] + [("P1", 0), ("P1", 1), ("P1", 2)]
BUSINESS = ["Revenue Impact", "Cost Impact", "Competitive Position", "Customer Impact", "Employee Impact",
            "Regulatory Risk", "Timeline", "Reversibility", "Precedent"]


def standard_spec(**overrides) -> Spec:
    spec = Spec(**overrides)
    for rater in spec.raters:
        for case in spec.cases:
            for i, (cond, rep) in enumerate(SLOTS9):
                spec.human[(rater, case, cond, rep, "anticipation", "anticipation")] = ANT[rater][case][i]
                spec.human[(rater, case, cond, rep, "epistemic-humility", "calibration")] = EH[rater][case][i]
        for i, (cond, rep) in enumerate(SLOTS9):
            for crit, v in zip(GC_CRITERIA, GC[rater][i]):
                if v is not None:
                    spec.human[(rater, G, cond, rep, "glenda-crock", crit)] = v
            for crit, v in zip(BR_CRITERIA, BR[rater][i]):
                spec.human[(rater, B, cond, rep, "blast-radius", crit)] = v
    # History: an edit (3 then the final 0), and a score that was undone (no final value).
    spec.history[("rater-a", H, "B1", 0, "anticipation", "anticipation")] = [("score", 3), ("note", None)]
    undone = ("rater-b", B, "C1", 0, "epistemic-humility", "calibration")
    spec.history[undone] = [("score", 2), ("undo", None), ("skip", None)]
    spec.human[undone] = None
    # Judges: judge-a agrees with rater-a; judge-b with rater-b, with two judge_errors.
    for judge, rater in (("judge-a", "rater-a"), ("judge-b", "rater-b")):
        for case in spec.cases:
            for i, (cond, rep) in enumerate(SLOTS9):
                spec.judge[(judge, case, cond, rep, "anticipation", "anticipation")] = ANT[rater][case][i]
                spec.judge[(judge, case, cond, rep, "epistemic-humility", "calibration")] = EH[rater][case][i]
    spec.judge[("judge-b", G, "C2", 0, "anticipation", "anticipation")] = "error"
    spec.judge[("judge-b", H, "B3", 0, "epistemic-humility", "calibration")] = "error"
    for case in spec.cases:
        for cond, rep in SLOTS9:
            spec.audits[(case, cond, rep)] = cond in ("C2", "P1") or (cond == "B1" and case == H)
    spec.topology = {H: ("Basin", None, "Issue the bond in two tranches"),
                     G: ("Ridge", "whether regulators act on the dossier", "Resist and prepare"),
                     B: ("Plateau", None, None)}
    spec.probes = [(H, "mock", "recognized", True), (G, "mock", "not_recognized", False)]
    for case in spec.cases:
        spec.perspectives[(case, "B3", 0)] = [(f"{case} sequential view {k}", k, False) for k in range(1, 5)]
        spec.perspectives[(case, "C1", 0)] = [(f"{case} respondent {k}", 1, True) for k in range(1, 6)]
        spec.perspectives[(case, "C2", 0)] = [(f"{case} member opening {k}", 1, True) for k in range(1, 5)]
    spec.custom_concerns = ["Precedent"]
    spec.model_concerns[(H, "C2", 0)] = {c: 1.0 for c in BUSINESS[:5]} | {c: 0.5 for c in BUSINESS[5:8]} | \
        {"Precedent": 0.0}
    spec.model_concerns[(H, "C1", 0)] = {c: 1.0 for c in BUSINESS[:8]} | {"Precedent": None}  # one failed
    spec.rater_concerns[(H, "B3", 0)] = {c: (1.0 if k % 2 == 0 else 0.0) for k, c in enumerate(BUSINESS)}
    spec.pilot_scores = {("rater-a", 0, "anticipation", "anticipation"): 3,
                         ("rater-b", 0, "anticipation", "anticipation"): 0,
                         ("rater-a", 1, "anticipation", "anticipation"): 0}
    return spec


class FakeEmbedder(Embedder):
    """Deterministic vectors from the text's hash; counts what it encodes. Never loads a model."""

    def __init__(self, cache=None, dim: int = 24):
        super().__init__("fake-test-model", cache=cache if cache is not None else InMemoryEmbeddingCache())
        self.dim = dim
        self.calls = 0

    def _encode(self, texts):
        self.calls += 1
        out = []
        for t in texts:
            seed = int(hashlib.sha256(t.encode()).hexdigest()[:8], 16)
            out.append(np.random.default_rng(seed).normal(size=self.dim))
        return np.array(out)


def make_store(tmp_path, name: str = "store.db", **spec_overrides):
    path = tmp_path / name
    db = open_store(path)
    seeded = seed_study(db, standard_spec(**spec_overrides))
    return db, path, seeded


@pytest.fixture
def seeded(tmp_path):
    db, path, s = make_store(tmp_path)
    yield db, path, s
    db.close()


@pytest.fixture
def blinded(tmp_path):
    db, path, s = make_store(tmp_path, unblinded=False)
    yield db, path, s
    db.close()


@pytest.fixture
def forced(tmp_path):
    db, path, s = make_store(tmp_path, forced=True)
    yield db, path, s
    db.close()


def prewarm_default_embeddings(db) -> int:
    """Put vectors for every perspective of the store's studies into the store cache under the DEFAULT
    model, so an analysis through the default Embedder (as the screen and CLI use) loads no model."""
    from store.embeddings import StoreEmbeddingCache
    from workbench.metrics.embeddings import DEFAULT_MODEL, text_hash

    texts = sorted({r[0] for r in db.execute(
        "SELECT json_extract(payload, '$.text') FROM events WHERE kind = 'perspective'").fetchall()})
    vectors = FakeEmbedder()._encode(texts)
    StoreEmbeddingCache(db).put_many(DEFAULT_MODEL, {
        text_hash(t): v / np.linalg.norm(v) for t, v in zip(texts, vectors)})
    return len(texts)
