"""Every file-writing command writes whole: a fault leaves the old output or nothing, and names the path.

The fault is a full disk: the command's temporary file (or a file inside its temporary folder) is a
symlink to /dev/full, whose writes fail with ENOSPC.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest

from tests.hardening.conftest import ROOT, batch, full_temp_files, workbench_lines


def _full_file_in_temp_folders(monkeypatch, name: str):
    """Temporary export folders in which `name` cannot be written."""
    import workbench.files.folder as folder

    real = tempfile.mkdtemp  # the module is shared: patching it patches tempfile itself

    def mkdtemp(prefix="", suffix="", dir=None):
        path = real(prefix=prefix, suffix=suffix, dir=dir)
        os.symlink("/dev/full", os.path.join(path, name))
        return path

    monkeypatch.setattr(folder.tempfile, "mkdtemp", mkdtemp)


def _one_line(code: int, err: str) -> str:
    assert code == 1, err
    assert "Traceback" not in err, err
    lines = workbench_lines(err)
    assert len(lines) == 1, err
    return lines[0]


def _created(tmp_path, capsys, example: str, monkeypatch) -> tuple[Path, str]:
    cases = tmp_path / "cases"
    shutil.copytree(ROOT / "cases", cases)
    monkeypatch.setenv("WORKBENCH_CASES_DIR", str(cases))
    db = tmp_path / "store.db"
    code, out, err = batch(capsys, db, "--json", "study", "create", str(ROOT / "studies" / f"{example}.toml"))
    assert code == 0, err
    return db, example


def test_calibration_export_on_a_full_disk_leaves_no_partial_folder_and_names_the_file(tmp_path, capsys,
                                                                                        monkeypatch):
    db, study = _created(tmp_path, capsys, "calibration-small", monkeypatch)
    assert batch(capsys, db, "run", study)[0] == 0
    out = tmp_path / "exports"
    with monkeypatch.context() as m:
        _full_file_in_temp_folders(m, "k_sweep.csv")
        code, _, err = batch(capsys, db, "calibration", "export", study, "--out", str(out))
    line = _one_line(code, err)
    assert line.startswith("workbench: no space left: could not write"), line
    assert f"{out}/" in line and "_calibration_fidelity" in line, line  # the folder the user asked for
    assert str(db) not in line and "--resume" not in line, line  # the store is not what failed
    assert not out.exists() or list(out.iterdir()) == []  # no 0-byte k_sweep.csv, no half folder

    code, stdout, err = batch(capsys, db, "--json", "calibration", "export", study, "--out", str(out))
    assert code == 0, err
    written = json.loads(stdout)
    manifest = ".workbench-files"  # each folder lists the files the workbench wrote in it
    assert sorted(os.listdir(written["fidelity"])) == [manifest, "k_sweep.csv", "k_sweep.png", "reliability.png",
                                                       "reliability_bins.csv", "summary.json"]
    assert sorted(os.listdir(written["judge"])) == [manifest, "agreement.json", "joined.csv", "joined.schema.json",
                                                    "judge_scores.csv"]
    assert sorted(p.name for p in out.iterdir()) == sorted(Path(written[k]).name for k in ("fidelity", "judge"))


@pytest.mark.parametrize("argv, name", [
    (["metrics", "{study}"], "tables.md"),
    (["metrics", "{study}", "--csv"], "rows.csv"),
    (["m11", "export", "{study}"], "results.json"),
])
def test_a_single_file_command_keeps_the_previous_file_on_a_full_disk(tmp_path, capsys, monkeypatch, argv, name):
    db, study = _created(tmp_path, capsys, "m11-sample-mock", monkeypatch)
    assert batch(capsys, db, "run", study)[0] == 0
    target = tmp_path / "out" / name
    target.parent.mkdir()
    target.write_text("the previous output\n")
    argv = [a.format(study=study) for a in argv] + ["--out", str(target)]
    with monkeypatch.context() as m:
        full_temp_files(m)
        code, _, err = batch(capsys, db, *argv)
    line = _one_line(code, err)
    assert str(target) in line and "no space left" in line, line
    assert target.read_text() == "the previous output\n"
    assert sorted(p.name for p in target.parent.iterdir()) == [name]  # no temporary file left behind

    code, _, err = batch(capsys, db, *argv)  # space again: the new output replaces the old one whole
    assert code == 0, err
    assert target.read_text() != "the previous output\n" and target.stat().st_size > 0


def test_faultline_debates_replace_only_their_own_files_of_a_folder(tmp_path, capsys, monkeypatch):
    import workbench.protocols.faultline.analysis as analysis

    db, study = _created(tmp_path, capsys, "faultline-mock", monkeypatch)
    debates = [{"run_id": f"{study}/topic/plain/{i}", "metrics": {"BA": i}} for i in range(3)]
    monkeypatch.setattr(analysis, "study_metrics", lambda db, sid, d: {"debates": debates})
    out = tmp_path / "debates"
    out.mkdir()
    (out / "old.json").write_text("{}")
    code, _, err = batch(capsys, db, "faultline", "debates", study, "--out", str(out))
    line = _one_line(code, err)  # a folder holding a file: refused without --force, naming what it holds
    assert str(out) in line and "old.json" in line and "--force" in line, line
    with monkeypatch.context() as m:
        _full_file_in_temp_folders(m, f"{study}__topic__plain__1.json")
        code, _, err = batch(capsys, db, "faultline", "debates", study, "--out", str(out), "--force")
    line = _one_line(code, err)
    assert str(out) in line, line
    assert [p.name for p in out.iterdir()] == ["old.json"]  # the folder as it was

    code, _, err = batch(capsys, db, "faultline", "debates", study, "--out", str(out), "--force")
    assert code == 0, err
    ours = [f"{study}__topic__plain__{i}.json" for i in range(3)]
    assert sorted(p.name for p in out.iterdir()) == sorted([".workbench-files", "old.json", *ours])
    assert json.loads((out / f"{study}__topic__plain__2.json").read_text())["metrics"] == {"BA": 2}
    assert (out / "old.json").read_text() == "{}"  # the user's file: never replaced, never deleted
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".debates")] == []

    del debates[2]  # written again with one debate fewer: the workbench's stale file goes, the user's stays
    code, _, err = batch(capsys, db, "faultline", "debates", study, "--out", str(out), "--force")
    assert code == 0, err
    assert sorted(p.name for p in out.iterdir()) == sorted([".workbench-files", "old.json", *ours[:2]])


def test_a_report_file_holds_no_escape_or_control_bytes_from_a_study(tmp_path, capsys, monkeypatch):
    cases = tmp_path / "cases"
    shutil.copytree(ROOT / "cases", cases)
    monkeypatch.setenv("WORKBENCH_CASES_DIR", str(cases))
    text = (ROOT / "studies" / "m11-sample-mock.toml").read_text()
    hostile = "Title\\u001b]0;owned\\u0007 with a bell\\u0007 and \\u001b[2Jclear\\u001b[31m red"
    text = text.replace('description = "', f'description = "{hostile} ', 1).replace('"../cases/', '"cases/')
    study_file = tmp_path / "hostile.toml"
    study_file.write_text(text)
    db = tmp_path / "store.db"
    assert batch(capsys, db, "study", "create", str(study_file))[0] == 0
    report = tmp_path / "report.md"
    code, _, err = batch(capsys, db, "report", "m11-sample-mock", "--out", str(report))
    assert code == 0, err
    written = report.read_bytes()
    assert b"\x1b" not in written and b"\x07" not in written
    assert "Title with a bell and clear red" in written.decode()  # the words stay, the bytes go
