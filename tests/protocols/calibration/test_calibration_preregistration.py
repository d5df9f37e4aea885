"""The pre-registration cannot drift, and the report counts what the data holds (issue 31, items 9, 10, 12).

- No metric before the freeze: `metrics`, `report`, `calibration export` and the results panel refuse an
  unfrozen study, so a definition is never changed after its numbers were seen (a frozen one refuses change).
- Sample sizes are counted from the data, with the seed's minimums (500 per bin, 1000 judged) as warnings.
- α thresholds other than the seed's, and an empty excluded-fields list, are flagged.
- The joined CSV's `panel_verdict` is the study's outcome.
- The default bins put every value of the seed's grid inside a bin of its own.
"""

from __future__ import annotations

import csv
import json

import pytest
from textual.widgets import Static

from store.outputs import write_output
from store.runs import ensure_runs
from tests.protocols.calibration.calkit import JUDGES, definition, freeze, make_db, save
from workbench.cli.main import main
from workbench.protocols.calibration import PROTOCOL
from workbench.protocols.calibration.exports import export_all
from workbench.protocols.calibration.generator import generate
from workbench.protocols.calibration.importer import add_records
from workbench.protocols.calibration.records import normalise
from workbench.protocols.calibration.results import NotPreregistered, load, study_results
from workbench.protocols.calibration.sampling import p_bin, proxy_p
from workbench.protocols.calibration.section import SEED_P_GRID

STUDY = '''name = "cal-drift"
protocol = "calibration"

[model]
name = "mock"
seed = 5

[[judges]]
name = "a"
model = "mock"

[[judges]]
name = "b"
model = "mock"

[[judges]]
name = "c"
model = "mock"

[calibration]
k = {k}
ece_threshold = {ece}
per_bin = 10
judge_retries = 0

[calibration.generator]
per_bin = 10
seed = 9
'''


