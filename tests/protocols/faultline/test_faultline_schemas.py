"""Every faultline structured step sends its reply's JSON schema to a server that decodes by schema, and
none when the study's model says `structured = "none"` (issue 19 item 4); the schemas have the parser's shape:
every reply the scripted model gives (which the parser accepts) fits the schema sent with its request."""

from __future__ import annotations

import pytest

from tests.protocols.faultline.faultline_kit import PAIR, TOPIC, gateway, make_study, scripted
from tests.protocols.faultline.test_faultline_programs import ctx_for
from workbench.judges.parse import extract_json
from workbench.protocols.faultline import PROTOCOL
from workbench.protocols.faultline.graphs import build_study_graphs

DEBATE = f"{TOPIC}--{PAIR}"
SCHEMA_NAMES = {"Write the belief graph": "faultline_belief_graph", "Map its arguments": "faultline_qbaf",
                "Write crux cards": "faultline_crux_cards", "List every claim": "faultline_claims",
                "give the stance the statement takes": "faultline_stances"}


def step_of(body: dict) -> str | None:
    text = body["messages"][0]["content"]
    return next((name for marker, name in SCHEMA_NAMES.items() if marker in text), None)


async def _run_everything(tmp_path, server, structured: str | None):
    extra = {} if structured is None else {"structured": structured}
    db, db_path, sid, d = make_study(tmp_path, api_base=server.url, conditions=("qbaf-20", "single"), rounds=1)
    for table in (d["model"], d["faultline"]["extractor"], d["faultline"]["belief_graph"]):
        table.update(extra)
    await build_study_graphs(db, gateway(db, db_path), sid, d)
    await PROTOCOL.program(ctx_for(db, gateway(db, db_path), sid, d, DEBATE, "qbaf-20"))
    await PROTOCOL.program(ctx_for(db, gateway(db, db_path), sid, d, TOPIC, "single"))
    return server.requests, db, sid


async def test_every_structured_step_sends_its_schema(tmp_path, fl_server):
    jsonschema = pytest.importorskip("jsonschema")
    requests, db, sid = await _run_everything(tmp_path, fl_server, None)
    from workbench.structured.counts import parse_counts   # the graph build records how each reply was read

    assert [(c["step"], c["parsed"], c["replies"]) for c in parse_counts(db, sid)] == [("belief graph", 2, 2)]
    by_step: dict[str, list[dict]] = {}
    for body in requests:
        by_step.setdefault(step_of(body) or "speech", []).append(body)
    assert set(by_step) == {*SCHEMA_NAMES.values(), "speech"}
    for body in by_step.pop("speech"):     # debate speeches and the baseline's answer are free text
        assert "response_format" not in body
    for bodies in by_step.values():
        for body in bodies:
            fmt = body["response_format"]
            assert fmt["type"] == "json_object" and fmt["schema"]["required"]
            # the parser's shape: the scripted reply to this very request (which the parser takes) fits
            jsonschema.validate(extract_json(scripted(body)), fmt["schema"])
    graph = by_step["faultline_belief_graph"][0]["response_format"]["schema"]["properties"]["nodes"]
    assert graph["minItems"] == graph["maxItems"] == 20
    stances = by_step["faultline_stances"][0]["response_format"]["schema"]["properties"]["stances"]
    assert {"chernobyl-year", "plants-emit-co2"} <= set(stances["required"]) and len(stances["required"]) == 4
    cards = by_step["faultline_crux_cards"][0]["response_format"]["schema"]["properties"]["cards"]
    assert "A-r1" in cards["items"]["properties"]["messages"]["items"]["enum"]


async def test_structured_none_sends_no_schema(tmp_path, fl_server):
    requests, _, _ = await _run_everything(tmp_path, fl_server, "none")
    assert {step_of(b) for b in requests} >= set(SCHEMA_NAMES.values())
    assert all("response_format" not in body for body in requests)


def test_a_reply_outside_the_schema_is_one_the_parser_would_have_to_fix():
    """The schema is no looser than the parser: the synonyms it tolerates ("attacks") are not in it."""
    jsonschema = pytest.importorskip("jsonschema")
    from workbench.protocols.faultline.schemas import belief_graph_schema, qbaf_schema

    graph = {"nodes": [{"id": "n1", "claim": "c", "credence": 0.5}], "edges": [{"from": "n1", "to": "n1",
                                                                                 "type": "support"}]}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(graph, belief_graph_schema(1)["schema"])
    qbaf = {"arguments": [{"id": "a1", "text": "t", "message": "A-r1", "base": {"x": 1.2, "y": 0.5}}],
            "relations": []}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(qbaf, qbaf_schema(["x", "y"], ["A-r1"])["schema"])
