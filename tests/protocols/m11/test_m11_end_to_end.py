"""An M11 study through the shared path: study file -> create (items loaded) -> prepare -> run_study ->
metrics and report; a run that fails mid-pipeline resumes without repeating a completed call; a replay
makes no request."""

from __future__ import annotations

from tests.protocols.m11 import m11kit
from tests.protocols.m11.m11kit import EXAMPLE_A, EXAMPLE_B
from tests.support.loopback import Reply
from workbench.events import ListSink

STUDY = """\
name = "{name}"
protocol = "m11"
conditions = ["likert", "binary"]
raters = ["rater-a", "rater-b"]

[model]
name = "openai/loopback-m11"
api_base = "{api_base}"
temperature = 0.7
seed = 7
max_tokens = 256
timeout = 10

[m11]
items = "items.jsonl"
runs = {runs}
"""


def _create(db, tmp_path, server, name="m11-e2e", runs=1, records=(EXAMPLE_A, EXAMPLE_B)):
    from workbench.studies import create_study

    m11kit.write_items(tmp_path / "items.jsonl", list(records) + [{"id": "broken", "title": "x"}])
    path = tmp_path / f"{name}.toml"
    path.write_text(STUDY.format(name=name, api_base=server.url, runs=runs), encoding="utf-8")
    return create_study(db, path)


async def test_a_study_runs_through_the_shared_runner_to_metrics_and_report(m11_store, m11_server, tmp_path):
    from workbench.protocols.m11 import PROTOCOL
    from workbench.runs.runner import prepare_study, run_study

    db, db_path = m11_store
    created = _create(db, tmp_path, m11_server)
    assert created["items"]["added"] == 2 and created["items"]["excluded"] == 1
    assert created["items"]["problems"][0].startswith("items.jsonl:3: ")
    runs = prepare_study(db, "m11-e2e")
    assert sorted((r["case_id"], r["condition"]) for r in runs) == [
        ("seed-a-earbuds", "binary"), ("seed-a-earbuds", "likert"),
        ("seed-b-water-bottle", "binary"), ("seed-b-water-bottle", "likert")]
    sink = ListSink()
    summary = await run_study(db, m11kit.gateway(db, db_path), "m11-e2e", sink=sink)
    assert summary.runs["done"] == 4 and summary.calls == 10 and m11_server.count == 10
    assert "m11_stage" in sink.kinds()
    doc = PROTOCOL.metrics(db, "m11-e2e").document
    overall = {s["id"]: (s["overall"], s["band"]) for s in doc["samples"]}
    assert overall == {"seed-a-earbuds": (4.4, "PASS"), "seed-b-water-bottle": (2.0, "FAIL")}
    assert doc["binary"]["agreement"]["value"] == 1.0
    assert doc["input_filter"]["excluded"] == 1
    sections = {s.title: s.body for s in PROTOCOL.report_sections(db, "m11-e2e")}
    assert "| seed-a-earbuds | 4.4 | PASS |" in sections["Samples"]
    assert "| PASS | 3.5–4.4 | 1 | 50.0% | 25-35% |" in sections["Bands and binary comparison"]


async def test_a_run_failed_mid_pipeline_resumes_without_repeating_a_completed_call(m11_store, m11_server, tmp_path):
    from workbench.runs.runner import prepare_study, run_study

    db, db_path = m11_store
    _create(db, tmp_path, m11_server, records=(EXAMPLE_B,))
    prepare_study(db, "m11-e2e")

    def broken_judge(body):  # the provider fails at the Judge: the run stops after Critic and Defender
        return Reply.server_error() if m11kit.stage_of(body) == "judge" else m11kit.scripted(body)

    m11_server.responder = broken_judge
    first = await run_study(db, m11kit.gateway(db, db_path), "m11-e2e")
    assert first.runs["failed"] == 1 and first.runs["done"] == 1
    before = len(m11_server.requests)
    m11_server.responder = m11kit.scripted
    second = await run_study(db, m11kit.gateway(db, db_path), "m11-e2e", retry_failed=True)
    assert second.runs["done"] == 2
    stages = [m11kit.stage_of(b) for b in m11_server.requests[before:]]
    assert stages == ["judge", "metajudge"]  # critic and defender came from the call log
    assert second.replayed == 2


async def test_interrupted_runs_replayed_offline_make_no_request_and_give_the_same_scores(m11_store, m11_server,
                                                                                         tmp_path):
    from store.runs import list_runs, start_attempt
    from workbench.protocols.m11.results import sample_results
    from workbench.runs.runner import prepare_study, run_study

    db, db_path = m11_store
    _create(db, tmp_path, m11_server)
    prepare_study(db, "m11-e2e")
    await run_study(db, m11kit.gateway(db, db_path), "m11-e2e")
    first = {r["id"]: (r["overall"], r["binary"]) for r in sample_results(db, "m11-e2e")}
    count = m11_server.count
    for run in list_runs(db, "m11-e2e"):  # as if killed mid-run: every run left "running", outputs dropped
        start_attempt(db, run["id"])
    assert all(r["overall"] is None for r in sample_results(db, "m11-e2e"))
    summary = await run_study(db, m11kit.gateway(db, db_path, replay_only=True), "m11-e2e")
    assert m11_server.count == count and summary.replayed == summary.calls == 10
    assert {r["id"]: (r["overall"], r["binary"]) for r in sample_results(db, "m11-e2e")} == first
