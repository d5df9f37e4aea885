"""Arm C, the four outcomes, and the exported files, on a hand-computed panel."""

from __future__ import annotations

import csv
import json

import krippendorff
import numpy as np
import pytest
from scipy.stats import spearmanr

from store.outputs import write_output
from store.runs import ensure_runs, list_runs
from tests.protocols.calibration.calkit import definition, freeze, make_db, save
from workbench.protocols.calibration import PROTOCOL
from workbench.protocols.calibration.exports import export_all
from workbench.protocols.calibration.importer import add_records
from workbench.protocols.calibration.outcomes import Inputs, decide
from workbench.protocols.calibration.records import normalise
from workbench.protocols.calibration.results import study_results

JUDGES = ("claude", "gpt4o-mini", "llama")
# item: (v_hat, scores by judge); p = sigmoid(v_hat) at k = 1 → 5 p bins of width 0.2
PANEL = {
    "A": (0.0, [0.5, 0.6, 0.7]),      # p 0.500, bin 2
    "B": (-3.0, [0.1, 0.1, 0.4]),     # p 0.047, bin 0
    "C": (3.0, [0.9, 0.8, 1.0]),      # p 0.953, bin 4
    "D": (0.2, [0.3, 0.5, 0.4]),      # p 0.550, bin 2
}


@pytest.fixture
def panel(tmp_path):
    db, _ = make_db(tmp_path)
    d = definition("cal-panel", section={"strata_bins": 5})   # the hand computations below use five p bins
    sid = save(db, d)
    recs = [{"run_id": "base", "interaction_id": k, "scenario": "s", "v_hat": v, "ground_truth": 1 if v >= 0 else -1,
             "content": f"artifact {k}", "rework_count": 2} for k, (v, _) in PANEL.items()]
    recs.append({"run_id": "base", "interaction_id": "E", "scenario": "s", "v_hat": 1.0, "ground_truth": 1,
                 "content": "artifact E"})
    recs.append({"run_id": "base", "interaction_id": "F", "scenario": "s", "v_hat": 1.0, "ground_truth": -1,
                 "content": "not accepted", "accepted": False})
    add_records(db, sid, ((n, normalise(r)) for n, r in enumerate(recs, 1)), source="fixture")
    plans = [{"id": f"{k}-{j}", "case_id": f"base:{k}", "condition": j, "replicate": 0}
             for k in [*PANEL, "E"] for j in JUDGES]
    ensure_runs(db, sid, plans)
    for k, (_, scores) in PANEL.items():
        for j, s in zip(JUDGES, scores):
            write_output(db, f"{k}-{j}", f"{s}", {"judge": j, "score": s, "judge_error": False,
                                                  "run_id": "base", "interaction_id": k, "model": "mock"})
    write_output(db, "E-claude", "judge_error", {"judge": "claude", "score": None, "judge_error": True,
                                                 "raw": ["??", "??"], "error": "no JSON", "run_id": "base",
                                                 "interaction_id": "E"})
    for j, s in (("gpt4o-mini", 0.7), ("llama", 0.9)):
        write_output(db, f"E-{j}", f"{s}", {"judge": j, "score": s, "judge_error": False, "run_id": "base",
                                            "interaction_id": "E"})
    freeze(db, sid)
    yield db, sid, d
    db.close()


def test_agreement_matches_independent_references(panel):
    db, sid, _ = panel
    c = study_results(db, sid)["arm_c"]
    order = ["A", "B", "C", "D", "E"]                       # sampled items, sorted ids
    matrix = np.array([PANEL[k][1] if k != "E" else [np.nan, 0.7, 0.9] for k in order]).T
    assert c["alpha"]["value"] == pytest.approx(krippendorff.alpha(reliability_data=matrix,
                                                                   level_of_measurement="interval"))
    rho = spearmanr(matrix[0, :4], matrix[2, :4]).statistic
    assert c["pairwise_spearman"]["claude vs llama"]["value"] == pytest.approx(rho)
    by_bin = {b["bin"]: b for b in c["disagreement_by_p_bin"]}
    # hand-computed: bin 0 holds B (|Δ| 0, .3, .3; SD .1732); bin 2 holds A and D (.1333 each, SD .1)
    assert by_bin["[0, 0.2)"]["count"] == 1
    assert by_bin["[0, 0.2)"]["mean_abs_pairwise_difference"] == pytest.approx(0.2)
    assert by_bin["[0, 0.2)"]["mean_sd"] == pytest.approx(0.17320508)
    assert by_bin["[0.4, 0.6)"]["count"] == 2
    assert by_bin["[0.4, 0.6)"]["mean_abs_pairwise_difference"] == pytest.approx(0.4 / 3)
    assert by_bin["[0.4, 0.6)"]["mean_sd"] == pytest.approx(0.1)
    assert by_bin["[0.2, 0.4)"]["mean_sd"] is None      # empty: None, never 0
    # E (p .731, bin 3) has two scores: |Δ| .2, SD .1414
    assert by_bin["[0.6, 0.8)"]["mean_abs_pairwise_difference"] == pytest.approx(0.2)


