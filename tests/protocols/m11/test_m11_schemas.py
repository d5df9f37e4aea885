"""Every M11 stage that answers in JSON (Critic, Defender, Judge, MetaJudge, the binary judge; the InputFilter
makes no call) sends its reply's JSON schema to a server that decodes by schema, and none when the study's
model says `structured = "none"` (issue 19 item 4). The schemas have the parser's shape: the scripted replies,
which the parser takes, fit them; the spellings the parser has to fix do not."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from tests.protocols.m11 import m11kit
from tests.protocols.m11.m11kit import EXAMPLE_A, EXAMPLE_B
from workbench.judges.parse import extract_json
from workbench.protocols.m11 import PROTOCOL

STAGES = {"critic", "defender", "judge", "metajudge", "binary"}


async def _run(m11_store, tmp_path, server, structured: str | None):
    db, db_path = m11_store
    d = m11kit.definition(items=m11kit.write_items(tmp_path / "items.jsonl", [EXAMPLE_A, EXAMPLE_B]))
    study_id = m11kit.save_study(db, d)
    PROTOCOL.load_items(db, study_id, d)
    settings = replace(m11kit.settings(server), structured=structured)
    await m11kit.run_all(db, m11kit.gateway(db, db_path), study_id, d, settings)
    return server.requests


async def test_every_stage_sends_its_schema(m11_store, m11_server, tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    requests = await _run(m11_store, tmp_path, m11_server, None)
    assert {m11kit.stage_of(b) for b in requests} == STAGES
    for body in requests:
        fmt = body["response_format"]
        assert fmt["type"] == "json_object" and fmt["schema"]["required"]
        jsonschema.validate(extract_json(m11kit.scripted(body)), fmt["schema"])
    defender = next(b for b in requests if m11kit.stage_of(b) == "defender" and "Hydro Flask" in
                    b["messages"][-1]["content"])["response_format"]["schema"]["properties"]["rebuttals"]
    assert defender["minItems"] == defender["maxItems"] == 4
    assert defender["items"]["properties"]["id"]["enum"] == ["W1", "W2", "W3", "W4"]


async def test_structured_none_sends_no_schema(m11_store, m11_server, tmp_path):
    requests = await _run(m11_store, tmp_path, m11_server, "none")
    assert {m11kit.stage_of(b) for b in requests} == STAGES
    assert all("response_format" not in body for body in requests)


def test_spellings_the_parser_fixes_are_outside_the_schemas():
    jsonschema = pytest.importorskip("jsonschema")
    from workbench.protocols.m11.schemas import binary_schema, critic_schema

    weak = {"id": "W1", "category": "Accuracy", "severity": "minor", "issue": "x", "evidence": ""}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"weaknesses": [weak] * 3}, critic_schema()["schema"])
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(json.loads('{"verdict": "pass", "reason": ""}'), binary_schema()["schema"])
