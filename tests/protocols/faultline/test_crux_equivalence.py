"""Crux equivalence (issue 41): two cruxes recur when they ask the same question. The clustering on fixed
vectors; the model's check answered by a mock that reads a labelled pair set; and the planted sets of
tests/corpus/cruxes read with the real all-mpnet-base-v2 (loaded once for this module)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from workbench.instruments.corpus import load
from workbench.protocols.faultline import equivalence as eq
from workbench.protocols.faultline.instruments import read_cruxes
from workbench.protocols.faultline.measures import crux_recurrence

CORPUS = Path(__file__).resolve().parents[2] / "corpus"


def _unit(rows):
    v = np.asarray(rows, dtype=float)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def test_average_linkage_does_not_chain_two_cruxes_through_a_question_near_both():
    # a ~ b (0.8) and b ~ c (0.8) but a, c far apart: single linkage joins all three, average linkage must not
    sim = np.array([[1.0, 0.8, 0.3], [0.8, 1.0, 0.8], [0.3, 0.8, 1.0]])
    labels = eq.average_linkage(sim, 0.65)
    assert sorted(labels.tolist()).count(-1) == 1 and len(set(labels.tolist()) - {-1}) == 1
    assert eq.average_linkage(sim, 0.5).tolist() == [0, 0, 0]     # mean 0.63 over a, b, c reaches 0.5


def test_min_size_three_makes_a_pair_noise():
    sim = np.array([[1.0, 0.9, 0.1], [0.9, 1.0, 0.1], [0.1, 0.1, 1.0]])
    assert eq.average_linkage(sim, 0.65, min_size=3).tolist() == [-1, -1, -1]


def test_cr_from_labels_counts_runs_per_cluster():
    # cluster 0 spans runs a, b, c (stable); cluster 1 spans a, b; one question asked once: CR 1/3
    est = crux_recurrence([[1, 0]] * 6, ["a", "b", "c", "a", "b", "c"], labels=[0, 0, 0, 1, 1, -1], method="m")
    assert est.value == pytest.approx(1 / 3) and est.details == {"stable": 1, "clusters": 2, "noise": 1,
                                                                 "questions": 6, "runs": 3}
    assert est.method.startswith("CR: m spanning >= 3 runs")


def test_a_min_cluster_size_above_three_is_refused():
    with pytest.raises(ValueError, match="a crux asked in exactly 3 runs"):
        crux_recurrence([[1, 0]] * 4, ["a", "b", "c", "d"], min_cluster_size=4)


def test_the_study_file_refuses_a_min_cluster_size_above_three():
    from workbench.protocols.faultline.section import check_section

    problems = []
    check_section({"faultline": {"hdbscan_min_cluster_size": 4}}, {"model": {"name": "sim"}},
                  lambda where, what: problems.append(f"{where}: {what}"))
    assert any(p.startswith("faultline.hdbscan_min_cluster_size: must be 2 or 3 (got 4)") and "noise" in p
               for p in problems), problems


def test_direction_conflicts_name_opposite_directions_in_one_cluster_only():
    qs = ["Will rates rise?", "Will rates fall?", "Are rates going up?", "Will prices rise?"]
    assert eq.direction_conflicts(qs, [0, 0, 1, 1]) == [("Will rates rise?", "Will rates fall?")]
    assert eq.direction_conflicts(qs, [0, 1, 0, -1]) == []      # rise and up: one direction


@pytest.mark.parametrize("reply, read", [("SAME", True), ("different.", False), ("**SAME** - both ask it", True),
                                         ("They are DIFFERENT questions.", False), ("I think so", None),
                                         ("SAME or DIFFERENT? Hard to say", None), ("", None),
                                         ("They are not the same question.", False), ("Yes.", True)])
def test_the_check_reads_same_or_different_and_never_guesses(reply, read):
    assert eq.read_check(reply) is read


def test_the_prompt_holds_the_two_questions_only_in_one_order():
    p = eq.pair_prompt("Will B happen?", "Will A happen?")
    assert p == eq.pair_prompt("Will A happen?", "Will B happen?")
    assert p.index("Will A happen?") < p.index("Will B happen?")
    assert "run" not in p.lower().replace("rule", "") and "condition" not in p.lower()


# --- the planted sets, with the real sentence model -------------------------------------------------

@pytest.fixture(scope="module")
def planted():
    return {e.id: e for e in load(CORPUS, "cruxes")}


@pytest.fixture(scope="module")
def labelled():
    """The labelled pairs as the mock model's answers: {frozenset(a, b): same}."""
    pairs = {}
    for e in load(CORPUS, "crux-pairs"):
        a, b = e.text.split("\n")
        pairs[frozenset((a, b))] = e.truth["same"]
    return pairs


def mock_model(labelled, asked):
    """Answers each prompt as the labelled set says; records what it was asked. A pair outside the set fails
    the test: the set must cover every pair the check asks."""
    def ask(prompts):
        out = []
        for p in prompts:
            a = re.search(r"Question A: (.*)", p).group(1)
            b = re.search(r"Question B: (.*)", p).group(1)
            asked.append((a, b))
            out.append("SAME" if labelled[frozenset((a, b))] else "DIFFERENT")
        return out
    return ask


@pytest.mark.parametrize("entry, low, high", [("one-crux-reworded-in-every-run", 0.9, 1.0),
                                              ("fifteen-distinct-subjects", 0.0, 0.1),
                                              ("half-the-cruxes-recur", 0.4, 0.6)])
def test_the_offline_default_meets_the_planted_targets(planted, entry, low, high):
    doc = read_cruxes(planted[entry].text, {"equivalence": "embedding"})
    assert low <= doc["cr"] <= high and not doc["flagged"], doc


