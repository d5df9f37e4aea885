"""Decision quality from the seeded runs' perspective events, checked by hand, and the embedding cache."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from store.embeddings import StoreEmbeddingCache
from tests.metrics_integration.conftest import BUSINESS, FakeEmbedder, B, G, H
from workbench.protocols.hindsight.metrics.dq_study import decision_quality_report, run_decision_quality
from workbench.protocols.hindsight.metrics.study_data import load_study_data


def vec(text, dim=24):
    seed = int(hashlib.sha256(text.encode()).hexdigest()[:8], 16)
    v = np.random.default_rng(seed).normal(size=dim)
    return v / np.linalg.norm(v)


def sims(texts):
    v = np.array([vec(t) for t in texts])
    return v @ v.T


@pytest.fixture
def data(seeded):
    return load_study_data(seeded[0], "seeded-study")


def by_slot(runs, seeded_study):
    inv = {rid: slot for slot, rid in seeded_study.run_ids.items()}
    return {inv[r.run_id]: r for r in runs}


def test_dq_per_run_by_hand(data, seeded):
    runs = by_slot(run_decision_quality(data, FakeEmbedder()), seeded[2])
    # B3 on harbor: 4 sequential perspectives, medium complexity (expected 5).
    texts = [f"{H} sequential view {k}" for k in range(1, 5)]
    s = sims(texts)
    off = s - np.eye(4) * 10
    independent = int((off.max(axis=1) < 0.65).sum())
    r = runs[(H, "B3", 0)]
    assert r.generation == "sequential" and r.n_perspectives == 4
    assert r.dq1.value == pytest.approx(min(1.0, independent / 5))
    later = s[0, 1:]
    corr = np.corrcoef([2, 3, 4], later)[0, 1]
    assert r.dq2.value == pytest.approx(1 - abs(corr))
    # DQ-3 from the rater's assessments: 5 of the 9 concerns (8 business + custom "Precedent") addressed.
    assert r.concern_source == "rater" and r.dq3.value == pytest.approx(5 / 9)
    # C1 on glenda-crock: parallel respondents, high complexity (expected 8).
    g = runs[(G, "C1", 0)]
    assert g.generation == "parallel" and g.dq2.value == 1.0
    assert g.dq1.details["expected"] == 8
    # C2 on harbor: model assessments 5 x 1 + 3 x 0.5 + 0 = 6.5 of 9; weighted with the seed's weights.
    c2 = runs[(H, "C2", 0)]
    assert c2.concern_source == "model" and c2.dq3.value == pytest.approx(6.5 / 9)
    assert c2.weighted.value == pytest.approx(0.35 * c2.dq1.value + 0.30 * 1.0 + 0.35 * 6.5 / 9)
    # C1 on harbor: one concern's model assessment failed -> unassessed -> DQ-3 undefined, never 0.
    c1 = runs[(H, "C1", 0)]
    assert not c1.dq3.defined and "Precedent" in c1.dq3.undefined_reason
    assert not c1.weighted.defined
    # B1 emits no perspectives: DQ-1/DQ-2 undefined with a reason.
    b1 = runs[(B, "B1", 0)]
    assert b1.generation == "none" and "no perspectives" in b1.dq1.undefined_reason


def test_concern_list_has_the_domain_and_custom_concerns(data):
    from workbench.protocols.hindsight.metrics.dq_study import concern_list

    concerns, label = concern_list(data, H)
    assert concerns == BUSINESS and label == "Business Strategy"
    concerns, label = concern_list(data, B)
    assert label == "Technology Decision" and concerns[-1] == "Precedent" and len(concerns) == 9


def test_concern_source_can_be_forced(data, seeded):
    runs = by_slot(run_decision_quality(data, FakeEmbedder(), concern_source="model"), seeded[2])
    assert not runs[(H, "B3", 0)].dq3.defined  # only a rater assessed it
    runs = by_slot(run_decision_quality(data, FakeEmbedder(), concern_source="rater"), seeded[2])
    assert not runs[(H, "C2", 0)].dq3.defined


def test_summary_and_baseline(data):
    report = decision_quality_report(data, FakeEmbedder())
    rows = {r.group: r for r in report.rows}
    assert rows["B3"].n_runs == 3 and rows["all"].n_runs == 27
    b3 = [r.dq2.value for r in report.runs if r.condition == "B3"]
    assert rows["B3"].parts["dq2"].value == pytest.approx(np.mean(b3))
    base = report.baseline["dq2"]
    assert base.parallel.value == 1.0 and base.sequential.value == pytest.approx(np.mean(b3))
    assert base.difference.value == pytest.approx(1.0 - np.mean(b3))
    # Conditions without perspectives are undefined with the per-run reason.
    assert "no perspectives" in rows["B1"].parts["dq1"].undefined_reason


def test_blinded_dq_is_condition_free(blinded):
    data = load_study_data(blinded[0], "seeded-study")
    report = decision_quality_report(data, FakeEmbedder())
    assert [r.group for r in report.rows] == ["all"] and report.baseline == {}
    assert report.to_dict()["runs"] == [] and all(r.condition is None for r in report.runs)


def test_second_analysis_embeds_nothing(seeded):
    db = seeded[0]
    data = load_study_data(db, "seeded-study")
    first = FakeEmbedder(cache=StoreEmbeddingCache(db))
    decision_quality_report(data, first)
    assert first.encoded_count == 39 and first.calls == 1  # every perspective once, in one batch
    again = FakeEmbedder(cache=StoreEmbeddingCache(db))
    report = decision_quality_report(load_study_data(db, "seeded-study"), again)
    assert again.calls == 0 and report.encoded == 0
    assert StoreEmbeddingCache(db).count("fake-test-model") == 39


def test_store_cache_round_trips_float32(seeded):
    cache = StoreEmbeddingCache(seeded[0])
    v = np.array([0.1, -2.5, 3.25], dtype=np.float64)
    cache.put_many("m", {"h1": v})
    got = cache.get_many("m", ["h1", "missing"])
    assert set(got) == {"h1"} and got["h1"].dtype == np.float32
    assert np.allclose(got["h1"], v.astype(np.float32))
    blob = seeded[0].execute("SELECT vector, dim FROM embeddings WHERE model = 'm'").fetchone()
    assert blob[1] == 3 and blob[0] == v.astype("<f4").tobytes()
    with pytest.raises(ValueError, match="NaN"):
        cache.put_many("m", {"h2": np.array([np.nan])})


def test_study_file_metrics_table_feeds_custom_concerns():
    from workbench.protocols.hindsight.metrics.study_data import StudyData
    from workbench.studies.definition import StudyError, parse_study_text

    text = ('name = "dq-custom"\ncases = ["blast-radius"]\nraters = []\njudges = []\n\n[metrics]\n'
            'custom_concerns = ["Precedent", "Data residency"]\n')
    definition = parse_study_text(text, "s.toml")
    assert definition["metrics"] == {"custom_concerns": ["Precedent", "Data residency"]}
    data = StudyData("dq-custom", "dq-custom", "hindsight", definition, blinded=True)
    assert data.custom_concerns == ("Precedent", "Data residency")
    with pytest.raises(StudyError, match="metrics.custom_concerns: must be a list of strings"):
        parse_study_text('name = "dq-custom"\ncases = ["x"]\n[metrics]\ncustom_concerns = "Precedent"\n', "s.toml")


def test_a_conditions_dq_interval_resamples_cases_not_runs():
    """Issue 42 item 5: P1's six runs of two cases are two cases: the row's mean is over the two case means and
    its CI is withheld (fewer cases than the minimum), never a bootstrap over six runs as if independent."""
    from workbench.metrics.estimate import Estimate
    from workbench.protocols.hindsight.metrics.dq_study import RunDQ, _summary_row

    def run(i: int, case: str, v: float) -> RunDQ:
        e = Estimate(v, n=1, method="x")
        return RunDQ(f"r{i}", case, "P1", 3, "parallel", e, e, e, e)

    values = {"a": [0.2, 0.3, 0.4], "b": [0.8, 0.9, 0.7, 0.6]}   # unbalanced: case means 0.3 and 0.75
    runs = [run(i, c, v) for i, (c, v) in enumerate((c, v) for c, vs in values.items() for v in vs)]
    row = _summary_row("P1", runs)
    est = row.parts["dq1"]
    assert est.value == pytest.approx((0.3 + 0.75) / 2) and est.n == 2
    assert not est.has_ci and est.ci_undefined_reason.startswith("n too small")
