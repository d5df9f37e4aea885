"""Faultline's and M11's instruments (issue 41): belief graphs, stances, crux cards, and the M11 Judge's
scores, binary verdict and MetaJudge check, each read by its step's own parser on a corpus of realistic
replies. Floors: no silent misreading, and each instrument's share read correctly (the rest flagged)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench.cli.main import main
from workbench.instruments.accuracy import CORRECT, SILENT, measure
from workbench.instruments.corpus import load
from workbench.instruments.registry import get
from workbench.protocols.faultline import parsing
from workbench.protocols.m11 import replies
from workbench.structured.reading import PARSED, REPAIRED, UNPARSED, read
from workbench.structured.reply_object import reply_object

CORPUS = Path(__file__).resolve().parent.parent / "corpus"

# name → (minimum entries, minimum layouts, minimum share read correctly; the rest must be flagged).
# Measured 2026-11-28: the counts in benchmarks/instruments.py's table (README).
FLOORS = {
    "graph": (15, 15, 0.75),
    "stance": (20, 20, 0.75),
    "crux-card": (12, 12, 0.60),
    "m11-scores": (15, 15, 0.70),
    "m11-verdict": (10, 10, 0.70),
    "m11-sycophancy": (10, 10, 0.70),
}


@pytest.fixture(scope="module")
def accuracy():
    return {name: measure(get(name), load(CORPUS, name)) for name in FLOORS}


@pytest.mark.parametrize("name", sorted(FLOORS))
def test_floor_and_no_silent_misreading(accuracy, name):
    entries, layouts, share = FLOORS[name]
    a = accuracy[name]
    assert a.count(SILENT) == 0, [(o.entry.id, o.document) for o in a.silent()]
    assert a.n >= entries and a.layouts >= layouts, a.row()
    assert a.share(CORRECT) >= share, a.row()


def _read(text):
    return read(reply_object, text)


def test_one_object_is_read_and_text_around_it_is_a_repair():
    assert _read('{"a": 1}').value == {"a": 1} and _read('{"a": 1}').outcome == PARSED
    around = _read('Sure:\n```json\n{"a": 1}\n```\nDone.')
    assert around.value == {"a": 1} and around.outcome == REPAIRED


def test_two_different_objects_are_refused_never_read_by_their_order():
    reading = _read('{"a": 1}\nCorrected: {"a": 2}')
    assert reading.outcome == UNPARSED and "2 different JSON objects" in reading.detail


def test_the_same_object_twice_is_read_once():
    assert _read('{"a": 1}\nFinal: {"a": 1}').value == {"a": 1}


@pytest.mark.parametrize("text, mend", [
    ("{'a': 1, 'b': True, 'c': None}", "single quotes"),
    ('{"a": 1, "b": true, "c": null,}', "trailing commas"),
    ('{"a": 1,  // one\n "b": true, "c": null}', "comments"),
])
def test_near_json_is_mended_and_the_mend_named(text, mend):
    reading = _read(text)
    assert reading.value == {"a": 1, "b": True, "c": None} and mend in reading.detail


@pytest.mark.parametrize("text", ['{"a": [1, {"b": 2', "no json here", '[{"a": 1}, {"a": 2}]', ""])
def test_cut_absent_or_listed_json_is_unparsed(text):
    assert _read(text).outcome == UNPARSED


def test_a_placeholder_echo_does_not_hide_the_answer_after_it():
    assert _read('Format {"x": <0-1>}. Answer: {"x": 0.5}').value == {"x": 0.5}


def test_stances_read_respelled_ids_words_and_objects_and_refuse_two_for_one_claim():
    ids = ["c1", "c2", "c3"]
    got = parsing.stances({"stances": {"C1": "+2", "c2": "strongly against", "c3": {"stance": 0}}}, ids)
    assert dict(got) == {"c1": 2, "c2": -2, "c3": 0} and not got.unknown
    with pytest.raises(ValueError, match="two stances"):
        parsing.stances({"stances": {"c1": 1, "C1": -1}}, ids)


def test_an_m11_judge_reply_revised_in_a_second_object_is_asked_again_not_read_as_the_first():
    first = {c: {"score": 3, "evidence": "e"} for c in ("accuracy", "relevance", "completeness", "clarity",
                                                         "reasoning")}
    second = {**first, "accuracy": {"score": 2, "evidence": "conceded"}}
    text = json.dumps({"scores": first, "summary": "s"}) + "\nRevised:\n" + json.dumps({"scores": second,
                                                                                         "summary": "s"})
    assert read(replies.judge, text).outcome == UNPARSED


@pytest.mark.parametrize("name, text, options, key, value", [
    ("stance", '{"stances": {"c1": -1}}', ["--claims", "c1,c2"], "stances", {"c1": -1, "c2": None}),
    ("graph", '{"nodes": [{"id": "n1", "claim": "x", "credence": 0.5}], "edges": []}', ["--size", "1"],
     "nodes", [{"id": "n1", "claim": "x", "credence": 0.5}]),
    ("crux-card", '{"cards": [{"question": "q?", "diagnosis": "d", "messages": ["A-r1"]}]}', [],
     "cards", [{"question": "q?", "diagnosis": "d", "messages": ["A-r1"]}]),
    ("m11-verdict", '{"verdict": "fail", "reason": "r"}', [], "verdict", "FAIL"),
    ("m11-sycophancy", '{"sycophantic": "no"}', [], "sycophantic", False),
    ("m11-scores", json.dumps({"scores": {c: {"score": 4, "evidence": "e"} for c in
                                          ("accuracy", "relevance", "completeness", "clarity", "reasoning")},
                               "summary": "s"}), [], "overall", 4.0),
])
def test_read_prints_the_reading_as_json(tmp_path, capsys, name, text, options, key, value):
    reply = tmp_path / "reply.txt"
    reply.write_text(text)
    assert main(["--batch", "--json", "read", name, str(reply), *options]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc[key] == value and doc["flagged"] is False and doc["outcome"] in (PARSED, REPAIRED)


def test_read_flags_what_it_cannot_read_and_says_why(tmp_path, capsys):
    reply = tmp_path / "reply.txt"
    reply.write_text('{"stances": {"c1": 1}}\nOr rather: {"stances": {"c1": -1}}')
    assert main(["--batch", "read", "stance", str(reply), "--claims", "c1"]) == 0
    out = capsys.readouterr().out
    assert "FLAGGED" in out and "2 different JSON objects" in out


def test_read_stance_without_the_claims_names_the_option(tmp_path, capsys):
    reply = tmp_path / "reply.txt"
    reply.write_text('{"stances": {"c1": 1}}')
    assert main(["--batch", "read", "stance", str(reply)]) == 1
    assert "--claims" in capsys.readouterr().err
