"""Crux equivalence (issue 41): two cruxes recur when they ask the same question. The clustering on fixed
vectors; the model's check answered by a mock that reads a labelled pair set; and the planted sets of
tests/corpus/cruxes read with the real all-mpnet-base-v2 (loaded once for this module)."""

from __future__ import annotations

import json
import re
from dataclasses import replace
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
                                         ("They are not the same question.", False), ("Yes.", True),
                                         ('{ "answer" : "DIFFERENT"}', False), ('{"answer": "maybe"}', None),
                                         ("Answer: Same", True),
                                         ("Rewordings of one question are the same question.", None)])
def test_the_check_reads_same_or_different_and_never_guesses(reply, read):
    assert eq.read_check(reply) is read


def test_a_model_that_joins_raise_and_cut_flags_the_reading():
    """A small model may answer SAME to a raise/cut pair: the clusters then join two directions, and the
    reading says so instead of counting a recurrence silently."""
    qs = ["Will the bank raise rates?", "Will the bank cut rates?", "Will the bank hike rates?"]
    vectors = np.eye(3) * 0.5 + 0.5                      # every pair a candidate
    said_same = eq.by_model(qs, vectors, lambda prompts: ["SAME"] * len(prompts), "m", runs=["0", "1", "2"])
    assert said_same.flagged and "differ in direction" in said_same.reason and said_same.conflicts
    raise_hike = lambda prompts: ["DIFFERENT" if "cut rates" in p else "SAME" for p in prompts]  # noqa: E731
    apart = eq.by_model(qs, vectors, raise_hike, "m", runs=["0", "1", "2"])
    assert not apart.flagged and apart.labels[0] == apart.labels[2] != apart.labels[1]


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


def test_the_offline_default_reads_the_tests_own_planted_sets(planted):
    one = read_cruxes(planted["one-crux-reworded-in-every-run"].text, {})
    assert one["cr"] == 1.0 and not one["flagged"] and one["method"].startswith("CR: all-mpnet-base-v2 cosine, mutual")
    assert read_cruxes(planted["fifteen-distinct-subjects"].text, {})["cr"] <= 0.1
    # four one-off questions sit at cosine 0.57-0.65 to the recurring cruxes of runs that lack them: no embedding
    # line parts them from the rewordings (which sit as low as 0.45 elsewhere), so the reading says so
    half = read_cruxes(planted["half-the-cruxes-recur"].text, {})
    assert half["flagged"] or 0.4 <= half["cr"] <= 0.6, half


def test_session_11s_average_linkage_flags_direction_only_pairs(planted):
    doc = read_cruxes(planted["fifteen-distinct-one-topic-with-directions"].text, {"equivalence": "embedding"})
    assert doc["flagged"] and "differ in direction" in doc["reason"]


def test_the_offline_default_parts_direction_only_pairs(planted):
    """The direction stage (direction.py): raise / cut / unchanged, strengthen / weaken, rise above / fall below
    never share a crux; CR falls from 0.60 (session 15, flagged) toward the planted 0, and what is left of it
    (one-topic questions matched across runs) is still flagged."""
    doc = read_cruxes(planted["fifteen-distinct-one-topic-with-directions"].text, {})
    assert not any(eq.direction_conflicts(c["questions"], [0] * len(c["questions"])) for c in doc["clusters"])
    assert doc["cr"] <= 0.3 and (doc["flagged"] or doc["cr"] <= 0.1), doc


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


