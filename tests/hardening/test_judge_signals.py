"""SIGHUP, SIGTERM and SIGINT end `judge` as they end `run` (issue 14): the in-flight judge calls are
recorded as cancelled, what was judged stays, one line on stderr, the signal's exit code, and running the
command again judges only what is left."""

from __future__ import annotations

import shutil
import signal
from pathlib import Path

import pytest

from store import open_store
from store import verdicts as verdict_rows
from tests.blinding.study_fixture import ANTICIPATION, HUMILITY, make_study
from tests.hardening.conftest import signalled
from tests.judges.scripted import naive_judge
from tests.support.loopback import DUMMY_KEY, LoopbackServer
from workbench.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
PAIRS = 4  # two conditions' items x two rubrics


def judged_pairs(db) -> set[tuple[str, str]]:
    return {(r["item_id"], r["rubric_hash"]) for r in verdict_rows.verdict_rows(db, "harbor-study")}


@pytest.mark.parametrize("sig", [signal.SIGHUP, signal.SIGTERM, signal.SIGINT])
def test_a_signal_ends_judge_cleanly_and_a_rerun_judges_the_rest(sig, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", DUMMY_KEY)
    rubrics = tmp_path / "rubrics"  # the library holds the texts the study froze, as a real library would
    shutil.copytree(ROOT / "rubrics", rubrics)
    (rubrics / "anticipation.toml").write_text(ANTICIPATION)
    (rubrics / "epistemic-humility.toml").write_text(HUMILITY)
    monkeypatch.setenv("WORKBENCH_RUBRICS_DIR", str(rubrics))
    path = tmp_path / "store.db"
    with LoopbackServer(naive_judge, latency=0.5) as server:
        db = open_store(path)
        make_study(db, conditions=["B1", "C2"], pilot_items=False,
                   judges=[{"name": "j1", "model": "openai/j1", "api_base": server.url, "temperature": 0.0,
                            "pipeline": "direct", "runs": 1}])
        db.close()
        # the first pair is judged, the second call is in flight: signal now
        lines, err = signalled(server, path, ["judge", "harbor-study", "--concurrency", "1"], sig, after=2,
                               what="judge")
        assert len(lines) == 1, err
        assert signal.Signals(sig).name in lines[0] and "judge harbor-study" in lines[0], err

        db = open_store(path)
        cancelled = list(db["calls"].rows_where(
            "role = 'judge' AND status = 'cancelled' AND error = 'cancelled by the caller'"))
        before = judged_pairs(db)
        db.close()
        assert cancelled, "the in-flight judge call was not recorded"
        assert 1 <= len(before) < PAIRS, before

        made = server.count
        assert main(["--batch", "--db", str(path), "judge", "harbor-study"]) == 0
        db = open_store(path)
        after = judged_pairs(db)
        db.close()
        assert len(after) == PAIRS and before <= after
        # only what was left is judged again: one call per pair not judged before
        assert server.count - made == PAIRS - len(before)


def test_a_signal_ends_the_concern_assessment_the_same_way(tmp_path, monkeypatch):
    """`metrics --assess-concerns` makes model calls too: SIGHUP ends it like judge, the assessed runs kept."""
    import json

    from tests.metrics_integration.conftest import make_store

    monkeypatch.setenv("OPENAI_API_KEY", DUMMY_KEY)

    def responder(body):
        head = body["messages"][-1]["content"].split("<analysis>")[0]
        concerns = [line[2:] for line in head.splitlines() if line.startswith("- ")]
        return json.dumps({"concerns": [{"concern": c, "score": 1, "evidence": ""} for c in concerns]})

    db, path, _ = make_store(tmp_path)
    db.close()
    with LoopbackServer(responder, latency=0.5) as server:
        lines, err = signalled(server, path, ["metrics", "seeded-study", "--assess-concerns", "--model",
                                              "openai/concerns", "--api-base", server.url], signal.SIGHUP, after=1,
                               what="the assessment")
    assert len(lines) == 1 and "SIGHUP" in lines[0] and "--assess-concerns" in lines[0], err
    db = open_store(path)
    cancelled = db.execute("SELECT count(*) FROM calls WHERE role = 'concern' AND error = 'cancelled by the caller'"
                           ).fetchone()[0]
    db.close()
    assert cancelled >= 1
