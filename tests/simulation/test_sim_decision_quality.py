"""Decision quality on `sim`, and honest concern-assessment counts (issue 24 item 3).

On `sim` the concern judge answers in the assessment's JSON and the perspectives take distinct lenses, so
DQ-1, DQ-3 and the weighted DQ are defined and committee members' views differ; on `mock` no reply can be
read, and `metrics --assess-concerns` says so ("0/N runs assessed: N replies unparseable") and exits 1.
"""

from __future__ import annotations

import json

from tests.simulation.helpers import ROOT, cli, hindsight_study
from workbench.cli.main import main

def study(tmp_path, model: str):
    (tmp_path / "cases").symlink_to(ROOT / "cases")
    path = tmp_path / "dq-small.toml"
    path.write_text(hindsight_study("dq-small", model, cases=("glenda-crock", "blast-radius"),
                                    conditions=("B1", "B3", "C1", "C2"), raters=("rater-a",)), encoding="utf-8")
    db = tmp_path / "store.db"
    cli(db, "study", "create", str(path))
    cli(db, "run", "dq-small")
    cli(db, "unblind", "dq-small", "--force", "--by", "test", "--reason", "DQ needs no scores")
    return db


def assess(db, capsys) -> tuple[int, dict, str]:
    capsys.readouterr()
    code = main(["--batch", "--db", str(db), "--json", "metrics", "dq-small", "--assess-concerns"])
    out = capsys.readouterr()
    return code, json.loads(out.out), out.err


def test_on_sim_every_dq_part_is_defined_and_committee_members_differ(tmp_path, capsys):
    code, doc, err = assess(study(tmp_path, "sim"), capsys)
    assert code == 0
    assert "8/8 runs assessed: 8 repaired" in err  # each reply opens with the SIMULATED banner: cut
    runs = {r["run_id"].split("/", 1)[1]: r for r in doc["decision_quality"]["runs"]}
    assert all(r["dq3"]["value"] is not None for r in runs.values())
    for rid, r in runs.items():
        if r["n_perspectives"]:
            assert r["weighted"]["value"] is not None, rid
    # parallel members take their own lenses: not every pair of views is the same text
    for rid in ("glenda-crock/C1/0", "glenda-crock/C2/0", "blast-radius/C1/0", "blast-radius/C2/0"):
        sims = runs[rid]["similarity"]
        assert any(sims[i][j] < 0.95 for i in range(len(sims)) for j in range(len(sims)) if i != j), rid
    assert max(runs[r]["dq1"]["value"] for r in runs if "/C" in r) > 0
    # planted: DQ-3 coverage follows the run's latent quality, so scores are not all one value
    assert len({r["dq3"]["value"] for r in runs.values()}) > 1


def test_on_mock_nothing_is_called_assessed_and_the_command_fails(tmp_path, capsys):
    code, doc, err = assess(study(tmp_path, "mock"), capsys)
    assert code == 1
    assert "0/8 runs assessed: 8 replies unparseable" in doc["error"]
    assert "runs assessed" in err and "8/8 runs assessed" not in err