def test_a_check_that_contradicts_a_sure_offline_default_or_splits_close_matches_is_flagged(planted):
    """A model that calls free rewordings different (Qwen2.5-Coder-1.5B did, on cruxes reworded across the runs of
    unseen sets) reads CR 0 where the offline default, unflagged, reads 1.0, or, where the default
    is itself unsure, where it matches rewordings closely (cosine >= CLOSE): `equivalence.doubts` says so, never
    taken silently. Where the check agrees, its reading stands (and a right check on the tests' half-recurring set,
    whose different questions match at up to 0.72, is not flagged: the near-miss test above)."""
    text = planted["one-crux-reworded-in-every-run"].text
    split = read_cruxes(text, {"equivalence": "model"}, ask=lambda prompts: ["DIFFERENT"] * len(prompts))
    assert split["cr"] == 0.0 and split["flagged"] and "offline default, sure of these questions, reads 1.00" \
        in split["reason"], split
    unsure = read_cruxes(planted["half-the-cruxes-recur"].text, {})
    split = read_cruxes(planted["half-the-cruxes-recur"].text, {"equivalence": "model"},
                        ask=lambda prompts: ["DIFFERENT"] * len(prompts))
    assert unsure["flagged"] and split["cr"] == 0.0 and split["flagged"], split
    assert "CR is 0.00 by the check, 0.40 if the" in split["reason"], split
    agreed = read_cruxes(text, {"equivalence": "model"}, ask=lambda prompts: ["SAME"] * len(prompts))
    assert agreed["cr"] == 1.0 and not agreed["flagged"], agreed


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


@pytest.mark.parametrize("text, what", [
    ('"Will rates rise?"', "a JSON string, not a list of runs"),
    ("42", "a JSON number, not a list of runs"),
    ("Perspective one sees the Fed raising rates.\nThe other sees a cut.\n", "plain text in one block"),
])
def test_read_cruxes_names_the_file_that_is_not_runs_and_never_reads_it_as_one_question(tmp_path, capsys, text,
                                                                                        what):
    from workbench.cli.main import main

    path = tmp_path / "reply.txt"
    path.write_text(text, encoding="utf-8")
    assert main(["--batch", "read", "cruxes", str(path)]) == 1
    err = capsys.readouterr().err
    assert f"{path}: {what}" in err and "CR:" not in err


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
    # constrained to SAME | DIFFERENT where the endpoint enforces it: the schema is part of the replay key
    from workbench.gateway.api import CallRequest
    from workbench.gateway.client import call_key
    asked = CallRequest(messages=sent, settings=ModelSettings(model="mock", max_tokens=16), role="extractor",
                        turn=rows[0]["turn"], agent="crux-checker", response_schema=eq.CHECK_SCHEMA)
    assert rows[0]["call_key"] == call_key(asked) != call_key(replace(asked, response_schema=None))


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


# --- every committed planted set (all tuning now), read once for the module -----------------------------------

BENCH = CORPUS.parents[1] / "benchmarks" / "data-cruxes"


# the committed sets the tests read (the benchmark, benchmarks/crux_unseen.py, reads every one): the written-outside
# rounds whose first readings were a silent misreading (session 11, third) and the last measured (session 12, A)
READ_HERE = ("session-11-third.toml", "session-12-a.toml")


@pytest.fixture(scope="module")
def committed():
    """(entry, reading) of the tests' own planted sets, the tuning sets and the sets written outside the project
    in READ_HERE (all tuning now), read once for the module."""
    entries = (load(CORPUS, "cruxes") + load(CORPUS, "cruxes-tuning")
               + [e for e in load(BENCH, "unseen") if Path(e.file).name in READ_HERE])
    return [(e, read_cruxes(e.text, {})) for e in entries]


def _kind(entry) -> str:
    words = (entry.id + " " + entry.layout).lower()
    if entry.truth["cr"] == 1.0:
        return "reworded"
    if entry.truth["cr"] == 0.5:
        return "half"
    return "one topic" if ("direction" in words or "one topic" in words) else "distinct"


def _within(entry, doc) -> bool:
    return doc["cr"] is not None and abs(doc["cr"] - entry.truth["cr"]) <= 0.1 + 1e-9


def test_no_committed_set_is_misread_silently(committed):
    silent = [(e.id, d["cr"]) for e, d in committed if not _within(e, d) and not d["flagged"]]
    assert len(committed) >= 25 and silent == []