def batch(capsys, db, *argv) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["--batch", "--db", str(db), *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_no_metric_before_the_freeze_and_no_redefinition_after(tmp_path, capsys):
    db, path = tmp_path / "store.db", tmp_path / "cal-drift.toml"
    path.write_text(STUDY.format(k=1.0, ece=0.05), encoding="utf-8")
    assert batch(capsys, db, "study", "create", str(path))[0] == 0
    for argv in (["metrics", "cal-drift"], ["report", "cal-drift", "--out", str(tmp_path / "r.md")],
                 ["calibration", "export", "cal-drift", "--out", str(tmp_path / "x")],
                 ["export", "table", "cal-drift", "--out", str(tmp_path / "x")]):   # issue 42: was a traceback
        code, out, err = batch(capsys, db, *argv)
        assert code == 1 and "not frozen" in err and "study freeze cal-drift" in err, (argv, err)
        assert "ECE" not in out + err and "Traceback" not in err
    assert not (tmp_path / "r.md").exists() and not (tmp_path / "x").exists()
    # nothing was shown, so the definition may still change
    path.write_text(STUDY.format(k=2.0, ece=0.05), encoding="utf-8")
    assert batch(capsys, db, "study", "create", str(path))[0] == 0
    assert batch(capsys, db, "study", "freeze", "cal-drift")[0] == 0
    code, out, _ = batch(capsys, db, "--json", "metrics", "cal-drift")
    assert code == 0
    shown = json.loads(out)
    shown = shown.get("document", shown)
    assert shown["arm_a"]["k"] == 2.0 and shown["arm_a"]["ece_threshold"] == 0.05
    # after the numbers were seen: another k and ece_threshold are refused, the definition stays
    path.write_text(STUDY.format(k=1.0, ece=0.1), encoding="utf-8")
    code, _, err = batch(capsys, db, "study", "create", str(path))
    assert code == 1 and "frozen" in err and "calibration.k" in err and "calibration.ece_threshold" in err
    code, out, _ = batch(capsys, db, "--json", "metrics", "cal-drift")
    again = json.loads(out)
    again = again.get("document", again)
    assert (again["arm_a"]["k"], again["arm_a"]["ece_threshold"]) == (2.0, 0.05)
    assert again["arm_a"]["calibration"]["ece"] == shown["arm_a"]["calibration"]["ece"]


async def test_the_results_panel_of_an_unfrozen_study_says_so(tmp_path):
    from screens.calibration.results_screen import CalibrationResultsScreen
    from tests.protocols.calibration.test_calibration_screens import Host, settle

    db, _ = make_db(tmp_path)
    sid = save(db, definition("cal-open"))
    with pytest.raises(NotPreregistered):
        study_results(db, sid)
    app = Host(lambda: CalibrationResultsScreen(db, sid))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        text = str(app.screen.query_one("#cal-outcome", Static).render())
        assert "not frozen" in text and app.screen.document is None


def _generated(tmp_path, name: str, section: dict):
    db, _ = make_db(tmp_path)
    d = definition(name, section=section)
    sid = save(db, d)
    PROTOCOL.load_items(db, sid, d)
    return db, freeze(db, sid)


def test_sample_sizes_are_counted_from_the_data_with_the_seeds_minimums_as_warnings(tmp_path):
    db, sid = _generated(tmp_path, "cal-small", {"generator": {"per_bin": 10, "seed": 3}})   # 60 interactions
    doc = study_results(db, sid)
    n = doc["sample_sizes"]
    assert n["arm_a"]["interactions"] == 60 and n["arm_a"]["per_bin"] == [10] * 6
    assert n["arm_b"]["sampled"] == 0 and n["arm_b"]["preregistered"] == 1000
    prereg = next(s.body for s in PROTOCOL.report_sections(db, sid) if s.title == "Pre-registration")
    assert "Arm A: 60 interaction(s); per reliability bin [10, 10, 10, 10, 10, 10]" in prereg
    assert ("WARNING: Arm A: 6 of the 6 non-empty reliability bin(s) hold fewer than the seed's 500 interactions "
            "(smallest: 10)") in prereg
    assert "WARNING: Arm B: undefined: no interaction was scored (0 sampled, 0 judge run(s) failed)" in prereg
    assert "WARNING: Arm B: 0 interaction(s) judged of the 1000 pre-registered (0 sampled, 60 accepted" in prereg
    # the settings are printed as what was pre-registered, never as what the data holds
    assert "pre-registered 500 per grid value" in prereg and "Arm B sample: 1000 pre-registered" in prereg
    assert ("Arm B: 0 (undefined) interaction(s) judged (scored by at least one judge) of 0 sampled and 60 "
            "accepted (the seed asks ≥ 1000)") in prereg


def _judged(db, sid: str, picks: list[str], judges: list[str], score_of) -> None:
    """A judge run per pick and judge, its output a score (score_of → float) or a judge error (→ None)."""
    ensure_runs(db, sid, [{"id": f"{i}/{j}", "case_id": i, "condition": j, "replicate": 0} for i in picks
                          for j in judges])
    for i in picks:
        for j in judges:
            s = score_of(i, j)
            write_output(db, f"{i}/{j}", str(s), {"judge": j, "score": s, "judge_error": s is None,
                                                  "run_id": i.split(":")[0], "interaction_id": i.split(":")[1]})


def test_sample_sizes_count_what_was_scored_not_what_was_sampled(tmp_path):
    """Issue 42 item 2: every judge call failed, so nothing was judged: the section says undefined, not "60"."""
    db, sid = _generated(tmp_path, "cal-failed", {"generator": {"per_bin": 2, "seed": 3}})
    picks = [i.id for i in load(db, sid).interactions]
    judges = list(JUDGES)
    _judged(db, sid, picks, judges, lambda i, j: None)
    n = study_results(db, sid)["sample_sizes"]
    assert (n["arm_b"]["sampled"], n["arm_b"]["judged"], n["arm_c"]["items_scored_by_two_or_more"]) == (12, 0, 0)
    prereg = next(s.body for s in PROTOCOL.report_sections(db, sid) if s.title == "Pre-registration")
    assert "- Arm B: 0 (undefined) interaction(s) judged (scored by at least one judge) of 12 sampled" in prereg
    assert "- Arm C: 0 (undefined) interaction(s) scored by two or more judges" in prereg
    assert "WARNING: Arm B: undefined: no interaction was scored (12 sampled, 36 judge run(s) failed)" in prereg
    assert "WARNING: Arm C: undefined: no interaction was scored by two or more judges" in prereg
    # one judge scores the first four, a second the first two: 4 judged, 2 by two or more, each below the seed
    _judged(db, sid, picks[:4], judges[:1], lambda i, j: 0.5)
    _judged(db, sid, picks[:2], judges[1:2], lambda i, j: 0.6)
    n = study_results(db, sid)["sample_sizes"]
    assert (n["arm_b"]["judged"], n["arm_c"]["items_scored_by_two_or_more"]) == (4, 2)
    assert "Arm C: 2 interaction(s) scored by two or more judges, below the seed's 1000" in " ".join(n["warnings"])


def test_big_enough_data_gives_no_sample_warning(tmp_path):
    db, sid = _generated(tmp_path, "cal-big", {"generator": {"per_bin": 500, "seed": 3}})
    n = study_results(db, sid)["sample_sizes"]
    assert n["arm_a"]["per_bin"] == [500] * 6 and n["arm_a"]["bins_below_seed"] == 0
    assert not any(w.startswith("Arm A") for w in n["warnings"])


@pytest.mark.parametrize("section, flag", [
    ({"alpha_threshold": 0.4}, "α thresholds 0.4 / 0.7 differ from the seed's 0.5 / 0.7"),
    ({"strong_alpha": 0.8}, "α thresholds 0.5 / 0.8 differ from the seed's 0.5 / 0.7"),
    ({"excluded_fields": []}, "no excluded fields: the judges' prompts are not checked"),
    ({"excluded_fields": ["rework_count"]}, "the seed's excluded field(s) task_progress_delta, verifier_rejections, tool_misuse_flags, "
                                            "counterparty_engagement_delta are not excluded"),
    ({"n_bins": 10, "strata_bins": 5}, "p grid value(s) 0.2, 0.4, 0.6, 0.8 lie on an edge of the 5 `strata_bins`"),
])
def test_departures_from_the_seed_are_flagged_in_the_report(tmp_path, section, flag):
    db, sid = _generated(tmp_path, "cal-flag", {**section, "generator": {"per_bin": 5, "seed": 1}})
    prereg = next(s.body for s in PROTOCOL.report_sections(db, sid) if s.title == "Pre-registration")
    assert f"FLAG: {flag}" in prereg


def test_the_seeds_values_raise_no_flag(tmp_path):
    db, sid = _generated(tmp_path, "cal-seed", {"generator": {"per_bin": 5, "seed": 1}})
    assert study_results(db, sid)["preregistration"]["flags"] == []


def test_default_bins_hold_every_grid_value_off_the_edges():
    """Every reliability bin and every p bin of the sample gets generated interactions: none is always empty."""
    defaults = definition("cal-bins")["calibration"]
    ps = [proxy_p(r["v_hat"], 1.0) for r in generate(per_bin=2, seed=1)]
    for key in ("n_bins", "strata_bins"):
        n = defaults[key]
        assert {p_bin(p, n) for p in ps} == set(range(n)), key
        assert all(abs(q * n - round(q * n)) > 0.1 for q in SEED_P_GRID)     # far from an edge, not by rounding


def test_panel_verdict_is_the_studys_outcome(tmp_path):
    """A miscalibrated proxy (k_true = 2) with agreeing judges: the outcome is "p poorly calibrated"; α alone
    (≥ 0.7) would have called the panel "strong", and the joined CSV used to say so."""
    db, _ = make_db(tmp_path)
    d = definition("cal-verdict", section={"generator": {"per_bin": 200, "seed": 4, "k_true": 2.0}})
    sid = save(db, d)
    PROTOCOL.load_items(db, sid, d)
    freeze(db, sid)
    picks = ["baseline-01:i000000", "baseline-02:i000201", "baseline-03:i000402", "baseline-04:i000603",
             "baseline-01:i000804", "baseline-02:i001005"]
    scores = [[0.1, 0.12, 0.1], [0.3, 0.3, 0.33], [0.5, 0.52, 0.5], [0.6, 0.6, 0.62], [0.8, 0.82, 0.8],
              [0.9, 0.9, 0.93]]
    judges = [j["name"] for j in d["judges"]]
    ensure_runs(db, sid, [{"id": f"{i}/{j}", "case_id": i, "condition": j, "replicate": 0} for i in picks
                          for j in judges])
    for i, row in zip(picks, scores):
        for j, s in zip(judges, row):
            write_output(db, f"{i}/{j}", str(s), {"judge": j, "score": s, "judge_error": False,
                                                  "run_id": i.split(":")[0], "interaction_id": i.split(":")[1]})
    out = export_all(db, sid, tmp_path / "out")
    doc = out["document"]
    assert doc["outcome"]["holds"] == "poorly_calibrated" and doc["arm_c"]["verdict"] == "strong"
    with open(f"{out['judge']}/joined.csv", encoding="utf-8") as f:
        verdicts = {r["panel_verdict"] for r in csv.DictReader(f)}
    assert verdicts == {"poorly_calibrated"}


def test_no_outcome_is_written_as_none(tmp_path):
    from workbench.protocols.calibration.exports import panel_verdict

    assert panel_verdict({"holds": None}) == "none" and panel_verdict({"holds": "strong"}) == "strong"


def test_arm_a_bin_labels_show_the_real_edges(tmp_path):
    """Issue 42 item 11: with six bins the edges are sixths; "[0.7, 0.8)" held a mean p of 0.800."""
    db, sid = _generated(tmp_path, "cal-edges", {"generator": {"per_bin": 5, "seed": 1}})
    arm_a = next(s.body for s in PROTOCOL.report_sections(db, sid) if s.title == "Arm A — proxy fidelity")
    assert "| [0.667, 0.833) |" in arm_a and "| [0.833, 1] |" in arm_a and "| [0, 0.167) |" in arm_a
    assert "[0.7, 0.8)" not in arm_a
    from workbench.protocols.calibration.report import csv_rows

    groups = {r["group"] for r in csv_rows(study_results(db, sid))[1] if r["statistic"] == "frequency_positive"}
    assert "[0.667, 0.833)" in groups
