"""A faultline study through the shared path: study file → create → belief graphs → freeze → run_study
→ metrics and report, in batch mode too; a study killed mid-round resumes without repeating a call,
and a replay makes no request."""

from __future__ import annotations

import json

import pytest

from tests.protocols.faultline.faultline_kit import PAIR, TOPIC, gateway
from workbench.events import ListSink

STUDY = """\
name = "{name}"
protocol = "faultline"
conditions = {conditions}
replicates = {replicates}

[model]
name = "openai/scripted"
api_base = "{api_base}"
temperature = 0.7
seed = 7
max_tokens = 256
timeout = 10

[faultline]
topics = ["{topic}"]
pairs = ["{pair}"]
rounds = 1
"""


def write_study(tmp_path, server, name="fl-e2e", conditions=("graph-20", "single", "self-consistency"),
                replicates=1):
    path = tmp_path / f"{name}.toml"
    path.write_text(STUDY.format(name=name, api_base=server.url, conditions=json.dumps(list(conditions)),
                                 replicates=replicates, topic=TOPIC, pair=PAIR), encoding="utf-8")
    return path


def cli(db_path, *args) -> int:
    from workbench.cli.main import main

    return main(["--batch", "--db", str(db_path), *args])


def test_batch_create_graphs_run_metrics_report(tmp_path, fl_server, capsys):
    db_path = tmp_path / "store.db"
    path = write_study(tmp_path, fl_server)
    assert cli(db_path, "study", "create", str(path)) == 0
    assert cli(db_path, "run", "fl-e2e") == 0          # builds the belief graphs first, then freezes and runs
    assert cli(db_path, "faultline", "graph", "fl-e2e", "tech-optimist") == 0
    assert "tech-optimist:20: 20 nodes" in capsys.readouterr().out
    made = fl_server.count
    assert cli(db_path, "--json", "faultline", "graphs", "fl-e2e") == 0  # nothing left to build
    assert json.loads(capsys.readouterr().out)["built"] == 0 and fl_server.count == made
    capsys.readouterr()
    assert cli(db_path, "metrics", "fl-e2e", "--json") == 0
    doc = json.loads(capsys.readouterr().out)
    doc = doc.get("document", doc)
    assert doc["conditions"]["graph-20"]["ACC"]["value"] == 1.0
    assert doc["conditions"]["self-consistency"]["ACC"]["value"] == 0.5
    assert cli(db_path, "metrics", "fl-e2e", "--csv") == 0
    csv_text = capsys.readouterr().out
    assert csv_text.startswith("study,run_id,item,topic,pair,divergence,condition,replicate,metric,scope,value")
    out = tmp_path / "report.md"
    assert cli(db_path, "report", "fl-e2e", "--out", str(out)) == 0
    report = out.read_text()
    first = report.index("Debate beats self-consistency on equal votes (ACC)")
    assert report.index("Seed 002's comparison (five-vote majority; not the verdict)") > first
    assert first < report.index("Faultline metrics by condition")
    assert cli(db_path, "faultline", "debates", "fl-e2e", "--out", str(tmp_path / "debates")) == 0
    docs = list((tmp_path / "debates").glob("*.json"))
    assert len(docs) == 3 and fl_server.count == made    # metrics, report and documents make no call


async def test_killed_mid_round_resumes_without_repeating_and_replays_with_zero_requests(tmp_path, fl_server):
    from store import open_store
    from store.runs import list_runs, start_attempt
    from workbench.protocols.faultline.graphs import build_study_graphs
    from workbench.runs.control import RunControl
    from workbench.runs.runner import prepare_study, run_study
    from workbench.studies import create_study, load_study

    db_path = tmp_path / "store.db"
    db = open_store(db_path)
    create_study(db, write_study(tmp_path, fl_server, conditions=("qbaf-20",)))
    await build_study_graphs(db, gateway(db, db_path), "fl-e2e", load_study(db, "fl-e2e")["definition"])
    prepare_study(db, "fl-e2e")
    graph_calls = fl_server.count
    control = RunControl()

    class KillAfterA1(ListSink):
        def emit(self, event):
            super().emit(event)
            if event.kind == "turn_finished" and event.turn == "A-r1":
                control.cancel("killed")

    first = await run_study(db, gateway(db, db_path), "fl-e2e", sink=KillAfterA1(), control=control)
    assert first.runs.get("cancelled") == 1 and fl_server.count - graph_calls == 3   # two openings, A-r1
    second = await run_study(db, gateway(db, db_path), "fl-e2e")
    assert second.runs.get("done") == 1
    assert second.replayed == 3
    bodies = [json.dumps(b["messages"], sort_keys=True) for b in fl_server.requests]
    assert len(bodies) == len(set(bodies))                                        # no call made twice
    from store.outputs import get_output

    run_id = list_runs(db, "fl-e2e")[0]["id"]
    before = get_output(db, run_id)["report"]
    count = fl_server.count
    start_attempt(db, run_id)                        # as if killed again: the output is dropped
    replay = await run_study(db, gateway(db, db_path, replay_only=True), "fl-e2e")
    assert fl_server.count == count and replay.replayed == replay.calls > 0
    assert get_output(db, run_id)["report"] == before
    db.close()


@pytest.mark.parametrize("bad, message", [
    ('rounds = 0', "faultline.rounds: must be a whole number from 1 to 10 (got 0)"),
    ('pairs = ["nobody"]', "faultline.pairs: 'nobody' is not in the library"),
])
def test_a_bad_study_file_names_file_line_and_key(tmp_path, fl_server, bad, message):
    from store import open_store
    from workbench.studies import StudyError, create_study

    path = write_study(tmp_path, fl_server)
    text = path.read_text()
    key = bad.split(" =")[0]
    text = "\n".join(bad if line.startswith(f"{key} =") else line for line in text.splitlines()) + "\n"
    path.write_text(text)
    line = next(i for i, l in enumerate(text.splitlines(), 1) if l.startswith(f"{key} ="))
    db = open_store(tmp_path / "store.db")
    with pytest.raises(StudyError) as exc:
        create_study(db, path)
    assert any(str(p).endswith(f":{line}: {message}") or f":{line}: {message}" in str(p)
               for p in exc.value.problems), [str(p) for p in exc.value.problems]
    assert db["studies"].count == 0
    db.close()
