"""Width as asked for a run (issue 40): `workbench --batch run --max-connections N`, and the judges' own
`max_connections` in the study file, give N calls in flight at their server (counted there), above the global
`concurrency` default (2 here)."""

from __future__ import annotations

import json

from tests.judges.scripted import HeldUntil
from tests.protocols.calibration import calkit
from workbench.cli.main import main

JUDGES = ("claude", "gpt4o-mini", "llama")   # sample_size 2: six runs, a call each
SCORE = json.dumps({"score": 0.5, "reason": "scripted"})


def created(tmp_path, url: str, **judge) -> str:
    db = str(tmp_path / "store.db")
    judges = [{"name": j, "model": f"openai/{j}", "api_base": url, **judge} for j in JUDGES]
    path = calkit.study_file(tmp_path, "cal-width", judges, sample_size=2)
    assert main(["--batch", "--db", db, "settings", "set", "concurrency", "2"]) == 0
    assert main(["--batch", "--db", db, "study", "create", str(path)]) == 0
    return db


def test_run_max_connections_is_the_width_at_the_server(tmp_path, loopback_server):
    loopback_server.responder = held = HeldUntil(6, lambda body: SCORE)
    db = created(tmp_path, loopback_server.url)
    assert main(["--batch", "--db", db, "run", "cal-width", "--max-connections", "6"]) == 0
    assert loopback_server.count == 6 and held.most == 6


def test_the_study_files_max_connections_is_the_width_at_the_server(tmp_path, loopback_server):
    loopback_server.responder = held = HeldUntil(4, lambda body: SCORE)
    db = created(tmp_path, loopback_server.url, max_connections=4)   # the three judges share one server
    assert main(["--batch", "--db", db, "run", "cal-width"]) == 0
    assert loopback_server.count == 6 and held.most == 4
