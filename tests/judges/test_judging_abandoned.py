"""An abandoned generation is seen while judging (issue 40): after a judging was cancelled while its judge's whole
reply was being generated, judging again on a server still busy with it says, once the call is past its
first-token timeout, that the server may still be busy with the abandoned request and how long it has waited:
a progress line, the same in batch and on the Studies screen (the gateway's notice, workbench/gateway/abandoned.py)."""

from __future__ import annotations

import asyncio
import re

from store import open_store
from store.settings import set_setting
from tests.blinding.study_fixture import make_study
from tests.judges.scripted import naive_judge
from tests.support.loopback import Reply
from workbench.cases.library import BOOTSTRAP_KEY
from workbench.gateway import build_gateway
from workbench.judges.run import judge_study


async def test_judging_after_a_cancel_names_the_abandoned_request_and_the_wait(tmp_path, loopback_server):
    path = tmp_path / "judging.db"
    db = open_store(path)
    set_setting(db, BOOTSTRAP_KEY, True)
    sid = make_study(db, conditions=["B1"], pilot_items=False, judges=[
        {"name": "j1", "model": "openai/j1", "api_base": loopback_server.url, "temperature": 0.0,
         "pipeline": "direct", "runs": 1, "timeout": 10.0, "first_token_timeout": 0.3}])
    loopback_server.responder = lambda body: Reply.hung(2.0)  # a whole reply the server is slow to generate
    first = asyncio.ensure_future(judge_study(db, build_gateway(db, path), sid, concurrency=1))
    while loopback_server.count == 0:
        await asyncio.sleep(0.01)
    first.cancel()  # Ctrl-C: the call is recorded cancelled, the server goes on generating its reply
    await asyncio.gather(first, return_exceptions=True)
    # the resume waits behind the abandoned generation, then gets its verdicts
    loopback_server.responder = lambda body: Reply.text(naive_judge(body), latency=0.6)
    said: list[str] = []
    report = await judge_study(db, build_gateway(db, path), sid, concurrency=1, progress=said.append)
    assert report.ok and report.judges[0].ok == 2
    notices = [s for s in said if s.startswith("notice: j1: ")]
    assert notices, said
    waited = re.search(rf"no first token from {re.escape(loopback_server.url)}\S* after (\d+)s: the server may still "
                       r"be busy with a request abandoned at \S+ \S+ UTC \(cancelled while its whole reply was "
                       r"being generated\)", notices[0])
    assert waited, notices[0]


def test_a_runs_live_transcript_shows_the_notice_too():
    """`run` prints the gateway's notice in batch (workbench/cli/run_display.py); the Runs screen's transcript
    model shows it as a note of the run it holds up."""
    from workbench.events import CALL_NOTICE, Event
    from workbench.runs.view import describe

    message = "no first token from http://127.0.0.1:8011/v1 after 31s: the server may still be busy with a request"
    note = describe(Event(CALL_NOTICE, run_id="s/c/B1/0", turn="answer", agent="B1", payload={"message": message}))
    assert (note.title, note.body) == ("waiting: B1", message)