def test_every_rewording_recurs_and_no_distinct_subject_does(committed):
    """Issue 41's offline targets: one crux reworded in every run >= 0.9, fifteen distinct subjects <= 0.1."""
    reworded = [d["cr"] for e, d in committed if _kind(e) == "reworded"]
    distinct = [d["cr"] for e, d in committed if _kind(e) == "distinct"]
    assert len(reworded) >= 8 and min(reworded) >= 0.9, reworded
    assert len(distinct) >= 6 and max(distinct) <= 0.1, distinct


def test_half_recurring_sets_hold_their_floor_and_the_rest_are_flagged(committed):
    """Half recurring 0.5 +- 0.1: a floor (4 of these 8 when set, 7 of all 14 committed; session 11's average
    linkage read 1 of these 8), every other one flagged as hanging on questions the embedding cannot decide."""
    half = [(e, d) for e, d in committed if _kind(e) == "half"]
    assert len(half) >= 8 and sum(_within(e, d) for e, d in half) >= 4
    assert all("read it with the model's check" in d["reason"] for e, d in half if not _within(e, d))


def test_one_topic_sets_are_read_within_the_target_or_flagged_by_the_offline_default(committed):
    one_topic = [(e, d) for e, d in committed if _kind(e) == "one topic"]
    assert len(one_topic) >= 3 and all(d["flagged"] or _within(e, d) for e, d in one_topic)


def test_the_session_11_silent_misreading_is_flagged_under_both_offline_methods(committed):
    """unseen3-half-recur-phone-ban read 0.17 (planted 0.5) with no flag: the old rule compared CR at two lines
    only (0.55 and 0.65, 0.25 against 0.17); CR reads 0.33 at 0.45, and one of its rewordings sits at 0.36-0.44."""
    text = dict((e.id, e.text) for e, _ in committed)["unseen3-half-recur-phone-ban"]
    for method in ("matching", "embedding"):
        doc = read_cruxes(text, {"equivalence": method})
        assert doc["flagged"] and "model's check" in doc["reason"], (method, doc)


def test_the_model_check_asks_the_near_misses_an_offline_reading_hangs_on(planted, labelled):
    """The check is asked every pair of different runs down to the undecided band's bottom (CANDIDATE = LOW): the
    capacity crux's rewordings at cosine 0.47 and 0.51, which the matching reads as one crux only by luck, are
    put to the model; two questions of one run never are (a debate asks a crux once)."""
    asked = []
    text = planted["half-the-cruxes-recur"].text
    doc = read_cruxes(text, {"equivalence": "model"}, ask=mock_model(labelled, asked))
    assert eq.CANDIDATE == eq.LOW and doc["cr"] == 0.5 and not doc["flagged"], doc
    assert ("Can domestic steelmakers expand capacity within two years?",
            "Do the mills have the capacity to grow output quickly?") in asked
    runs = json.loads(text)
    assert not any(a in run and b in run for a, b in asked for run in runs)


def test_the_check_reaches_a_keyless_local_server_and_a_refusal_is_said_not_thrown(tmp_path, capsys, monkeypatch,
                                                                                    loopback_server, planted):
    """`read cruxes --equivalence model` against a local server that needs no key (`--api-key-env none`), as the
    real-model suite runs Qwen2.5-Coder-1.5B; without it litellm finds no key, and the command says so, naming
    the file and the setting, exit 1 (it printed a traceback before)."""
    from workbench.cli.main import main

    loopback_server.responder = lambda body: '{"answer": "DIFFERENT"}'
    monkeypatch.delenv("OPENAI_API_KEY")
    monkeypatch.setenv("WORKBENCH_DB", str(tmp_path / "w.db"))
    path = tmp_path / "runs.json"
    path.write_text(planted["half-the-cruxes-recur"].text)
    argv = ["--batch", "--json", "read", "cruxes", str(path), "--equivalence", "model", "--model", "openai/local",
            "--api-base", loopback_server.url]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert str(path) in err and "could not be asked" in err and "api_key_env" in err and "Traceback" not in err
    assert main(argv + ["--api-key-env", "none"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["asked"] == loopback_server.count > 0 and doc["unreadable"] == 0
