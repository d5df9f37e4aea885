"""Headless: `workbench --batch probe` and `workbench --batch log verify` through the real entry point."""

from __future__ import annotations

import json

from tests.probes.conftest import scripted_model
from workbench.cli.main import main

FAKE_KEY = "sk-batch-DISTINCTIVE-51be0c7d9a"


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_batch_probe_then_case_list_shows_the_verdict(library, loopback_server, capsys, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    loopback_server.responder = scripted_model({"ferry-timetable": "partial"})
    db = str(library.db)
    code, out, err = run(capsys, "--batch", "--db", db, "--json", "probe", "ferry-timetable",
                         "--model", "openai/probe-target", "--api-base", loopback_server.url)
    assert code == 0, err
    doc = json.loads(out)
    assert doc["ok"] and doc["probe"]["verdict"] == "partial" and doc["probe"]["model"] == "openai/probe-target"
    assert "asking openai/probe-target" in err  # progress on stderr, stdout kept to one JSON document
    assert loopback_server.count == 2

    code, out, _ = run(capsys, "--batch", "--db", db, "--json", "cases", "list")
    listed = {c["id"]: c for c in json.loads(out)["cases"]}
    assert listed["ferry-timetable"]["probe"] == "partial ⚑"  # issue 13: partial is contaminated, as recognized is

    code, out, _ = run(capsys, "--batch", "--db", db, "probe", "quarry-loan",
                       "--model", "openai/probe-target", "--api-base", loopback_server.url)
    assert code == 0 and "quarry-loan on openai/probe-target: not_recognized" in out

    # The key was sent to the server, and is nowhere on disk or in what the commands printed.
    assert loopback_server.request_headers[0]["authorization"] == f"Bearer {FAKE_KEY}"
    on_disk = [p for p in library.db.parent.rglob("*") if p.is_file()] + list(library.cases.glob("*.md")) + list(library.own.glob("*.md"))
    assert on_disk and not [p for p in on_disk if FAKE_KEY.encode() in p.read_bytes()]
    assert FAKE_KEY not in out + err


def test_batch_probe_failures_exit_1(library, loopback_server, capsys):
    db = str(library.db)
    code, _, err = run(capsys, "--batch", "--db", db, "probe", "no-such-case")
    assert code == 1 and "no case 'no-such-case'" in err
    loopback_server.responder = scripted_model({}, raw={"quarry-loan": "no JSON here"})
    code, out, _ = run(capsys, "--batch", "--db", db, "--json", "probe", "quarry-loan",
                       "--model", "openai/probe-target", "--api-base", loopback_server.url)
    assert code == 1 and json.loads(out)["probe"]["verdict"] == "error"


def test_batch_probe_on_the_offline_settings_model_explains_and_offers_the_configured_models(
        library, capsys, loopback_server):
    """Issue 15 (changes this test's expectation): the Settings' probe model is `mock`, so instead of a
    placeholder probe that exits 1 with "not stored", the command says why it cannot classify and offers the
    real models configured in Settings as commands to copy; nothing is called or stored."""
    from store import open_store
    from workbench.cases.library import bootstrap
    from workbench.gateway import ModelSettings
    from workbench.gateway.settings import load_settings, save_settings

    code, _, err = run(capsys, "--batch", "--db", str(library.db), "probe", "quarry-loan")
    assert code == 2 and "'mock', an offline model" in err and "cannot be classified" in err
    assert "No real model is configured yet: set the probe model in Settings (6)" in err
    db = open_store(library.db)
    bootstrap(db)
    settings = load_settings(db)
    settings.roles["judge"] = ModelSettings(model="openai/judge-model", api_base=loopback_server.url)
    save_settings(db, settings)
    db.close()
    code, _, err = run(capsys, "--batch", "--db", str(library.db), "probe", "quarry-loan")
    assert code == 2
    assert f"workbench --batch probe quarry-loan --model openai/judge-model --api-base {loopback_server.url}" in err
    assert loopback_server.count == 0
    # naming the offline model is a dry run of the plumbing, as before: placeholder, an error verdict
    code, out, _ = run(capsys, "--batch", "--db", str(library.db), "--json", "probe", "quarry-loan", "--model", "mock")
    doc = json.loads(out)
    assert doc["probe"]["model"] == "mock" and doc["probe"]["placeholder"] is True and code == 1


def test_log_verify_names_the_tampered_line(library, loopback_server, capsys):
    loopback_server.responder = scripted_model({})
    db = str(library.db)
    for case_id in ("quarry-loan", "ferry-timetable"):
        assert run(capsys, "--batch", "--db", db, "probe", case_id, "--model", "openai/probe-target",
                   "--api-base", loopback_server.url)[0] == 0
    code, out, _ = run(capsys, "--batch", "--db", db, "--json", "log", "verify", "_global")
    assert code == 0 and json.loads(out) | {"path": None, "head": None} == {
        "ok": True, "study": "_global", "path": None, "lines": 4, "broken_line": None, "reason": None,
        "recorded": 4, "head": None, "problems": [], "unrecorded": 0, "repairs": [], "lost": None}

    path = library.db.parent / "workbench.logs" / "_global.jsonl"
    lines = path.read_text().splitlines()
    lines[2] = lines[2].replace('"status":"ok"', '"status":"error"')
    path.write_text("\n".join(lines) + "\n")
    code, out, err = run(capsys, "--batch", "--db", db, "log", "verify", "_global")
    assert code == 1 and "line 3" in out and "line 3" in err

    code, _, err = run(capsys, "--batch", "--db", db, "log", "verify", "no-such-study")
    assert code == 1 and "no call log for study 'no-such-study'" in err