def test_proxy_vs_judges_and_judge_error_counts(panel):
    db, sid, _ = panel
    doc = study_results(db, sid)
    # hand-computed on A-D and E: p ranks B<A<D<E<C; judge means B .2, D .4, A .6, E .8, C .9 → Σd² = 2, n = 5
    assert doc["arm_c"]["proxy_vs_judges"]["value"] == pytest.approx(1 - 6 * 2 / (5 * 24))
    b = doc["arm_b"]
    assert b["per_judge"]["claude"] == {"model": "mock", "finished": 5, "scored": 4, "judge_errors": 1,
                                        "prompt_refused": 0}
    assert b["judge_errors"] == 1 and b["sampled"] == 5 and b["accepted_interactions"] == 5


def test_exports_follow_the_frozen_schema(panel, tmp_path):
    db, sid, d = panel
    out = export_all(db, sid, tmp_path / "out", when="20260601T000000")
    judge = tmp_path / "out" / "20260601T000000_calibration_judge"
    fid = tmp_path / "out" / "20260601T000000_calibration_fidelity"
    assert out["judge"] == str(judge) and out["fidelity"] == str(fid)
    with open(judge / "joined.csv", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == d["calibration"]["joined_schema"]
    assert "judge_score_gpt4o_mini" in rows[0]
    assert [r["interaction_id"] for r in rows] == ["A", "B", "C", "D", "E"]       # accepted only
    e = rows[4]
    assert e["judge_score_claude"] == "" and e["judge_errors"] == "1" and e["judge_n"] == "2"
    assert float(rows[0]["judge_mean"]) == pytest.approx(0.6)
    schema = json.loads((judge / "joined.schema.json").read_text())
    assert [c["name"] for c in schema["columns"]] == d["calibration"]["joined_schema"]
    assert schema["rubric_sha256"] == d["calibration"]["rubric_sha256"]
    with open(judge / "judge_scores.csv", encoding="utf-8") as f:
        scores = list(csv.DictReader(f))
    assert len(scores) == len(list_runs(db, sid)) == 15
    assert sum(r["judge_error"] == "1" for r in scores) == 1
    for png in ("reliability.png", "k_sweep.png"):
        assert (fid / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with open(fid / "reliability_bins.csv", encoding="utf-8") as f:
        bins = list(csv.DictReader(f))
    assert len(bins) == 6 and sum(int(b["count"]) for b in bins) == 6      # Arm A uses every interaction


def test_metrics_document_puts_the_outcome_first(panel):
    db, sid, _ = panel
    m = PROTOCOL.metrics(db, sid)
    assert list(m.document)[:3] == ["study_id", "protocol", "outcome"]
    sections = PROTOCOL.report_sections(db, sid)
    assert sections[0].title == "Outcome" and "The four outcomes" in [s.title for s in sections]
    assert {r["statistic"] for r in m.csv_rows} >= {"ece", "krippendorff_alpha", "spearman", "judge_errors"}


def _x(ece, alpha, rho):
    return Inputs(ece=ece, alpha=alpha, rho=rho, ece_threshold=0.05, alpha_threshold=0.5, strong_alpha=0.7,
                  rho_threshold=0.3)


@pytest.mark.parametrize("ece, alpha, rho, holds", [
    (0.02, 0.8, 0.6, "strong"),
    (0.20, 0.8, 0.6, "poorly_calibrated"),
    (0.02, 0.3, 0.6, "judges_disagree"),
    (0.20, 0.3, None, "judges_disagree"),           # the rule comes first
    (0.02, 0.8, 0.1, "proxy_judges_disagree"),
    (0.02, 0.6, 0.6, None),                          # the band the seed names no outcome for
    (None, 0.8, 0.6, None),
])
def test_the_four_outcomes(ece, alpha, rho, holds):
    r = decide(_x(ece, alpha, rho))
    assert r["holds"] == holds
    assert len(r["outcomes"]) == 4
    if holds:
        assert r["outcomes"][0]["id"] == holds and r["outcomes"][0]["holds"] is True
        assert sum(o["holds"] is True for o in r["outcomes"]) == 1
    elif alpha == 0.6:
        assert "names no outcome" in r["summary"]
    else:
        assert "undefined" in r["summary"]
