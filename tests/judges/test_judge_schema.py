"""A judge's reply schema (issue 19 item 4): sent with every direct judge call to a server that decodes by
schema, none when the judge's `structured = "none"`; its quote can only be a passage of the response."""

from __future__ import annotations

from tests.blinding.study_fixture import make_study
from tests.judges.scripted import naive_judge
from workbench.judges.parse import quote_found
from workbench.judges.run import judge_study
from workbench.judges.schema import verdict_schema
from workbench.structured.passages import passages
from workbench.rubrics import load_rubric

CLEAN = ("RECOMMENDATION: Expand in stages with demand gates.\nREASONING: A demand-side contraction would "
         "strand the berths.\nRISKS:\n- Contraction of shipping demand.\nCONFIDENCE: medium.")


def judge(name: str, url: str, **kw) -> dict:
    return {"name": name, "model": f"openai/{name}", "api_base": url, "temperature": 0.0,
            "pipeline": "direct", "runs": 1, **kw}


def test_the_quote_can_only_be_the_responses_own_text():
    found = passages(CLEAN)
    assert "REASONING: A demand-side contraction would strand the berths." in found
    assert all(quote_found(p, CLEAN) for p in found)            # every choice passes the parser's check
    from pathlib import Path

    rubric = load_rubric(Path(__file__).resolve().parents[2] / "rubrics" / "anticipation.toml")
    schema = verdict_schema(rubric, CLEAN)["schema"]
    for c in rubric.criteria:
        props = schema["properties"][c.id]["properties"]
        assert props["quote"]["enum"] == found
        assert props["score"]["enum"] == list(range(int(c.min), int(c.max) + 1))
        assert props["justification"]["maxLength"] <= 600


async def test_every_direct_judge_call_sends_the_schema_unless_told_not_to(store, loopback_server):
    db, gateway = store
    loopback_server.responder = naive_judge
    sid = make_study(db, conditions=["B1", "B2"], texts={"B1": CLEAN, "B2": CLEAN}, pilot_items=False,
                     judges=[judge("j1", loopback_server.url), judge("j2", loopback_server.url, structured="none")])
    await judge_study(db, gateway, sid)
    by_judge = {}
    for body in loopback_server.requests:
        by_judge.setdefault(body["model"], []).append(body.get("response_format"))
    assert by_judge["j1"] and all(f and f["type"] == "json_object" and f["schema"]["required"]
                                  for f in by_judge["j1"])
    assert by_judge["j2"] and all(f is None for f in by_judge["j2"])


async def test_judge_replies_are_counted_parsed_or_repaired(store, loopback_server):
    """Each judge reply is recorded as it was read: the bare object parsed, a fenced one repaired (issue 19)."""
    from workbench.structured.counts import parse_counts

    db, gateway = store
    loopback_server.responder = lambda body: (naive_judge(body) if body["model"] == "j1"
                                              else "```json\n" + naive_judge(body) + "\n```")
    sid = make_study(db, conditions=["B1", "B2"], texts={"B1": CLEAN, "B2": CLEAN}, pilot_items=False,
                     judges=[judge("j1", loopback_server.url), judge("j2", loopback_server.url)])
    await judge_study(db, gateway, sid)
    per_judge = 2 * 2   # two items, two rubrics: a reply each (the two items' texts are equal, so the gateway
    #                     serves the second item's identical request from the log: the server sees half of them)
    assert len(loopback_server.requests) == per_judge
    [counts] = parse_counts(db, sid)
    assert counts == {"step": "judge", "parsed": per_judge, "repaired": per_judge, "refused": 0, "cut": 0,
                      "unparsed": 0, "replies": 2 * per_judge, "unparsed_share": 0.0}
