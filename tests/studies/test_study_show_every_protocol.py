"""`study show` in words works for a study of every protocol (it crashed for faultline, m11 and calibration)."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = {"hindsight": "glenda-crock-mock", "faultline": "faultline-mock", "m11": "m11-sample-mock",
            "calibration": "calibration-small"}


@pytest.mark.parametrize("protocol,study", list(EXAMPLES.items()))
def test_study_show_in_words_names_the_study_and_its_protocol(tmp_path, capsys, protocol, study):
    db = tmp_path / "store.db"
    assert main(["--batch", "--db", str(db), "study", "create", str(ROOT / "studies" / f"{study}.toml")]) == 0
    capsys.readouterr()
    assert main(["--batch", "--db", str(db), "study", "show", study]) == 0
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    first = out.splitlines()[0]
    assert first.startswith(f"study {study}  protocol {protocol}")
    assert "judges      " in out and ("holds       " in out or "cases       " in out)
