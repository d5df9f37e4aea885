"""`workbench --batch cases ...`: exit codes, --json, and an invalid import that stores nothing."""

from __future__ import annotations

import json

import pytest

from tests.foundation.conftest import write
from workbench.cli.main import main


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def db(tmp_path):
    return str(tmp_path / "store.db")


def test_validate_ok_and_json(capsys, case_dir):
    code, out, _ = run(capsys, "--batch", "--json", "cases", "validate", str(case_dir))
    assert code == 0
    doc = json.loads(out)
    assert doc["ok"] is True and doc["cases"][0]["id"] == "harbor-dredge"


def test_validate_bad_field_exits_1_naming_file_line_field(capsys, case_dir, ready_text, db):
    bad = write(case_dir, "bad.md", ready_text.replace('id = "harbor-dredge"', 'id = "other"')
                .replace('complexity = "medium"', 'complexity = "extreme"'))
    code, out, err = run(capsys, "--batch", "--db", db, "cases", "validate", str(case_dir))
    assert code == 1
    assert f"{bad}:9: complexity:" in err


def test_import_with_one_invalid_file_stores_nothing(capsys, case_dir, ready_text, db, tmp_path):
    from store import open_store

    # First a good import of a different directory, so the store is not empty.
    good = tmp_path / "good"
    good.mkdir()
    write(good, "one.md", ready_text.replace('id = "harbor-dredge"', 'id = "first-case"'))
    assert run(capsys, "--batch", "--db", db, "cases", "import", str(good))[0] == 0
    before = open_store(db)["cases"].count

    write(case_dir, "bad.md", ready_text.replace('id = "harbor-dredge"', 'id = "bad-one"')
          .replace('status = "ready"', 'status = "finished"'))
    code, out, err = run(capsys, "--batch", "--db", db, "cases", "import", str(case_dir))
    assert code == 1
    assert "bad.md:6: status:" in err
    store = open_store(db)
    assert store["cases"].count == before
    assert store["cases"].count_where("id = ?", ["harbor-dredge"]) == 0


def test_import_list_show(capsys, case_dir, db):
    assert run(capsys, "--batch", "--db", db, "cases", "import", str(case_dir))[0] == 0
    code, out, _ = run(capsys, "--batch", "--db", db, "--json", "cases", "list", "--status", "ready")
    ids = [c["id"] for c in json.loads(out)["cases"]]
    assert "harbor-dredge" in ids
    code, out, _ = run(capsys, "--batch", "--db", db, "--json", "cases", "list", "--strategy", "A")
    assert "harbor-dredge" not in [c["id"] for c in json.loads(out)["cases"]]
    code, out, _ = run(capsys, "--batch", "--db", db, "cases", "show", "harbor-dredge")
    assert code == 0 and "dredging contractors" in out
    code, _, err = run(capsys, "--batch", "--db", db, "cases", "show", "nope")
    assert code == 1 and "nope" in err


def test_usage_errors_exit_2(capsys, db):
    with pytest.raises(SystemExit) as exc:
        main(["--batch", "--db", db, "cases", "frobnicate"])
    assert exc.value.code == 2
    with pytest.raises(SystemExit) as exc:
        main(["--batch"])
    assert exc.value.code == 2
    with pytest.raises(SystemExit) as exc:
        main(["cases", "list"])
    assert exc.value.code == 2


def test_first_launch_bootstraps_shipped_library(capsys, db, case_dir, monkeypatch, tmp_path):
    rubrics = tmp_path / "rubrics"
    rubrics.mkdir()
    monkeypatch.setenv("WORKBENCH_CASES_DIR", str(case_dir))
    monkeypatch.setenv("WORKBENCH_RUBRICS_DIR", str(rubrics))
    code, out, _ = run(capsys, "--batch", "--db", db, "--json", "cases", "list")
    assert code == 0 and [c["id"] for c in json.loads(out)["cases"]] == ["harbor-dredge"]


def test_db_env_var_is_used(capsys, case_dir, monkeypatch, tmp_path):
    path = tmp_path / "env.db"
    monkeypatch.setenv("WORKBENCH_DB", str(path))
    monkeypatch.setenv("WORKBENCH_CASES_DIR", str(case_dir))
    monkeypatch.setenv("WORKBENCH_RUBRICS_DIR", str(tmp_path))
    assert run(capsys, "--batch", "cases", "list")[0] == 0
    assert path.exists()
