"""run_probe against the loopback model: prompts, verdicts, storage, the case file and the case list."""

from __future__ import annotations

import json

import pytest

from store import cases as case_rows
from store.probes import probes_for_case
from tests.probes.conftest import CASES, scripted_model
from workbench.cases.listing import case_summaries
from workbench.cases.parse import parse_file
from workbench.gateway import ModelSettings, build_gateway
from workbench.cases.library import validate
from workbench.cases.probes import PROBE_QUESTION, ProbeError, parse_verdict, run_probe


@pytest.fixture
def remote(loopback_server):
    return ModelSettings(model="openai/probe-target", api_base=loopback_server.url, timeout=5.0, temperature=0.0)


def summary(db, case_id):
    return next(c for c in case_summaries(db) if c["id"] == case_id)


async def test_not_recognized_is_stored_recorded_and_listed(db, library, loopback_server, remote):
    loopback_server.responder = scripted_model({"quarry-loan": "not_recognized"})
    result = await run_probe(db, build_gateway(db, library.db), "quarry-loan", remote)
    assert result.verdict == "not_recognized" and not result.flagged
    probe_req, classify_req = loopback_server.requests
    # A fresh context: one user message, the scenario and the seed's questions; no title, no outcome.
    assert [m["role"] for m in probe_req["messages"]] == ["user"]
    text = probe_req["messages"][0]["content"]
    assert CASES["quarry-loan"][1] in text and PROBE_QUESTION in text
    assert CASES["quarry-loan"][0] not in text and CASES["quarry-loan"][2] not in text
    assert CASES["quarry-loan"][2] in classify_req["messages"][0]["content"]  # the classifier sees the outcome
    # the classifier is asked for the verdict's shape (a server that decodes by schema can return no other);
    # the probed model answers in free text
    assert "response_format" not in probe_req
    schema = classify_req["response_format"]["schema"]
    assert schema["properties"]["verdict"]["enum"] == ["recognized", "partial", "not_recognized"]
    [row] = probes_for_case(db, "quarry-loan")
    assert row["verdict"] == "not_recognized" and row["model"] == "openai/probe-target"
    assert row["answer"] == "I do not recognize this specific scenario."
    assert json.loads(row["classifier_raw"])["verdict"] == "not_recognized"
    assert len(json.loads(row["call_ids"])) == 2
    assert summary(db, "quarry-loan")["probe"] == "not_recognized"
    assert summary(db, "ferry-timetable")["probe"] == "not probed"
    # Issue 34: the shipped case stays as it was; the case, with the probe, goes to the user's case library.
    assert parse_file(library.cases / "quarry-loan.md").case.probes == []
    on_disk = parse_file(library.own / "quarry-loan.md").case
    [recorded] = on_disk.probes
    assert (recorded.model, recorded.verdict, recorded.scenario_hash) == (
        "openai/probe-target", "not_recognized", on_disk.scenario_hash)
    assert "recorded in the case library" in result.file_note
    assert case_rows.get_case(db, "quarry-loan")["source_path"] == str((library.own / "quarry-loan.md").resolve())


async def test_recognized_case_is_flagged(db, library, loopback_server, remote):
    loopback_server.responder = scripted_model({"ferry-timetable": "recognized"},
                                               answers={"ferry-timetable": "This is the 2018 island ferry war."})
    result = await run_probe(db, build_gateway(db, library.db), "ferry-timetable", remote)
    assert result.verdict == "recognized" and result.flagged
    assert "Strategy B" in result.advice and "exclude" in result.advice
    listed = summary(db, "ferry-timetable")
    assert listed["recognized"] and listed["probe"].startswith("recognized")
    # The case file now carries the flag; the validator refuses the case as ready until it is dealt with.
    _cases, problems = validate([library.own / "ferry-timetable.md"], db)
    assert any(p.field == "probes" and "transpose" in p.message for p in problems)


async def test_unparseable_classifier_reply_is_an_error_verdict(db, library, loopback_server, remote):
    loopback_server.responder = scripted_model({}, raw={"quarry-loan": "Probably recognized, I think."})
    result = await run_probe(db, build_gateway(db, library.db), "quarry-loan", remote)
    assert result.verdict == "error" and not result.flagged
    [row] = probes_for_case(db, "quarry-loan")
    assert row["verdict"] == "error" and row["classifier_raw"] == "Probably recognized, I think."
    assert parse_file(library.cases / "quarry-loan.md").case.probes == []  # not a result: the file is untouched
    assert summary(db, "quarry-loan")["probe"] == "error"


@pytest.mark.parametrize("raw, verdict", [
    ('{"verdict": "partial", "reason": "x"}', "partial"),
    ('```json\n{"verdict": "Not recognized"}\n```', "not_recognized"),
    ('Here you go: {"verdict": "recognized", "identified_event": "E"}', "recognized"),
    ('{"verdict": "maybe"}', "error"),
    ("[placeholder: mock model] ...", "error"),
    ("", "error"),
])
def test_parse_verdict(raw, verdict):
    assert parse_verdict(raw)[0] == verdict


async def test_mock_probe_is_a_placeholder_and_never_a_verdict(db, library, loopback_server):
    result = await run_probe(db, build_gateway(db, library.db), "quarry-loan", ModelSettings(model="mock"))
    assert result.placeholder and result.answer.startswith("[placeholder: mock model]")
    assert result.verdict == "error"  # the mock classifier's placeholder does not parse: never a guess
    assert "choose a real probe model" in result.advice
    assert probes_for_case(db, "quarry-loan") == [] and summary(db, "quarry-loan")["probe"] == "not probed"
    assert loopback_server.count == 0


async def test_file_edited_since_import_is_not_overwritten(db, library, loopback_server, remote):
    path = library.cases / "quarry-loan.md"
    path.write_text(path.read_text().replace("A regional lender", "A rural lender"))
    loopback_server.responder = scripted_model({"quarry-loan": "not_recognized"})
    result = await run_probe(db, build_gateway(db, library.db), "quarry-loan", remote)
    assert result.verdict == "not_recognized" and "scenario changed" in result.file_note
    assert "A rural lender" in path.read_text() and "[[probes]]" not in path.read_text()


async def test_unknown_case_and_failed_probe_raise(db, library, loopback_server, remote):
    gateway = build_gateway(db, library.db)
    with pytest.raises(ProbeError, match="no case 'nope'"):
        await run_probe(db, gateway, "nope", remote)
    from tests.support.loopback import Reply

    loopback_server.queue(Reply.unauthorized())
    with pytest.raises(ProbeError, match="invalid api key"):
        await run_probe(db, gateway, "quarry-loan", remote)
    assert probes_for_case(db, "quarry-loan") == []
