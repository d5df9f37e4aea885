"""The trend of like with like (issue 31, item 6): studies of this module and of this study's kind (real,
simulated, dry run) that ran, created no later than it, each dated and labelled; a study created later never
changes an old report."""

from __future__ import annotations

import pytest

from tests.protocols.m11 import m11kit
from tests.protocols.m11.m11kit import EXAMPLE_A
from workbench.protocols.m11 import PROTOCOL
from workbench.protocols.m11.metrics import study_metrics, trend
from workbench.protocols.m11.report import text

SCORES = {"real-1": 4, "real-2": 3, "sim-1": 5, "mock-1": 1, "never": 4, "other-module": 2, "real-later": 2}


def _study(db, tmp_path, name: str, model: str, created: str, *, module: str = "M11", ran: bool = True,
           trend_scope: str | None = None) -> str:
    from store.runs import finish_run, start_attempt
    from workbench.protocols.m11.scoring import band, overall

    d = m11kit.definition(name, items=m11kit.write_items(tmp_path / f"{name}.jsonl", [EXAMPLE_A]),
                          conditions=("likert",), model=model)
    d["m11"]["module"] = module
    if trend_scope:
        d["m11"]["trend"] = trend_scope
    sid = m11kit.save_study(db, d)
    PROTOCOL.load_items(db, sid, d)
    db["studies"].update(sid, {"created_at": created})   # the order the studies were created in
    if ran:
        scores = {c: SCORES[name] for c in ("accuracy", "relevance", "completeness", "clarity", "reasoning")}
        for row in m11kit.plan_runs(db, sid, d):
            start_attempt(db, row["id"])
            finish_run(db, row["id"], "done", output={"text": "t", "report": {
                "kind": "likert", "item_id": EXAMPLE_A["id"], "run_index": 0, "status": "ok", "scores": scores,
                "overall": overall(scores), "band": band(overall(scores)), "summary": "s", "retries": {}}})
    return sid


@pytest.fixture
def store(m11_store, tmp_path):
    db, _ = m11_store
    _study(db, tmp_path, "real-1", "openai/a", "2026-01-01T10:00:00+00:00")
    _study(db, tmp_path, "sim-1", "sim", "2026-01-02T10:00:00+00:00")
    _study(db, tmp_path, "mock-1", "mock", "2026-01-03T10:00:00+00:00")
    _study(db, tmp_path, "never", "openai/a", "2026-01-04T10:00:00+00:00", ran=False)
    _study(db, tmp_path, "other-module", "openai/a", "2026-01-05T10:00:00+00:00", module="M12")
    _study(db, tmp_path, "real-2", "openai/a", "2026-01-06T10:00:00+00:00")
    return db


def test_the_trend_lists_real_runs_of_this_module_up_to_this_study_dated_and_labelled(store, tmp_path):
    t = trend(store, "real-2")
    assert [(r["study"], r["kind"], r["created_at"][:10], r["this_study"], r["pass_rate"]) for r in t["rows"]] == [
        ("real-1", "real", "2026-01-01", False, 1.0), ("real-2", "real", "2026-01-06", True, 0.0)]
    assert all(r["last_run_at"] for r in t["rows"])
    assert t["left_out"] == {"simulated": 1, "dry run": 1, "never ran": 1}
    before = text(study_metrics(store, "real-2"))
    # a study created later changes nothing of this one's trend or report
    _study(store, tmp_path, "real-later", "openai/a", "2026-02-01T10:00:00+00:00")
    assert trend(store, "real-2")["rows"] == t["rows"]
    assert text(study_metrics(store, "real-2")) == before
    assert "real-later" not in before
    assert [r["study"] for r in trend(store, "real-later")["rows"]] == ["real-1", "real-2", "real-later"]
    assert trend(store, "real-1")["left_out"] == {} and len(trend(store, "real-1")["rows"]) == 1


def test_an_older_study_does_not_list_a_later_one_even_of_another_kind(store):
    t = trend(store, "sim-1")
    assert [(r["study"], r["kind"]) for r in t["rows"]] == [("sim-1", "simulated")]
    assert t["left_out"] == {"real": 1}


def test_every_kind_is_listed_and_labelled_when_asked(store, tmp_path):
    _study(store, tmp_path, "real-later", "openai/a", "2026-02-01T10:00:00+00:00", trend_scope="all")
    t = trend(store, "real-later")
    assert [(r["study"], r["kind"]) for r in t["rows"]] == [
        ("real-1", "real"), ("sim-1", "simulated"), ("mock-1", "dry run"), ("real-2", "real"), ("real-later", "real")]
    assert t["left_out"] == {"never ran": 1}


def test_the_report_and_the_dashboard_print_the_rows_with_their_date_and_kind(store):
    from screens.m11.render import likert

    doc = study_metrics(store, "real-2")
    body = text(doc)
    trend_part = body.split("Trend over")[1].split("##")[0]
    assert trend_part.startswith(" the real studies of module M11 that ran, created no later than this one; left "
                                 "out: 1 never ran, 1 simulated, 1 dry run.")
    assert ("| real-1 | real | 2026-01-01 10:00 |" in trend_part
            and "| real-2 (this study) | real | 2026-01-06 10:00 |" in trend_part)   # to the minute (issue 42)
    assert "sim-1" not in trend_part and "mock-1" not in trend_part and "| never" not in trend_part
    shown = likert(doc).plain
    assert "real-1" in shown and "sim-1" not in shown and "real" in shown


def test_a_bad_trend_value_is_refused():
    from workbench.protocols.m11.section import check_section

    problems = []
    check_section({"m11": {"items": "x.jsonl", "trend": "everything"}}, {}, lambda k, m: problems.append((k, m)))
    assert problems and problems[0][0] == "m11.trend"


def _finish(db, sid: str) -> None:
    """Run an existing study's planned runs now (it was created before, and never ran)."""
    from store.runs import finish_run, list_runs, start_attempt
    from workbench.protocols.m11.scoring import band, overall

    scores = {c: 4 for c in ("accuracy", "relevance", "completeness", "clarity", "reasoning")}
    for row in list_runs(db, sid):
        start_attempt(db, row["id"])
        finish_run(db, row["id"], "done", output={"text": "t", "report": {
            "kind": "likert", "item_id": EXAMPLE_A["id"], "run_index": 0, "status": "ok", "scores": scores,
            "overall": overall(scores), "band": band(overall(scores)), "summary": "s", "retries": {}}})


def test_a_report_written_again_reproduces_its_first_trend_unless_asked_to_update(store):
    """Issue 42 item 3: a study created before this one but run after its first report joined the trend on
    re-report (it had said "left out: 1 never ran")."""
    def trend_part(options=None) -> str:
        body = next(s.body for s in PROTOCOL.report_sections(store, "real-2", options)
                    if s.title.startswith("Likert profile"))
        return body.split("Trend over")[1]

    first = trend_part()
    assert "1 never ran" in first and "| never |" not in first and "As of 20" in first
    from store.studies import get_study

    m11kit.plan_runs(store, "never", get_study(store, "never")["definition"])
    _finish(store, "never")
    assert trend_part() == first                                   # written again: the same trend
    updated = trend_part({"update": True})
    assert "| never |" in updated and "never ran" not in updated
    assert trend_part() == updated                                 # the update is what it now keeps
