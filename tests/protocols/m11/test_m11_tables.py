"""Bands, binary agreement, confidence, validation points and the human-agreement statistic against
hand-computed values."""

from __future__ import annotations

import math

import pytest

from workbench.protocols.m11 import tables
from workbench.protocols.m11.human import agreement, human_scores, select_sample
from workbench.protocols.m11.results import aggregate
from workbench.protocols.m11.scoring import band, confidence, overall
from workbench.protocols.m11.validation import key_points


def _run(i: int, scores: list[int], status: str = "ok") -> dict:
    s = dict(zip(("accuracy", "relevance", "completeness", "clarity", "reasoning"), scores))
    return {"run_index": i, "status": status, "scores": s, "overall": overall(s), "summary": "s"}


def _item(item_id: str, hc=(), expected=None) -> dict:
    return {"id": item_id, "title": item_id, "validated_use": "u", "attribute_table": ["a"],
            "hard_constraints": list(hc), "reasoning": "", "expected": expected}


def test_bands_follow_the_seed_with_the_gaps_closed_downward():
    # 4.47 is shown "4.5" and banded as shown; 4.44 is shown "4.4"
    assert [band(v) for v in (5.0, 4.5, 4.47, 4.44, 4.4, 3.5, 3.4, 2.5, 2.4, 0.0)] == [
        "Strong PASS", "Strong PASS", "Strong PASS", "PASS", "PASS", "PASS", "Borderline", "Borderline", "FAIL",
        "FAIL"]
    assert overall({"accuracy": 5, "relevance": 4, "completeness": 5, "clarity": 4, "reasoning": 4}) == 4.4
    assert overall({"accuracy": 1, "relevance": 2, "completeness": 3, "clarity": 3, "reasoning": 1}) == 2.0


def test_confidence_rule():
    assert confidence([4.4]) is None
    assert confidence([4.4, 4.4, 4.0]) == "HIGH"
    assert confidence([4.6, 4.4, 4.4]) == "MEDIUM"      # spread 0.2 but across two bands
    assert confidence([4.4, 3.6, 4.0]) == "MEDIUM"
    assert confidence([4.4, 3.2, 4.0]) == "LOW"


def _results():
    # overall per sample: 4.8 SP, 4.6 SP, 4.0 P, 3.6 P, 3.0 B, 1.4 F; binary: P P P F P F
    specs = [("s1", [5, 5, 5, 5, 4], "PASS"), ("s2", [5, 5, 4, 5, 4], "PASS"), ("s3", [4, 4, 4, 4, 4], "PASS"),
             ("s4", [4, 4, 3, 4, 3], "FAIL"), ("s5", [3, 3, 3, 3, 3], "PASS"), ("s6", [1, 2, 2, 1, 1], "FAIL")]
    out = []
    for item_id, scores, verdict in specs:
        r = aggregate(_item(item_id), [_run(0, scores)], {"status": "ok", "verdict": verdict})
        r["run_reports"], r["binary_report"] = [_run(0, scores)], None
        out.append(r)
    return out


def test_band_distribution_and_pass_rate_by_hand():
    dist = tables.band_distribution(_results())
    assert [(r["band"], r["count"], r["percent"]) for r in dist["rows"]] == [
        ("Strong PASS", 2, 33.3), ("PASS", 2, 33.3), ("Borderline", 1, 16.7), ("FAIL", 1, 16.7)]
    assert [r["within_expected"] for r in dist["rows"]] == [False, True, False, False]
    assert dist["pass_rate"] == round(4 / 6, 4)


def test_each_band_names_its_likert_range_as_seed_003_writes_it():
    from workbench.protocols.m11.report import bands_section
    from workbench.protocols.m11.scoring import likert_range

    assert [likert_range(b) for b in ("Strong PASS", "PASS", "Borderline", "FAIL")] == [
        "4.5–5.0", "3.5–4.4", "2.5–3.4", "0.0–2.4"]
    dist = tables.band_distribution(_results())
    assert [r["likert"] for r in dist["rows"]] == ["4.5–5.0", "3.5–4.4", "2.5–3.4", "0.0–2.4"]
    doc = {"bands": dist, "binary": {"cross_table": {v: {r["band"]: 0 for r in dist["rows"]} for v in ("PASS", "FAIL")}}}
    text = bands_section(doc)
    # beside its expected share, in the same row of the report's table
    assert "| Strong PASS | 4.5–5.0 | 2 | 33.3% | 40-50% |" in text
    assert "| FAIL | 0.0–2.4 | 1 | 16.7% | 5-15% |" in text


def test_binary_agreement_by_hand():
    # Likert pass/fail: P P P P F F (Borderline counts as FAIL); binary: P P P F P F
    # agreement 4/6; kappa: p_o = 4/6, p_e = (4/6)(4/6) + (2/6)(2/6) = 20/36, kappa = (24/36 - 20/36)/(16/36) = 0.25
    b = tables.binary_agreement(_results())
    assert b["n"] == 6
    assert b["agreement"]["value"] == pytest.approx(4 / 6)
    assert b["kappa"]["value"] == pytest.approx(0.25)
    assert b["cross_table"]["PASS"] == {"Strong PASS": 2, "PASS": 1, "Borderline": 1, "FAIL": 0}
    assert b["cross_table"]["FAIL"] == {"Strong PASS": 0, "PASS": 1, "Borderline": 0, "FAIL": 1}
    assert b["agreement_without_borderline"]["value"] == pytest.approx(4 / 5)


