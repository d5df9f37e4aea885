"""The gateway's group commit (issue 40): the journal entries and call records of calls in flight together are
written in one transaction, not a commit each; nothing is less safe for it (a call cancelled before sending
leaves no entry; a batch that fails is written a row at a time, each caller its own outcome)."""

from __future__ import annotations

import asyncio
import sqlite3

import pytest

from store import calls as call_rows
from tests.gateway.test_gateway_width import HoldUntil, ask
from tests.support.loopback import Reply
from workbench.gateway import GatewayError
from workbench.gateway.calllog import verify_log
from workbench.gateway.transport import litellm_module


async def test_calls_in_flight_together_share_their_commits_and_every_record_is_whole(db, make_gateway, remote,
                                                                                      loopback_server):
    litellm_module()  # imported before the clock of the calls' 5 s timeout starts
    loopback_server.responder = HoldUntil(8)  # the 8 go out together and are answered together
    gateway = make_gateway(max_connections=8)
    commits = []
    db.conn.set_trace_callback(lambda sql: commits.append(sql) if sql == "COMMIT" else None)
    results = await asyncio.gather(*(gateway.call(ask(remote, f"q{i}")) for i in range(8)))
    db.conn.set_trace_callback(None)
    assert loopback_server.count == 8
    assert len(commits) <= 8 + 1  # a commit each for the entry and the record was 16: the entries share one
    rows = call_rows.calls_for(db, study_id=None)
    assert sorted(r["id"] for r in rows) == sorted(r.call_id for r in results)
    assert all(r["status"] == "ok" and r["response"] == "ok" for r in rows)
    assert call_rows.journal_unanswered(db, None) == []  # every entry answered by its record
    assert verify_log(gateway.log_path(None)).ok
    assert sorted(r["log_line"] for r in rows) == list(range(1, 9))


async def test_a_call_cancelled_before_it_is_sent_leaves_no_journal_entry(db, make_gateway, remote,
                                                                           loopback_server):
    litellm_module()  # imported already: the call goes straight to its journal entry
    loopback_server.responder = lambda body: Reply.text("ok")
    gateway = make_gateway()
    task = asyncio.create_task(gateway.call(ask(remote, "never sent")))
    commits = gateway._loop_state()["commits"]
    while not commits.entries:  # its entry waits for the end of this turn of the loop
        await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await asyncio.sleep(0.05)  # the entry is written, then withdrawn
    assert loopback_server.count == 0
    assert call_rows.journal_unanswered(db, None) == []


async def test_a_batch_that_fails_is_written_a_row_at_a_time_each_caller_its_own_outcome(
        db, make_gateway, remote, loopback_server, monkeypatch):
    loopback_server.responder = HoldUntil(4)
    gateway = make_gateway(max_connections=4)
    real_add = call_rows.add_call

    def add_call(db, row, *, answers=None):
        if any(m["content"] == "bad" for m in row["request"]):
            raise sqlite3.OperationalError("this row cannot be written")
        return real_add(db, row, answers=answers)

    monkeypatch.setattr(call_rows, "add_call", add_call)
    outcomes = await asyncio.gather(*(gateway.call(ask(remote, text)) for text in ("a", "b", "bad", "c")),
                                    return_exceptions=True)
    assert isinstance(outcomes[2], sqlite3.OperationalError)
    assert not any(isinstance(o, (BaseException, GatewayError)) for i, o in enumerate(outcomes) if i != 2)
    rows = call_rows.calls_for(db, study_id=None)
    assert sorted(r["id"] for r in rows) == sorted(o.call_id for i, o in enumerate(outcomes) if i != 2)
    # the failed record's request stays journaled: sent, never recorded, so a later run counts it lost
    lost = call_rows.journal_unanswered(db, None)
    assert len(lost) == 1 and lost[0]["call_key"] not in {o.call_key for i, o in enumerate(outcomes) if i != 2}
