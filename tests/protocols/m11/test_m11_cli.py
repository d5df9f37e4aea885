"""The batch path: study create, m11 estimate, run, metrics --json, m11 export, report (loopback model)."""

from __future__ import annotations

import json

from tests.protocols.m11 import m11kit
from tests.protocols.m11.m11kit import EXAMPLE_A, EXAMPLE_B
from tests.protocols.m11.test_m11_end_to_end import STUDY
from workbench.cli.main import main


def test_batch_commands_end_to_end(m11_server, tmp_path, capsys):
    db = str(tmp_path / "store.db")
    m11kit.write_items(tmp_path / "items.jsonl", [EXAMPLE_A, EXAMPLE_B])
    study = tmp_path / "m11-cli.toml"
    study.write_text(STUDY.format(name="m11-cli", api_base=m11_server.url, runs=1), encoding="utf-8")
    assert main(["--batch", "--db", db, "study", "create", str(study)]) == 0
    capsys.readouterr()
    assert main(["--batch", "--db", db, "--json", "m11", "estimate", "m11-cli"]) == 0
    estimate = json.loads(capsys.readouterr().out)
    assert estimate["calls"] == 10 and estimate["cost"] is None and "no price" in estimate["undefined_reason"]
    assert main(["--batch", "--db", db, "run", "m11-cli"]) == 0
    assert m11_server.count == 10
    capsys.readouterr()
    assert main(["--batch", "--db", db, "--json", "metrics", "m11-cli"]) == 0
    doc = json.loads(capsys.readouterr().out)
    got = {s["id"]: (s["overall"], s["band"], s["binary"]) for s in doc["samples"]}
    assert got == {"seed-a-earbuds": (4.4, "PASS", "PASS"), "seed-b-water-bottle": (2.0, "FAIL", "FAIL")}
    out = tmp_path / "results.json"
    assert main(["--batch", "--db", db, "m11", "export", "m11-cli", "--out", str(out)]) == 0
    exported = json.loads(out.read_text())
    assert exported["samples"][1]["pipeline_runs"][0]["debate"]["weaknesses"][0]["severity"] == "critical"
    report = tmp_path / "report.md"
    assert main(["--batch", "--db", db, "report", "m11-cli", "--out", str(report)]) == 0
    assert "## Human validation" in report.read_text()
    assert main(["--batch", "--db", db, "run", "m11-cli", "--resume", "--replay"]) == 0
    assert m11_server.count == 10