def test_confidence_table_variance_by_criterion_by_hand():
    runs = [_run(0, [5, 4, 5, 4, 4]), _run(1, [5, 4, 5, 4, 4]), _run(2, [4, 3, 5, 4, 4])]
    r = aggregate(_item("x"), runs, None)
    r["run_reports"], r["binary_report"] = runs, None
    c = tables.confidence_table([r])
    # accuracy 5,5,4: mean 14/3, sample variance ((1/3)^2*2 + (2/3)^2)/2 = 1/3
    assert c["variance_by_criterion"]["accuracy"] == pytest.approx(1 / 3, abs=1e-4)
    assert c["variance_by_criterion"]["completeness"] == 0
    assert c["counts"] == {"HIGH": 1, "MEDIUM": 0, "LOW": 0, "single run": 0}


def test_key_validation_points():
    zero_empty = aggregate(_item("a", [], []), [_run(0, [5, 4, 5, 4, 4])], None)
    assert [(p["point"], p["ok"]) for p in zero_empty["validation"]] == [("zero-constraint product", True)]
    over = aggregate(_item("b", ["Stainless Steel", "BPA-Free"], []), [_run(0, [1, 2, 3, 3, 1])], None)
    assert [(p["point"], p["ok"]) for p in over["validation"]] == [("zero-constraint product", True),
                                                                   ("NEVER category", True)]
    assert over["never_violations"] == [{"constraint": "Stainless Steel", "category": "material"}]
    several = aggregate(_item("c", ["Bluetooth 5.2", "Waterproof"], []), [_run(0, [2, 2, 3, 3, 2])], None)
    assert [(p["rule"], p["ok"]) for p in several["validation"]] == [
        ("output lists constraints: overall 2 or less", False), ("2 violations: accuracy 0-1", False)]
    missed = key_points(_item("d", [], ["iPhone 15 Pro fit"]), {"overall": 3.0, "scores": {"accuracy": 3}})
    assert [(p["rule"], p["ok"]) for p in missed] == [("true constraint missing: accuracy 2-3", True)]
    extra = key_points(_item("e", ["iPhone 15 Pro fit", "Slim"], ["iPhone 15 Pro fit"]),
                       {"overall": 4.0, "scores": {"accuracy": 4}})
    assert [(p["rule"], p["ok"]) for p in extra] == [("extra constraints: accuracy 2-3", False)]


def test_human_agreement_against_a_hand_computed_pearson_r():
    # human means 1,2,3,4,5 vs pipeline 1.2,1.8,3.4,3.6,4.8: dx = -2..2, dy = -1.76,-1.16,0.44,0.64,1.84
    # sum dx dy = 3.52+1.16+0+0.64+3.68 = 9.0; sum dx^2 = 10; sum dy^2 = 3.0976+1.3456+0.1936+0.4096+3.3856 = 8.432
    human = {f"i{k}": float(k) for k in range(1, 6)}
    pipeline = {"i1": 1.2, "i2": 1.8, "i3": 3.4, "i4": 3.6, "i5": 4.8}
    got = agreement(human, pipeline, 0.85)
    r = 9.0 / math.sqrt(10 * 8.432)
    assert got["pearson"]["value"] == pytest.approx(r)
    z, half = math.atanh(r), 1.959963984540054 / math.sqrt(2)
    assert got["pearson"]["ci_low"] == pytest.approx(math.tanh(z - half))
    assert got["spearman"]["value"] == pytest.approx(1.0)
    assert got["passed"] is True and got["ci_above_target"] is False


def test_human_scores_average_each_raters_five_criteria_then_the_raters():
    rows = [("i1", "ann", c, v) for c, v in zip(("accuracy", "relevance", "completeness", "clarity", "reasoning"),
                                                 (5, 4, 5, 4, 4))]
    rows += [("i1", "bob", c, 3) for c in ("accuracy", "relevance", "completeness", "clarity", "reasoning")]
    rows += [("i2", "ann", "accuracy", 2)]  # incomplete: left out
    assert human_scores(rows) == {"i1": pytest.approx((4.4 + 3.0) / 2)}


def test_the_human_sample_is_stratified_by_band_and_seeded():
    results = []
    for i in range(40):  # 20 Strong PASS, 10 PASS, 6 Borderline, 4 FAIL
        value = 4.8 if i < 20 else 4.0 if i < 30 else 3.0 if i < 36 else 1.0
        results.append({"id": f"s{i:02d}", "band": band(value)})
    chosen = select_sample(results, 20, seed=3)
    by_band = {}
    for r in results:
        if r["id"] in chosen:
            by_band[r["band"]] = by_band.get(r["band"], 0) + 1
    assert len(chosen) == 20 and by_band == {"Strong PASS": 10, "PASS": 5, "Borderline": 3, "FAIL": 2}
    assert select_sample(results, 20, seed=3) == chosen and select_sample(results, 20, seed=4) != chosen
    small = select_sample(results[:3] + results[-1:], 20, seed=3)
    assert small == sorted(r["id"] for r in results[:3] + results[-1:])
