"""Width as asked for judging (issue 40): `workbench --batch judge --max-connections N`, and a judge's own
`max_connections` in the study, give N calls in flight at the judge's server (counted there), above the global
`concurrency` default (2 here)."""

from __future__ import annotations

from store import open_store
from store.settings import set_setting
from tests.blinding.study_fixture import make_study
from tests.judges.scripted import HeldUntil, naive_judge
from workbench.cases.library import BOOTSTRAP_KEY
from workbench.cli.main import main

CONDITIONS = ["B1", "B2", "B3", "C1"]   # 8 item-rubric pairs: 8 calls


def judged_study(tmp_path, url: str, **judge) -> tuple[str, str]:
    path = tmp_path / "width.db"
    db = open_store(path)
    set_setting(db, BOOTSTRAP_KEY, True)  # the fixture study brings its own rubrics and case
    sid = make_study(db, conditions=CONDITIONS, pilot_items=False, judges=[
        {"name": "j1", "model": "openai/j1", "api_base": url, "temperature": 0.0, "pipeline": "direct", "runs": 1,
         **judge}])
    db.close()
    assert main(["--batch", "--db", str(path), "settings", "set", "concurrency", "2"]) == 0
    return str(path), sid


def test_judge_max_connections_is_the_width_at_the_server(tmp_path, loopback_server):
    loopback_server.responder = held = HeldUntil(6, naive_judge)
    path, sid = judged_study(tmp_path, loopback_server.url)
    assert main(["--batch", "--db", path, "judge", sid, "--max-connections", "6"]) == 0
    assert loopback_server.count == 8 and held.most == 6


def test_a_judges_own_max_connections_is_the_width_at_the_server(tmp_path, loopback_server):
    loopback_server.responder = held = HeldUntil(5, naive_judge)
    path, sid = judged_study(tmp_path, loopback_server.url, max_connections=5)
    assert main(["--batch", "--db", path, "judge", sid]) == 0
    assert loopback_server.count == 8 and held.most == 5
