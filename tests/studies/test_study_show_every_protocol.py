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


def test_study_show_names_c1s_framing_and_c3s_fan(tmp_path):
    """Issue 42 item 11: a pre-registered non-default C1 `framing` or C3 `fan` did not show in `study show`."""
    db = tmp_path / "store.db"
    text = (ROOT / "studies" / "glenda-crock-mock.toml").read_text(encoding="utf-8")
    text = text.replace('name = "glenda-crock-mock"', 'name = "gc-framed"', 1)
    path = tmp_path / "gc-framed.toml"
    path.write_text(text + '\n[architectures.C1]\nframing = "respondents"\n\n[architectures.C3]\nfan = "tail-risk"\n',
                    encoding="utf-8")
    assert main(["--batch", "--db", str(db), "study", "create", str(path)]) == 0
    from store import open_store
    from workbench.studies import study_summary, summary_text

    out = summary_text(study_summary(open_store(db), "gc-framed"))    # `study show`'s words, without the cue audit
    assert "framing: respondents" in out and "fan: tail-risk" in out
