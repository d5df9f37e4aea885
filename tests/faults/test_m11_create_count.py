"""`study create` of an M11 study says how many items the study will run, not how many the file holds."""

from __future__ import annotations

import json
from pathlib import Path

from workbench.cli.main import main

ROOT = Path(__file__).resolve().parents[2]


def test_limit_one_says_one_item_to_run(tmp_path, capsys):
    text = (ROOT / "studies/m11-sample-mock.toml").read_text(encoding="utf-8")
    text = text.replace("limit = 10", "limit = 1").replace('"../cases/m11/sample.jsonl"',
                                                            json.dumps(str(ROOT / "cases/m11/sample.jsonl")))
    study = tmp_path / "m11-one.toml"
    study.write_text(text, encoding="utf-8")
    db = str(tmp_path / "s.db")
    assert main(["--batch", "--db", db, "study", "create", str(study)]) == 0
    out = capsys.readouterr().out
    assert "items: 1 to run of " in out
    study.with_name("m11-two.toml").write_text(text.replace("limit = 1", "limit = 2")
                                               .replace('name = "m11-sample-mock"', 'name = "m11-two"'))
    assert main(["--batch", "--db", db, "--json", "study", "create", str(study.with_name("m11-two.toml"))]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["items"]["to_run"] == 2 and doc["items"]["added"] > 2
