"""`simulate recovery --help` prints its description as written (issue 24 item 7): argparse formats help
strings with %, but not descriptions, so a doubled %% showed as "95%% CI"."""

from __future__ import annotations

import pytest

from workbench.cli.main import main


def test_simulate_recovery_help_says_95_percent_once(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--batch", "simulate", "recovery", "--help"])
    assert exc.value.code == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "by the 95% CI" in out and "%%" not in out
