"""`settings show | set` (issue 19 item 1): a batch user changes every gateway setting the Settings screen
has, with the screen's validation, and the next command's gateway uses it."""

from __future__ import annotations

import json

from workbench.cli.main import main
from workbench.gateway import build_gateway
from workbench.gateway.settings import load_settings


def cli(capsys, db, *argv):
    capsys.readouterr()
    code = main(["--batch", "--db", str(db), *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_set_then_show_in_words_and_json(tmp_path, capsys):
    db = tmp_path / "store.db"
    assert cli(capsys, db, "settings", "set", "concurrency", "1")[0] == 0
    assert cli(capsys, db, "settings", "set", "judge.model", "openai/local")[0] == 0
    assert cli(capsys, db, "settings", "set", "judge.api_key_env", "none")[0] == 0
    assert cli(capsys, db, "settings", "set", "limits.openai/local.rpm", "30")[0] == 0
    code, out, _ = cli(capsys, db, "settings", "show")
    assert code == 0 and "concurrency            1" in out and "openai/local" in out
    code, out, _ = cli(capsys, db, "--json", "settings", "show")
    doc = json.loads(out)
    assert doc["concurrency"] == 1 and doc["roles"]["judge"]["model"] == "openai/local"
    assert doc["roles"]["judge"]["api_key_env"] == "none" and doc["limits"]["openai/local"]["rpm"] == 30
    from store import open_store

    store = open_store(db)
    assert build_gateway(store, db).config.concurrency == 1           # the next command's gateway uses it
    assert load_settings(store).role("judge").model == "openai/local"


def test_a_bad_value_names_the_key_and_changes_nothing(tmp_path, capsys):
    db = tmp_path / "store.db"
    code, _, err = cli(capsys, db, "settings", "set", "concurrency", "0")
    assert code == 1 and "concurrency" in err and "at least 1" in err
    code, _, err = cli(capsys, db, "settings", "set", "judge.temperature", "hot")
    assert code == 1 and "judge.temperature" in err
    code, _, err = cli(capsys, db, "settings", "set", "no.such.key", "1")
    assert code == 2 and "unknown setting" in err
    code, out, _ = cli(capsys, db, "--json", "settings", "show")
    assert json.loads(out)["concurrency"] == 8


def test_a_local_server_for_the_probe_and_a_classifier_of_its_own(tmp_path, capsys):
    """The probe of a keyless single-slot server, and a classifier set key by key, then cleared again."""
    db = tmp_path / "store.db"
    for key, value in (("probe.model", "openai/local"), ("probe.api_base", "http://127.0.0.1:8011/v1"),
                       ("probe.api_key_env", "none"), ("probe.max_connections", "1"),
                       ("probe.first_token_timeout", "300"), ("probe.structured", "json_object")):
        code, _, err = cli(capsys, db, "settings", "set", key, value)
        assert code == 0, err
    code, _, err = cli(capsys, db, "settings", "set", "classifier.structured", "json_object")
    assert code == 1 and "classifier.structured: set without a classifier model" in err
    assert cli(capsys, db, "settings", "set", "classifier.model", "openai/other")[0] == 0
    assert cli(capsys, db, "settings", "set", "classifier.structured", "json_object")[0] == 0
    from store import open_store

    settings = load_settings(open_store(db))
    probe = settings.role("probe")
    assert (probe.api_key_env, probe.max_connections, probe.first_token_timeout, probe.structured) == (
        "none", 1, 300.0, "json_object")
    assert (settings.classifier.model, settings.classifier.temperature, settings.classifier.structured) == (
        "openai/other", 0.0, "json_object")
    code, out, _ = cli(capsys, db, "settings", "show")
    assert "max_connections 1" in out and "structured json_object" in out
    assert cli(capsys, db, "settings", "set", "classifier.model", "")[0] == 0  # the probed model classifies again
    again = load_settings(open_store(db))
    assert again.classifier is None and again.role("classifier").model == "openai/local"
