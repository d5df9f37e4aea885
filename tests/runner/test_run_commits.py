"""What a run writes, and in how many commits: the turn a run is declared to end with is written with the run's
end (one commit less for a run of one call); the call records and the run ends of runs that finish together share
a commit (the gateway's group commit and `RunEnds`), so a run's own commits are its start and its turns before the
last; and a run that makes more calls than it declared still writes every turn and all of its usage."""

from __future__ import annotations

import asyncio
import hashlib

import pytest

from store import open_store
from store.events import events_for_run
from store.items import add_items
from store.runs import list_runs
from workbench.gateway import build_gateway
from workbench.protocol import registry
from workbench.protocol.base import ItemLoad, MetricsDocument, RunPlan, StudyProtocol
from workbench.runs.context import RunOutput, user
from workbench.runs.runner import run_study
from workbench.studies import create_study

NAME = "turns-toy"


class TurnsProtocol(StudyProtocol):
    """Each run declares `declared` calls and makes `made`, one after another, on `mock`."""

    name = NAME
    title = "Turns: a declared number of calls, and the calls made"
    section = "turns"

    def conditions(self):
        return ["ask"]

    def check_section(self, data, definition, bad):
        table = data.get("turns", {})
        return {"runs": int(table.get("runs", 1)), "declared": int(table.get("declared", 1)),
                "made": int(table.get("made", 1))}

    def load_items(self, db, study_id, definition, base_dir=None):
        items = [{"id": f"q{i}", "payload": {"question": f"question {i}"},
                  "content_hash": hashlib.sha256(str(i).encode()).hexdigest(), "source": "test"}
                 for i in range(definition["turns"]["runs"])]
        return ItemLoad(added=add_items(db, study_id, items, kind="question"))

    def frozen_artefacts(self, db, study_id, definition):
        return [("item", "all", str(definition["turns"]["runs"]))]

    def planned_runs(self, db, study_id, definition):
        return [RunPlan(f"q{i}", "ask", 0) for i in range(definition["turns"]["runs"])]

    def expected_calls(self, definition, plan):
        return definition["turns"]["declared"]

    async def program(self, ctx):
        texts = [await ctx.turn(f"ask-{k}", "asker", [user(f"{ctx.item['question']}, part {k}")], phase="ask",
                                label="Ask") for k in range(ctx.definition["turns"]["made"])]
        ctx.emit("answered", parts=len(texts))
        return RunOutput(text=texts[-1], report={"parts": len(texts)})

    def metrics(self, db, study_id, options=None):
        return MetricsDocument({}, text="")


@pytest.fixture
def turns_protocol():
    registry.register(TurnsProtocol())
    yield
    registry.unregister(NAME)


def run_counting_commits(tmp_path, runs: int, declared: int, made: int):
    """Run the study on a fresh store; returns the store, its runs and the commits the run made."""
    db_path = tmp_path / f"store-{runs}.db"
    db = open_store(db_path)
    study = create_study(db, text=f'name = "turns"\nprotocol = "{NAME}"\n\n[model]\nname = "mock"\n\n'
                                  f"[turns]\nruns = {runs}\ndeclared = {declared}\nmade = {made}\n",
                         name="turns.toml")["study_id"]
    gateway = build_gateway(db, db_path)
    commits = []
    db.conn.set_trace_callback(lambda sql: commits.append(sql) if sql == "COMMIT" else None)
    summary = asyncio.run(run_study(db, gateway, study))
    db.conn.set_trace_callback(None)
    assert summary.complete and summary.calls == runs * made
    return db, list_runs(db, study), len(commits)


def kinds(db, run_id):
    return [(e["kind"], e["turn"]) for e in events_for_run(db, run_id)]


def commits_per_run(tmp_path, declared: int, made: int):
    """The commits each run adds (those of the study's start and end are the same for 1 run as for 8; the shared
    ones fall a little differently from one run to the next), and the store of 8 runs with its runs."""
    _, _, one = run_counting_commits(tmp_path, 1, declared, made)
    db, runs, eight = run_counting_commits(tmp_path, 8, declared, made)
    return (eight - one) / 7, db, runs


def test_a_one_call_run_writes_its_turn_with_its_end(tmp_path, turns_protocol):
    per_run, db, runs = commits_per_run(tmp_path, declared=1, made=1)
    # its start; its call record and its end (with its turn) share commits with the other runs' (3 a run before)
    assert 1 <= per_run < 1.5
    for run in runs:
        assert run["status"] == "done" and (run["input_tokens"], run["output_tokens"]) == (10, 20)
        assert kinds(db, run["id"]) == [("run_started", None), ("turn_started", "ask-0"),
                                        ("turn_finished", "ask-0"), ("answered", None), ("run_finished", None)]


def test_a_run_making_more_calls_than_declared_writes_every_turn_and_its_usage(tmp_path, turns_protocol):
    per_run, db, runs = commits_per_run(tmp_path, declared=2, made=3)
    # its start, the first turn, the third (with the second, the declared last); its three call records and its
    # end share commits with the other runs' (7 a run before)
    assert 3 <= per_run < 3.5
    for run in runs:
        assert run["status"] == "done" and (run["input_tokens"], run["output_tokens"]) == (30, 60)
        assert kinds(db, run["id"]) == [("run_started", None)] + [
            (kind, f"ask-{k}") for k in range(3) for kind in ("turn_started", "turn_finished")] + [
            ("answered", None), ("run_finished", None)]
