"""A stance reply with an unknown claim id (issue 25 item 6) is counted and said: in the run's notes, on the
stance event, in `metrics` (text, notes and --json) and the report, never read silently as no stance. The
parser still accepts what it accepted (the known ids are read; the unknown one is no claim's stance). The reply
is the real one's kind (tests/fixtures/real_replies/faultline-stance-unknown-claim-id.json)."""

from __future__ import annotations

import json

import pytest

from tests.protocols.faultline.faultline_kit import gateway, make_study, scripted
from tests.protocols.faultline.test_faultline_programs import DEBATE, build_graphs, ctx_for
from tests.support import real_replies
from workbench.events import ListSink, STANCE
from workbench.judges.parse import InvalidReply
from workbench.protocols.faultline import PROTOCOL, parsing
from workbench.structured.reading import REPAIRED, read

FIXTURE = real_replies.load("faultline-stance-unknown-claim-id")
IDS = ["new-build", "renewables-suffice", "chernobyl-year", "plants-emit-co2"]


def is_ethicist_closing_stance(body: dict) -> bool:
    first = body["messages"][0]["content"]
    return ("give the stance" in first and "Precautionary ethicist" in first
            and "closing" in first.split("Statement:")[1][:40])


def test_the_parser_reads_what_it_read_before_and_keeps_the_unknown_id():
    found = parsing.stances(json.loads(FIXTURE["content"]), IDS)
    assert dict(found) == {"new-build": -1, "renewables-suffice": None, "chernobyl-year": 2, "plants-emit-co2": -2}
    assert found.unknown == {"renewable-suffice": 2}
    assert read(lambda t: parsing.stances(json.loads(t), IDS), FIXTURE["content"]).outcome == REPAIRED
    # a reply naming only unknown ids is refused as before, and now says which ids it named
    with pytest.raises(InvalidReply, match="it named 'renewable-suffice', not on the table"):
        parsing.stances({"stances": {"renewable-suffice": 2}}, IDS)


async def test_an_unknown_claim_id_is_noted_in_the_run_the_event_and_the_metrics(tmp_path, fl_server, minilm):
    from store.runs import finish_run

    db, db_path, sid, d = make_study(tmp_path, api_base=fl_server.url, conditions=("plain",), rounds=1)
    fl_server.responder = lambda body: (real_replies.reply("faultline-stance-unknown-claim-id")
                                        if is_ethicist_closing_stance(body) else scripted(body))
    await build_graphs(db, db_path, sid, d)
    sink = ListSink()
    ctx = ctx_for(db, gateway(db, db_path), sid, d, DEBATE, "plain", sink=sink)
    out = await PROTOCOL.program(ctx)
    r = out.report
    closing = r["stances"]["closing"]["precautionary-ethicist"]
    assert closing["renewables-suffice"] is None and closing["new-build"] == -1        # read as before
    assert r["errors"] == []                                                            # not an extraction error
    [note] = r["notes"]
    assert (note["turn"], note["claims"], note["given"]) == (
        "stance:precautionary-ethicist:closing", ["renewable-suffice"], {"renewable-suffice": 2})
    assert "claim id(s) not on the table ('renewable-suffice'" in note["note"]
    events = [e for e in sink.events if e.kind == STANCE and e.payload.get("unknown_claims")]
    assert [(e.agent, e.payload["unknown_claims"]) for e in events] == [("precautionary-ethicist",
                                                                          ["renewable-suffice"])]
    finish_run(db, ctx.run_id, "done", output={"text": out.text, "report": out.report})

    m = PROTOCOL.metrics(db, sid)
    e = m.document["errors"]
    assert (e["unknown_claim_stances"], e["runs_with_unknown_claims"]) == (1, 1)
    assert e["unknown_claim_notes"] == [f"{ctx.run_id}: {note['note']}"]
    [debate] = m.document["debates"]
    assert debate["metrics"]["unknown_claim_stances"] == 1
    line = ("1 stance reply in 1 run(s) named claim ids not on the table: those entries were read as no claim's "
            "stance")
    assert any(n.startswith(line) for n in m.notes)
    assert line in m.text and note["note"] in m.text
    body = "\n".join(s.body for s in PROTOCOL.report_sections(db, sid))
    assert line in body


async def test_a_study_without_unknown_ids_says_nothing_of_them(tmp_path, fl_server, minilm):
    from store.runs import finish_run

    db, db_path, sid, d = make_study(tmp_path, api_base=fl_server.url, conditions=("plain",), rounds=1)
    await build_graphs(db, db_path, sid, d)
    ctx = ctx_for(db, gateway(db, db_path), sid, d, DEBATE, "plain")
    out = await PROTOCOL.program(ctx)
    assert out.report["notes"] == []
    finish_run(db, ctx.run_id, "done", output={"text": out.text, "report": out.report})
    m = PROTOCOL.metrics(db, sid)
    assert m.document["errors"]["unknown_claim_stances"] == 0 and not m.notes
    assert "not on the table" not in m.text
