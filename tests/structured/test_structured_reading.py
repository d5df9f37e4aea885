"""How a structured reply is read (issue 19 item 4): parsed when the parser takes it as is, repaired when the
parser had to fix it, unparsed when it refused it; each protocol's parser names its own fixes."""

from __future__ import annotations

import json

from workbench.judges.parse import extract_json
from workbench.structured.reading import PARSED, REPAIRED, UNPARSED, read


def test_the_object_alone_is_parsed_fenced_or_embedded_is_repaired_prose_is_unparsed():
    obj = {"score": 0.5, "reason": "fine"}
    assert read(extract_json, json.dumps(obj)).outcome == PARSED
    assert read(extract_json, "  \n" + json.dumps(obj) + "\n").outcome == PARSED     # whitespace is no fix
    fenced = read(extract_json, "```json\n" + json.dumps(obj) + "\n```")
    assert (fenced.outcome, fenced.value, fenced.detail) == (REPAIRED, obj, "the JSON object was in a ``` fence")
    trailing = read(extract_json, json.dumps(obj) + "\nHope this helps!")
    assert trailing.outcome == REPAIRED and "other text" in trailing.detail
    prose = read(extract_json, "I would give it a half.")
    assert (prose.outcome, prose.value) == (UNPARSED, None) and "no valid JSON object" in prose.detail


def test_the_notes_belong_to_one_reading():
    assert read(extract_json, "x {\"a\": 1}").outcome == REPAIRED
    assert read(extract_json, "{\"a\": 1}").outcome == PARSED        # the earlier fix does not leak
    assert extract_json("x {\"a\": 1}") == {"a": 1}                  # outside a reading the parser is unchanged


def test_faultline_parsers_name_their_fixes():
    from workbench.protocols.faultline import parsing

    def graph(text):
        return parsing.belief_graph(extract_json(text), 2)

    nodes = [{"id": f"n{i}", "claim": "c", "credence": 0.5} for i in range(3)]
    exact = json.dumps({"nodes": nodes[:2], "edges": [{"from": "n0", "to": "n1", "type": "supports"}]})
    assert read(graph, exact).outcome == PARSED
    clamped = read(graph, json.dumps({"nodes": nodes, "edges": []}))
    assert clamped.outcome == REPAIRED and "1 node(s) past 2 dropped" in clamped.detail
    synonym = read(graph, json.dumps({"nodes": nodes[:2], "edges": [{"from": "n0", "to": "n1", "type": "support"}]}))
    assert synonym.outcome == REPAIRED and "'support' read as 'supports'" in synonym.detail
    assert read(graph, json.dumps({"nodes": nodes[:1], "edges": []})).outcome == UNPARSED

    def stances(text):
        return parsing.stances(extract_json(text), ["a", "b"])

    assert read(stances, '{"stances": {"a": 2, "b": null}}').outcome == PARSED
    assert read(stances, '{"stances": {"a": 2}}').outcome == REPAIRED          # b filled in as null
    assert read(stances, '{"stances": {"a": 3, "b": 0}}').outcome == UNPARSED


def test_m11_parsers_name_their_fixes():
    from workbench.protocols.m11 import replies

    weak = [{"id": f"W{i}", "category": "accuracy", "severity": "minor", "issue": "x", "evidence": ""}
            for i in (1, 2, 3)]
    assert read(replies.critic, json.dumps({"weaknesses": weak})).outcome == PARSED
    shouty = [dict(w, category="Accuracy") for w in weak]
    assert read(replies.critic, json.dumps({"weaknesses": shouty})).outcome == REPAIRED
    assert read(replies.binary, '{"verdict": "PASS", "reason": ""}').outcome == PARSED
    lower = read(replies.binary, '{"verdict": "pass", "reason": ""}')
    assert (lower.outcome, lower.value["verdict"]) == (REPAIRED, "PASS")
    assert read(replies.binary, '{"verdict": "maybe"}').outcome == UNPARSED


def test_a_reply_stopped_at_max_tokens_that_does_not_parse_is_cut_and_counted_apart():
    """Issue 40: a cut reply is its own state in the counts `metrics` and the report print, not a parse error;
    a cut reply that still parses is taken."""
    from store import open_memory_store
    from store.studies import save_study
    from workbench.structured.counts import parse_counts, record, section
    from workbench.structured.reading import CUT

    cut = read(extract_json, '{"score": 0.5, "reason": "the record sh', cut=True)
    assert (cut.outcome, cut.value) == (CUT, None) and cut.detail.startswith("cut at max_tokens")
    assert read(extract_json, '{"score": 0.5}', cut=True).outcome == PARSED
    db = open_memory_store()
    save_study(db, study_id="s", name="s", protocol="calibration", definition={}, source_text="", cost_ceiling=None)
    for key, reading in (("a", cut), ("b", cut), ("c", read(extract_json, "prose"))):
        record(db, "s", key, "judge", reading)
    [counts] = parse_counts(db, "s")
    assert (counts["cut"], counts["unparsed"], counts["replies"], counts["unparsed_share"]) == (2, 1, 3, 0.3333)
    assert "| judge | 0 | 0 | 0 | 2 | 1 | 3 |" in section([counts])
