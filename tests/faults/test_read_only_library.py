"""The shipped case library is read-only, and loading it never raises (issue 34, finding 1).

A probe that came back "recognized" used to be written into the shipped cases/glenda-crock.md; from then on
every command on a fresh store died in `bootstrap` with a CaseError. Here a copy of the shipped cases/ is
corrupted the same way (and one file beyond parsing), and every command is run on a fresh store."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.screens.study_screen_helpers import wait_until
from workbench.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
RECOGNIZED = ('\n[[probes]]\nmodel = "openai/misconfigured"\ndate = "2026-11-20"\nverdict = "recognized"\n'
              'scenario_hash = ""\n')


@pytest.fixture
def corrupted(tmp_path, monkeypatch):
    """A copy of the shipped cases/ with glenda-crock probed "recognized" and blast-radius unparseable."""
    cases = tmp_path / "cases"
    shutil.copytree(ROOT / "cases", cases)
    glenda = cases / "glenda-crock.md"
    text = glenda.read_text(encoding="utf-8")
    head, fence, rest = text.partition("\n+++\n")  # the closing fence of the front matter
    glenda.write_text(head + RECOGNIZED.rstrip("\n") + fence + rest, encoding="utf-8")
    (cases / "blast-radius.md").write_text("+++\nid = \"blast-radius\"\ntitle = [unclosed\n+++\n", encoding="utf-8")
    monkeypatch.setenv("WORKBENCH_CASES_DIR", str(cases))
    return cases


def batch(capsys, db: Path, *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["--batch", "--db", str(db), *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_every_command_works_and_only_a_study_naming_the_refused_case_is_refused(corrupted, tmp_path, capsys):
    db = tmp_path / "fresh.db"
    code, out, err = batch(capsys, db, "cases", "list")
    assert code == 0 and "Traceback" not in err
    assert "2 case file(s) refused" in out
    glenda = next(line for line in out.splitlines() if line.strip().startswith("glenda-crock  refused"))
    assert f"{corrupted / 'glenda-crock.md'}:" in glenda and "recognized" in glenda
    assert "blast-radius  refused" in out
    assert "municipal-open-data" in out  # the others are loaded
    code, out, _ = batch(capsys, db, "--json", "cases", "list")
    doc = json.loads(out)
    assert {r["id"] for r in doc["refused"]} == {"glenda-crock", "blast-radius"}
    assert all(r["line"] >= 1 for r in doc["refused"])
    assert "glenda-crock" not in {c["id"] for c in doc["cases"]}

    for study in ("m11-sample-mock", "calibration-small"):  # studies that never use the case
        code, out, err = batch(capsys, db, "study", "create", str(ROOT / "studies" / f"{study}.toml"))
        assert code == 0, err
    code, out, err = batch(capsys, db, "study", "create", str(ROOT / "studies/glenda-crock-mock.toml"))
    assert code == 1 and "Traceback" not in err
    assert "case 'glenda-crock' was refused when the case library was loaded" in err
    assert f"{corrupted / 'glenda-crock.md'}:" in err and "recognized" in err
    # the shipped files were only read
    assert "openai/misconfigured" in (corrupted / "glenda-crock.md").read_text(encoding="utf-8")


async def test_the_tui_starts_and_names_the_refused_files(corrupted, tmp_path):
    from screens.launch import make_app

    app = make_app(tmp_path / "tui.db")
    notes: list[str] = []
    app.notify = lambda message, **kw: notes.append(message)
    async with app.run_test(size=(80, 24)) as pilot:
        # the store (and with it the library) is opened in a worker after the first frame
        await wait_until(pilot, lambda: any("2 case file(s) refused" in n and "blast-radius.md:" in n for n in notes),
                         timeout=30, what="the notice naming the refused files")


def test_a_case_in_the_users_library_takes_precedence(tmp_path, monkeypatch, capsys):
    """The user's copy (a probe wrote it) wins over the shipped file of the same id, refused or not."""
    own = tmp_path / "own"
    own.mkdir()
    monkeypatch.setenv("WORKBENCH_CASE_LIBRARY", str(own))
    text = (ROOT / "cases/municipal-open-data.md").read_text(encoding="utf-8")
    (own / "municipal-open-data.md").write_text(text.replace('title = "', 'title = "MY COPY: ', 1), encoding="utf-8")
    code, out, _ = batch(capsys, tmp_path / "a.db", "--json", "cases", "show", "municipal-open-data")
    assert code == 0 and json.loads(out)["case"]["title"].startswith("MY COPY: ")
    assert json.loads(out)["source_path"] == str((own / "municipal-open-data.md").resolve())
    # a refused copy hides the shipped case: the contamination record is not undone by the shipped file
    glenda = (ROOT / "cases/glenda-crock.md").read_text(encoding="utf-8")
    head, fence, rest = glenda.partition("\n+++\n")
    (own / "glenda-crock.md").write_text(head + RECOGNIZED.rstrip("\n") + fence + rest, encoding="utf-8")
    code, out, _ = batch(capsys, tmp_path / "b.db", "--json", "cases", "list")
    doc = json.loads(out)
    assert "glenda-crock" not in {c["id"] for c in doc["cases"]}
    [refused] = doc["refused"]
    assert refused["file"] == str(own / "glenda-crock.md")
