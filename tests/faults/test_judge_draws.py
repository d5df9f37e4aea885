"""Judges are independent draws (issue 34): a judge's name is part of its calls' key, so a panel of judges on
one model with one setting makes one call per judge, never one call served to the others by replay."""

from __future__ import annotations

import json

from store import open_store
from tests.protocols.calibration import calkit
from tests.support.loopback import DUMMY_KEY, LoopbackServer
from workbench.cli.main import main
from workbench.gateway import call_key
from workbench.gateway.api import CallRequest, ModelSettings


def test_the_judges_name_is_part_of_the_key_and_nothing_else_changes():
    settings = ModelSettings(model="openai/same", temperature=0.0)
    msgs = [{"role": "user", "content": "score this"}]

    def key(role: str, agent: str) -> str:
        return call_key(CallRequest(messages=msgs, settings=settings, role=role, agent=agent))

    assert key("judge", "claude") != key("judge", "llama")
    # an architecture's agents are not judges: the same prompt of one run's two turns stays one key
    assert key("architecture", "a") == key("architecture", "b")


def test_a_panel_of_three_judges_on_one_model_makes_three_times_the_calls(tmp_path, monkeypatch):
    """calibration-generated's panel, on a real HTTP path: three judges, one model, the same settings."""
    monkeypatch.setenv("OPENAI_API_KEY", DUMMY_KEY)
    db = tmp_path / "store.db"
    with LoopbackServer(lambda body: json.dumps({"score": 0.5, "reason": "same"})) as server:
        judges = [{"name": j, "model": "openai/one-model", "api_base": server.url, "temperature": 0.0}
                  for j in ("claude", "gpt4o-mini", "llama")]
        path = calkit.study_file(tmp_path, "panel", judges, sample_size=10)
        assert main(["--batch", "--db", str(db), "study", "create", str(path)]) == 0
        assert main(["--batch", "--db", str(db), "run", "panel"]) == 0
        assert server.count == 30  # 3 × 10, not 10 + 20 replays
    store = open_store(db)
    statuses = [r["status"] for r in store["calls"].rows_where("study_id = ?", ["panel"])]
    assert statuses.count("replayed") == 0 and len(statuses) == 30
