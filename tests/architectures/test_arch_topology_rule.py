"""The P1 classification rule (seed 000 §VII Metric 3) and the readers of the extraction replies."""

from __future__ import annotations

import json

import pytest

from workbench.protocols.hindsight.architectures.topology import classify, read_comparison, read_extraction


def ex(rec: str, *claims: str) -> dict:
    return {"recommendation": rec, "claims": list(claims)}


RUNS = {"A": ex("Resist", "precedent", "leverage"), "B": ex("Resist", "precedent", "leverage"),
        "C": ex("Comply", "precedent", "shutdown risk")}
LABELS = ["A1", "A2", "B1", "B2", "C1", "C2"]


def test_basin_when_all_three_agree_on_recommendation_and_claims():
    out = classify(RUNS, {"recommendation_groups": [["A", "B", "C"]],
                          "claim_groups": [["A1", "B1", "C1"], ["A2", "B2", "C2"]]})
    assert out["pattern"] == "Basin" and out["claims_agree"] is True
    assert out["switching_assumption"] is None and out["convergent_recommendation"] == "Resist"


def test_plateau_when_all_three_recommendations_differ():
    out = classify(RUNS, {"recommendation_groups": [["A"], ["B"], ["C"]], "claim_groups": [[x] for x in LABELS]})
    assert out["pattern"] == "Plateau" and out["convergent_recommendation"] is None


def test_ridge_on_the_recommendation_names_the_switching_assumption():
    out = classify(RUNS, {"recommendation_groups": [["A", "B"], ["C"]],
                          "claim_groups": [["A1", "B1", "C1"], ["A2", "B2"], ["C2"]]})
    assert out["pattern"] == "Ridge" and out["divergent"] == "C"
    assert out["switching_assumption"] == "shutdown risk"  # present in C, absent from A and B
    assert out["claims_missing_from_divergent"] == ["leverage"]
    assert out["convergent_recommendation"] == "Resist"


def test_ridge_on_a_key_claim_with_one_recommendation():
    runs = {"A": ex("Resist", "precedent"), "B": ex("Resist", "precedent"), "C": ex("Resist", "cost")}
    out = classify(runs, {"recommendation_groups": [["A", "B", "C"]],
                          "claim_groups": [["A1", "B1"], ["C1"]]})
    assert out["pattern"] == "Ridge" and out["divergent"] == "C" and out["switching_assumption"] == "cost"


def test_ridge_where_the_divergent_run_only_lacks_a_claim():
    runs = {"A": ex("Resist", "precedent", "law"), "B": ex("Resist", "precedent", "law"),
            "C": ex("Resist", "precedent")}
    out = classify(runs, {"recommendation_groups": [["A", "B", "C"]],
                          "claim_groups": [["A1", "B1", "C1"], ["A2", "B2"]]})
    assert out["pattern"] == "Ridge" and out["switching_assumption"] == "(absent from run C) law"


def test_same_recommendation_with_claims_differing_everywhere_is_a_basin_flagged():
    runs = {"A": ex("Resist", "x"), "B": ex("Resist", "y"), "C": ex("Resist", "z")}
    out = classify(runs, {"recommendation_groups": [["A", "B", "C"]], "claim_groups": [["A1"], ["B1"], ["C1"]]})
    assert out["pattern"] == "Basin" and out["claims_agree"] is False and out["switching_assumption"] is None


@pytest.mark.parametrize("text,error", [
    ("no json here", "the reply is not a JSON object"),
    ('{"claims": ["a"]}', "no recommendation string in the JSON"),
    ('{"recommendation": "Resist", "claims": "a"}', "claims is not a list of strings"),
])
def test_unreadable_extractions_are_errors(text, error):
    assert read_extraction(text) == (None, error)


def test_extraction_reads_fenced_json_and_keeps_three_claims():
    data, error = read_extraction('Here:\n```json\n{"recommendation": "Resist", "claims": ["a","b","c","d"]}\n```')
    assert error is None and data["claims"] == ["a", "b", "c"] and data["claims_dropped"] == ["d"]


@pytest.mark.parametrize("doc,error", [
    ({"recommendation_groups": [["A", "B"]], "claim_groups": []}, "exactly once"),
    ({"recommendation_groups": [["A", "B"], ["B", "C"]], "claim_groups": []}, "exactly once"),
    ({"recommendation_groups": [["A", "B", "C"]], "claim_groups": [["A9"]]}, "unknown claims"),
    ({"recommendation_groups": [["A", "B", "C"]], "claim_groups": [["A1"], ["A1", "B1"]]}, "more than once"),
    ({"recommendation_groups": "A,B,C"}, "not a list of lists"),
])
def test_invalid_groupings_are_comparison_errors(doc, error):
    result, message = read_comparison(json.dumps(doc), LABELS)
    assert result is None and error in message


def test_claims_left_out_of_every_group_match_nothing():
    result, error = read_comparison(json.dumps({"recommendation_groups": [["A", "B", "C"]],
                                                "claim_groups": [["A1", "B1", "C1"]]}), LABELS)
    assert error is None and result["unmatched_claims"] == ["A2", "B2", "C2"]
    assert ["A2"] in result["claim_groups"]
