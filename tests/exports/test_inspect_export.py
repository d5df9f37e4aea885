"""`export inspect`: every protocol's study read back with Inspect AI's own reader and data frames, compared
with the store; blind exports name no condition, model or rater; a blind study is refused."""

from __future__ import annotations

import builtins
import json
import re

import pytest
import sqlite_utils

from workbench.cli.main import main

inspect_log = pytest.importorskip("inspect_ai.log")  # in requirements.lock: present wherever the suite runs


def export(db, *argv) -> int:
    return main(["--batch", "--db", str(db), "export", "inspect", *argv])


def test_every_run_is_a_sample_with_its_turns_usage_and_scores(built, tmp_path):
    out = tmp_path / "logs"
    assert export(built.db, built.study, "--out", str(out)) == 0
    store = sqlite_utils.Database(built.db)
    runs = {r["id"]: r for r in store["runs"].rows_where("study_id = ?", [built.study])}
    logs = [inspect_log.read_eval_log(str(p)) for p in sorted(out.glob("*.json"))]
    assert {log.eval.metadata["condition"] for log in logs} == {r["condition"] for r in runs.values()}
    samples = {s.id: (log, s) for log in logs for s in log.samples}
    assert set(samples) == set(runs)
    for run_id, (log, sample) in samples.items():
        run = runs[run_id]
        assert log.eval.metadata["freeze_hash"] == store["studies"].get(built.study)["freeze_hash"]
        assert log.eval.metadata["call_log_head"] and log.eval.metadata["workbench_version"]
        assert sample.metadata["condition"] == run["condition"] == log.eval.metadata["condition"]
        kept = [c for c in store["calls"].rows_where("run_id = ? and status in ('ok', 'replayed')", [run_id],
                                                     order_by="id")]
        replies = [m for m in sample.messages if m.role == "assistant"]
        assert [m.text for m in replies] == [c["response"] for c in kept]
        assert [m.metadata["call_id"] for m in replies] == [c["id"] for c in kept]
        output = store["outputs"].get(run_id)["text"] if run["status"] == "done" else None
        if output is not None:
            assert sample.output.completion == output
        used = sum(u.output_tokens for u in sample.model_usage.values())
        assert used == sum(c["output_tokens"] or 0 for c in kept if c["status"] == "ok")
    scorers = {r[0] for r in store.execute("select rater from scores where study_id = ? union "
                                            "select judge from verdicts where study_id = ? and status = 'ok'",
                                            [built.study, built.study]).fetchall()}
    names = {k.split("/")[0] for _, s in samples.values() for k in (s.scores or {})}
    assert names == scorers  # every rater and judge who scored is on the samples, by name, and no one else


def test_the_logs_load_as_inspect_data_frames(built, tmp_path):
    from inspect_ai.analysis import samples_df

    out = tmp_path / "logs"
    assert export(built.db, built.study, "--out", str(out)) == 0
    frame = samples_df(str(out))
    runs = sqlite_utils.Database(built.db)["runs"].count_where("study_id = ?", [built.study])
    assert len(frame) == runs


def _forbidden(store, study: str) -> set[str]:
    conditions = {r["condition"] for r in store["runs"].rows_where("study_id = ?", [study])}
    raters = {r["name"] for r in store["raters"].rows_where("study_id = ?", [study])}
    models = {r["model"] for r in store["calls"].rows_where("study_id = ?", [study])}
    return conditions | raters | models


def test_a_blind_study_is_refused_and_blind_items_name_nothing(blinded, tmp_path, capsys):
    built = blinded
    capsys.readouterr()
    assert export(built.pre_unblind, built.study, "--out", str(tmp_path / "refused")) == 1
    assert "still blind" in capsys.readouterr().err and not (tmp_path / "refused").exists()
    out = tmp_path / "blind"
    assert export(built.pre_unblind, built.study, "--out", str(out), "--blind") == 0
    store = sqlite_utils.Database(built.pre_unblind)
    texts = [p.read_text() for p in out.iterdir()]
    assert texts
    for word in _forbidden(store, built.study):
        pattern = re.compile(rf"(?<![A-Za-z0-9_-]){re.escape(word)}(?![A-Za-z0-9_-])")
        assert not any(pattern.search(t) for t in texts), word
    [log_file] = [p for p in out.iterdir() if p.name != ".workbench-files"]  # beside it, the folder's manifest
    log = inspect_log.read_eval_log(str(log_file))
    items = {r["id"] for r in store["blind_items"].rows_where("study_id = ?", [built.study])}
    assert {s.id for s in log.samples} == items and all(not s.scores for s in log.samples)


def test_without_inspect_ai_the_command_says_how_to_install_it(built, tmp_path, capsys, monkeypatch):
    real_import = builtins.__import__

    def no_inspect(name, *args, **kwargs):
        if name.startswith("inspect_ai"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_inspect)
    capsys.readouterr()
    assert export(built.db, built.study, "--out", str(tmp_path / "x")) == 1
    err = capsys.readouterr().err
    assert "inspect-ai" in err and "pip install" in err and not (tmp_path / "x").exists()


def test_json_output_lists_the_logs(built, tmp_path, capsys):
    capsys.readouterr()
    assert main(["--batch", "--db", str(built.db), "--json", "export", "inspect", built.study,
                 "--out", str(tmp_path / "j")]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["ok"] and doc["protocol"] == built.protocol and len(doc["logs"]) >= 1