def test_the_offline_default_flags_direction_only_pairs(planted):
    doc = read_cruxes(planted["fifteen-distinct-one-topic-with-directions"].text, {"equivalence": "embedding"})
    assert doc["flagged"] and "differ in direction" in doc["reason"]


def test_the_model_check_separates_direction_only_pairs(planted, labelled):
    asked = []
    doc = read_cruxes(planted["fifteen-distinct-one-topic-with-directions"].text, {"equivalence": "model"},
                      ask=mock_model(labelled, asked))
    assert doc["cr"] <= 0.1 and not doc["flagged"] and doc["asked"] == len(asked) > 0
    assert ("Will the central bank cut interest rates before the third quarter?",
            "Will the central bank raise interest rates before the third quarter?") in asked


@pytest.mark.parametrize("entry, low, high", [("one-crux-reworded-in-every-run", 0.9, 1.0),
                                              ("half-the-cruxes-recur", 0.4, 0.6)])
def test_the_model_check_keeps_rewordings_together(planted, labelled, entry, low, high):
    doc = read_cruxes(planted[entry].text, {"equivalence": "model"}, ask=mock_model(labelled, []))
    assert low <= doc["cr"] <= high, doc


def test_unreadable_answers_are_flagged_and_counted(planted):
    doc = read_cruxes(planted["one-crux-reworded-in-every-run"].text, {"equivalence": "model"},
                      ask=lambda prompts: ["maybe"] * len(prompts))
    assert doc["flagged"] and doc["unreadable"] == doc["asked"] > 0 and doc["cr"] == 0.0


def test_read_cruxes_refuses_a_file_that_is_not_a_list_of_runs():
    with pytest.raises(ValueError, match="run 1 is not a list of crux questions"):
        read_cruxes(json.dumps({"run": "q"}), {})
    with pytest.raises(ValueError, match="run 2, crux 1: not a question"):
        read_cruxes(json.dumps([["q"], [""]]), {})
    with pytest.raises(ValueError, match="needs --model"):
        read_cruxes(json.dumps([["q"]]), {"equivalence": "model"})


@pytest.mark.parametrize("text", [
    '[["A?", "B?"], [{"question": "C?", "diagnosis": "d", "messages": []}]]',   # questions or stored cards
    '{"runs": [["A?", "B?"], ["C?"]]}',
    '{"run-1": ["A?", "B?"], "run-2": {"cards": [{"question": "C?"}]}}',
    '["A?", "B?"]\n["C?"]\n',                                                     # JSON Lines
    "Run 1\n- A?\n- B?\n\nRun 2:\n1. C?\n",                                    # headed, with bullets
    "A?\nB?\n\nC?\n",                                                          # blank-line blocks
])
def test_read_cruxes_takes_every_reasonable_shape_of_runs(text):
    from workbench.protocols.faultline.instruments import parse_runs

    assert parse_runs(text) == [["A?", "B?"], ["C?"]]


def test_the_check_goes_through_the_gateway_blind_and_a_pair_asked_again_is_replayed(tmp_path):
    """On the built-in mock model (its text is neither SAME nor DIFFERENT: unreadable, never guessed): every
    call is logged in the store with the extractor's role and a turn named by the prompt's hash only; the
    prompt holds the two questions and nothing else of the study; the same pair asked again is replayed."""
    from store.calls import calls_for
    from store.db import open_store
    from workbench.gateway.api import ModelSettings

    db = open_store(tmp_path / "s.db")
    ask = eq.gateway_asker(db, tmp_path / "s.db", ModelSettings(model="mock", max_tokens=16), None)
    prompt = eq.pair_prompt("Will rates rise?", "Will rates fall?")
    first = ask([prompt])
    again = ask([prompt])
    rows = calls_for(db)
    assert len(first) == 1 and eq.read_check(first[0]) is None and again == first
    assert [r["status"] for r in rows] == ["ok", "replayed"]
    assert all(r["role"] == "extractor" and r["turn"].startswith("crux-equivalence:") and r["run_id"] is None
               for r in rows)
    sent = json.loads(rows[0]["request"])
    assert json.dumps(sent).count("Will rates") == 2 and "condition" not in json.dumps(sent).lower()


def test_a_cr_that_hangs_on_questions_the_embedding_cannot_decide_is_flagged():
    def three_runs(cos):
        s = np.full((3, 3), cos)
        np.fill_diagonal(s, 1.0)
        return s

    labels = eq.average_linkage(three_runs(0.6), eq.SAME)
    assert "hangs on" in eq.undecided(three_runs(0.6), labels, ["1", "2", "3"])   # CR 0 at 0.65, 1 at 0.55
    labels = eq.average_linkage(three_runs(0.9), eq.SAME)
    assert eq.undecided(three_runs(0.9), labels, ["1", "2", "3"]) == ""          # CR 1 at both lines
    labels = eq.average_linkage(three_runs(0.3), eq.SAME)
    assert eq.undecided(three_runs(0.3), labels, ["1", "2", "3"]) == ""          # CR 0 at both lines


def test_the_tuning_sets_in_other_forms_are_read_within_the_target_or_flagged():
    """tests/corpus/cruxes-tuning: rewordings as statements, negations, dates, long and short. The default reads
    each within 0.1 of its planted CR or flags it, never misreads one silently."""
    for entry in load(CORPUS, "cruxes-tuning"):
        doc = read_cruxes(entry.text, {"equivalence": "embedding"})
        assert doc["flagged"] or abs(doc["cr"] - entry.truth["cr"]) <= 0.1, (entry.id, doc)
        if abs(doc["cr"] - entry.truth["cr"]) > 0.1:
            assert "hangs on" in doc["reason"], (entry.id, doc)
