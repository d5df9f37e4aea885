"""`workbench` without --batch parses its own options only (the TUI opens without importing every command
module and protocol first); a command, help or a mistake still gets the whole command line."""

from __future__ import annotations

import pytest

from workbench.cli.main import main


def _opened(calls):
    return lambda db, rater: calls.append((db, rater)) or 0


def test_opening_the_tui_hands_it_the_store_and_no_rater(tmp_path):
    calls: list = []
    assert main(["--db", str(tmp_path / "x.db")], open_tui=_opened(calls)) == 0
    assert calls == [(tmp_path / "x.db", None)]


def test_rater_mode_is_handed_its_lock(tmp_path):
    calls: list = []
    assert main(["--db", str(tmp_path / "x.db"), "--rater", "ann", "--study", "s1"], open_tui=_opened(calls)) == 0
    (db, lock), = calls
    assert db == tmp_path / "x.db" and (lock.rater, lock.study_id) == ("ann", "s1")


@pytest.mark.parametrize("argv, message", [
    (["study", "list"], "put --batch before the command"),
    (["--rater", "ann"], "rater mode needs both --rater NAME and --study STUDY"),
    (["--db"], "argument --db: expected one argument"),
    (["--colour"], "unrecognized arguments: --colour"),
])
def test_mistakes_are_named_with_exit_2(argv, message, capsys):
    calls: list = []
    with pytest.raises(SystemExit) as exc:
        main(argv, open_tui=_opened(calls))
    assert exc.value.code == 2 and message in capsys.readouterr().err and calls == []


def test_help_still_lists_the_commands(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--help"], open_tui=_opened([]))
    out = capsys.readouterr().out
    assert exc.value.code == 0 and "COMMAND" in out and "metrics" in out and "--batch" in out
