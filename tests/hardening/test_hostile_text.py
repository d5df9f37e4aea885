"""Hostile text: what a case, a rater or a model wrote never drives the terminal or renders as markup;
rater names follow the study-name rule; oversized case files are refused."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.hardening.conftest import ROOT, batch
from workbench.cases.validate import MAX_CASE_BYTES, validate_paths
from workbench.safe_text import for_terminal, json_for_terminal
from workbench.studies.definition import StudyError, parse_study_text

FIXTURE_CASES = ROOT / "tests" / "screens" / "fixtures" / "cases"
# clear the screen, move home, set the window title (OSC 0, BEL-terminated), 8-bit CSI, a bidi override
HOSTILE = "Coercion \x1b[2J\x1b[H\x1b]0;pwned\x07drill \x9b31m\u202eevil\u202c [bold red]Alarm[/] [link=https://x.example]here[/link]"
SHOWN = "Coercion drill 31mevil [bold red]Alarm[/] [link=https://x.example]here[/link]"


def test_for_terminal_removes_sequences_and_controls_and_keeps_text():
    assert for_terminal(HOSTILE) == SHOWN
    assert for_terminal("two\tcolumns\r\nnext line\n") == "two\tcolumns\nnext line\n"
    assert for_terminal("plain, ünïcode — fine") == "plain, ünïcode — fine"
    assert for_terminal("\x1bPqDCS string\x1b\\ after") == " after"
    assert for_terminal(None) == ""


def test_json_output_keeps_the_data_exact_but_escapes_what_a_terminal_acts_on():
    doc = json.dumps({"title": HOSTILE}, ensure_ascii=False)
    safe = json_for_terminal(doc)
    assert json.loads(safe) == {"title": HOSTILE}
    assert not any(ch in safe for ch in "\x1b\x07\x9b\u202e")


def _hostile_cases(tmp_path: Path, monkeypatch) -> Path:
    """The screen fixtures' cases (and rubrics), one of them titled with escapes, markup and a link."""
    cases, rubrics = tmp_path / "cases", tmp_path / "rubrics"
    shutil.copytree(FIXTURE_CASES, cases)
    shutil.copytree(ROOT / "tests" / "screens" / "fixtures" / "rubrics", rubrics)
    monkeypatch.setenv("WORKBENCH_CASES_DIR", str(cases))
    monkeypatch.setenv("WORKBENCH_RUBRICS_DIR", str(rubrics))
    path = cases / "coercion-drill.md"
    toml_title = HOSTILE.encode("unicode_escape").decode("ascii").replace("\\x", "\\u00")
    path.write_text(path.read_text().replace('title = "Coercion drill for an operations team"',
                                             f'title = "{toml_title}"'))
    return cases


def test_cases_show_prints_a_hostile_title_without_its_control_sequences(tmp_path, monkeypatch, capsys):
    cases = _hostile_cases(tmp_path, monkeypatch)
    db = tmp_path / "store.db"
    code, _, err = batch(capsys, db, "cases", "import", str(cases))
    assert code == 0, err
    code, out, err = batch(capsys, db, "cases", "show", "coercion-drill")
    assert code == 0, err
    assert SHOWN in out
    assert not any(ch in out + err for ch in "\x1b\x07\x9b\u202e")
    code, out, _ = batch(capsys, db, "--json", "cases", "show", "coercion-drill")
    assert code == 0 and "\x1b" not in out and "\x9b" not in out
    assert json.loads(out)["case"]["title"] == HOSTILE  # the data itself is kept exactly


async def test_the_cases_screen_shows_a_title_with_markup_as_plain_text(tmp_path, monkeypatch):
    _hostile_cases(tmp_path, monkeypatch)
    from screens.launch import make_app

    app = make_app(tmp_path / "store" / "workbench.db")
    async with app.run_test(size=(200, 30)) as pilot:
        for _ in range(20):
            await pilot.pause(0.05)
            if type(app.screen).__name__ == "CasesScreen" and app.screen.query_one("#case-table").row_count:
                break
        table = app.screen.query_one("#case-table")
        title = table.get_row("coercion-drill")[1]
        assert str(title).startswith("Coercion drill 31mevil [bold red]Al")  # the brackets show (then cut to fit)
        assert not title.spans and not title.style  # nothing of it became a style or a link
        assert "\x1b" not in str(title)


def test_a_rater_name_follows_the_study_name_rule():
    base = ('name = "ok-study"\ncases = ["toll-bridge"]\njudges = []\n')
    parse_study_text(base + 'raters = ["rater-a", "r2"]\n', "s.toml")
    for bad in ("Bob Smith", "\\u001b[2Jx", "ann;rm", "a"):
        try:
            parse_study_text(base + f'raters = ["rater-a", "{bad}"]\n', "s.toml")
        except StudyError as exc:
            found = [str(p) for p in exc.problems]
            assert any(p.startswith("s.toml:4: raters:") and "lowercase letters" in p for p in found), found
        else:
            raise AssertionError(f"rater name {bad!r} was accepted")


def test_a_case_file_over_the_size_limit_is_refused_by_file_and_line(tmp_path):
    cases = tmp_path / "cases"
    shutil.copytree(FIXTURE_CASES, cases)
    big = cases / "guild-charter.md"
    big.write_text(big.read_text() + "\n" + "padding words " * (MAX_CASE_BYTES // 14 + 10))
    found, problems = validate_paths([cases])
    assert "guild-charter" not in {c.id for _, c in found} and len(found) == 3
    [problem] = [p for p in problems if p.severity == "error"]
    assert str(problem).startswith(f"{big}:1: file: is ") and f"at most {MAX_CASE_BYTES // 1024} KiB" in str(problem)


def test_study_create_refuses_a_prompt_longer_than_the_models_context_window(tmp_path, cases_dir, capsys):
    from tests.hardening.conftest import STUDY, study_toml

    case = cases_dir / "glenda-crock.md"
    text = case.read_text()
    case.write_text(text.replace("## Scenario\n", "## Scenario\n\n" + "The board weighs the quarry loan. " * 1200
                                 + "\n", 1))  # about 10,000 tokens, under the case size limit
    db = tmp_path / "store.db"
    study_file = tmp_path / "long.toml"
    study_file.write_text(study_toml(("B1",)).replace('name = "mock"', 'name = "gpt-4"', 1))  # 8,192 tokens
    code, _, err = batch(capsys, db, "study", "create", str(study_file))
    assert code == 1, err
    model_line = study_file.read_text().splitlines().index("[model]") + 1
    assert f"{study_file}:{model_line}: model: gpt-4: condition B1's largest prompt (answer, item " \
           "'glenda-crock') cannot fit: about" in err, err
    assert "context window of 8,192 tokens (litellm's model info)" in err
    code, _, err = batch(capsys, db, "study", "show", STUDY)
    assert code == 1  # nothing of the refused study was stored

    study_file.write_text(study_toml(("B1",)))  # the offline mock has no window to check
    code, _, err = batch(capsys, db, "study", "create", str(study_file))
    assert code == 0, err
