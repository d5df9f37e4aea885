"""`judge --retry-errors` makes fresh calls that reach the model (recorded as a retry), and the error
counts count (item, rubric) pairs, not the rows written."""

from __future__ import annotations

from store import verdicts as verdict_rows
from tests.blinding.study_fixture import make_study
from tests.judges.scripted import naive_judge
from tests.support.loopback import loopback_server  # noqa: F401  (the fixture)
from workbench.judges.calls import MAX_ATTEMPTS, RETRY_STRIDE
from workbench.judges.run import judge_study
from workbench.protocols.hindsight.metrics.agreement_report import judge_errors
from workbench.protocols.hindsight.metrics.study_data import load_study_data

NOT_JSON = "Sure! {score: 3, this is not json"


def _judge(url: str) -> dict:
    return {"name": "j1", "model": "openai/j1", "api_base": url, "temperature": 0.0, "pipeline": "direct",
            "runs": 1}


async def test_retry_errors_asks_the_model_again_and_counts_items(tmp_path, loopback_server):
    from store import open_store
    from workbench.gateway import build_gateway

    path = tmp_path / "judges.db"
    db = open_store(path)
    gateway = build_gateway(db, path)
    loopback_server.responder = lambda body: NOT_JSON
    sid = make_study(db, conditions=["B1", "C2"], pilot_items=False, judges=[_judge(loopback_server.url)])
    first = await judge_study(db, gateway, sid)
    assert first.judges[0].judge_errors == 4 and loopback_server.count == 4 * MAX_ATTEMPTS

    # still invalid: a retry must reach the model again, not replay the stored invalid replies
    second = await judge_study(db, gateway, sid, retry_errors=True)
    assert loopback_server.count == 2 * 4 * MAX_ATTEMPTS
    assert (second.judges[0].judged, second.judges[0].retried, second.judges[0].judge_errors) == (4, 4, 4)
    # a new seed, the same invalid reply: the model ignores seeds, and the summary says so
    assert second.judges[0].same_reply == 4 and first.judges[0].same_reply == 0
    from workbench.judges.summary import judging_text

    assert "ignores seeds" in judging_text(second.to_dict())
    # counts are (item, rubric) pairs and cells, whatever the number of rows written
    assert len(verdict_rows.verdict_rows(db, sid)) == 8
    [row] = judge_errors(load_study_data(db, sid))
    assert (row.error_pairs, row.error_items) == (4, 2)

    # the model recovers: the next retry round gets real verdicts
    loopback_server.responder = naive_judge
    third = await judge_study(db, gateway, sid, retry_errors=True)
    assert (third.judges[0].ok, third.judges[0].judge_errors, third.judges[0].retried) == (4, 0, 4)
    assert third.judges[0].same_reply == 0
    assert loopback_server.count == 2 * 4 * MAX_ATTEMPTS + 4
    assert all(r.error_pairs == 0 for r in judge_errors(load_study_data(db, sid)))
    rows = verdict_rows.verdict_rows(db, sid)
    assert sorted({r["detail"].get("retry", 0) for r in rows}) == [0, 1, 2]
    samples = sorted({c["sample"] for c in db["calls"].rows_where("study_id = ? AND role = 'judge'", [sid])})
    assert samples == [0, 1, 2, RETRY_STRIDE, RETRY_STRIDE + 1, RETRY_STRIDE + 2, 2 * RETRY_STRIDE]
    db.close()
