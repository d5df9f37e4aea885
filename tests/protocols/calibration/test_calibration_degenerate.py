"""Degenerate judges are named (issue 25 item 6): a judge with zero variance, and judges that are one model, are
stated in the metrics and the report with their consequence, and every "—" says why. The panel's replies are
real SmolLM2 bytes, one per judge, served for every item (tests/fixtures/real_replies/calibration-constant-judges.json
says how); the statistics are checked
against independent references (scipy, the krippendorff package, ICC(2,1) from its mean squares)."""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path

import krippendorff
import numpy as np
import pytest
from scipy.stats import spearmanr

from tests.protocols.calibration import calkit
from tests.protocols.calibration.calkit import definition, freeze, make_db, save
from tests.support import real_replies
from tests.support.loopback import DUMMY_KEY, LoopbackServer
from workbench.cli.main import main
from workbench.protocols.calibration.report import sections, text_summary
from workbench.protocols.calibration.results import study_results

PANEL = real_replies.load("calibration-constant-judges")
BY_TEMPERATURE = {j["temperature"]: j["content"] for j in PANEL["judges"]}


def reply(body: dict) -> str:
    return BY_TEMPERATURE[float(body.get("temperature", 0.0))]


def study_file(tmp_path: Path, url: str) -> Path:
    judges = [{"name": j["name"], "model": j["model"], "api_base": url, "temperature": j["temperature"]}
              for j in PANEL["judges"]]
    return calkit.study_file(tmp_path, "cal-constant", judges, sample_size=PANEL["items"])


def icc_2_1(x: np.ndarray) -> float:
    """Shrout & Fleiss ICC(2,1) from the two-way ANOVA mean squares (items × judges, complete)."""
    n, k = x.shape
    grand = x.mean()
    msr = k * ((x.mean(axis=1) - grand) ** 2).sum() / (n - 1)
    msc = n * ((x.mean(axis=0) - grand) ** 2).sum() / (k - 1)
    sse = ((x - x.mean(axis=1, keepdims=True) - x.mean(axis=0, keepdims=True) + grand) ** 2).sum()
    mse = sse / ((n - 1) * (k - 1))
    return (msr - mse) / (msr + (k - 1) * mse + k * (msc - mse) / n)


@pytest.fixture
def constant_panel(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", DUMMY_KEY)
    db = str(tmp_path / "store.db")
    with LoopbackServer(reply) as server:
        path = study_file(tmp_path, server.url)
        assert main(["--batch", "--db", db, "study", "create", str(path)]) == 0
        assert main(["--batch", "--db", db, "run", "cal-constant"]) == 0
        assert server.count == 3 * PANEL["items"]
        url = server.url
    capsys.readouterr()
    assert main(["--batch", "--db", db, "--json", "metrics", "cal-constant"]) == 0
    doc = json.loads(capsys.readouterr().out)
    doc = doc.get("document", doc)
    assert main(["--batch", "--db", db, "metrics", "cal-constant"]) == 0
    text = capsys.readouterr().out
    report = tmp_path / "report.md"
    assert main(["--batch", "--db", db, "report", "cal-constant", "--out", str(report)]) == 0
    return doc, text, report.read_text(encoding="utf-8"), url


def test_constant_judges_on_one_model_are_named_with_their_consequences(constant_panel):
    doc, text, report, url = constant_panel
    c = doc["arm_c"]
    assert doc["arm_b"]["sampled"] == PANEL["items"] == c["n_items"]
    kinds = [(d["kind"], d["judges"]) for d in c["degenerate"]]
    assert kinds == [("constant", ["judge-cold"]), ("constant", ["judge-warm"]), ("constant", ["judge-hot"]),
                     ("one_model", ["judge-cold", "judge-warm", "judge-hot"])]
    assert [d.get("value") for d in c["degenerate"][:3]] == [0.2, 0.43, 0.6]
    void = "α undefined as a test of disagreement: judges judge-cold, judge-hot and judge-warm are constant"
    assert c["alpha"]["not_a_test"] == void and c["verdict"] == "undefined"
    one_model = f"judges judge-cold, judge-warm and judge-hot are one model (openai/smollm2 at {url})"
    # the outcome no longer reads "the judges disagree (α < 0.5)"
    assert doc["outcome"]["holds"] is None
    assert doc["outcome"]["summary"].startswith("No pre-registered outcome can be decided: " + void)
    assert "are one model: the agreement among them is not independent" in doc["outcome"]["summary"]
    for where in (text, report):
        assert "Outcome: the judges disagree" not in where
        assert "judge judge-cold is constant: 0.2 on all 12 items it scored: α undefined as a test of " \
               "disagreement: judge judge-cold is constant" in where
        assert one_model + ": judges judge-cold, judge-warm and judge-hot are one model: the agreement among them " \
               "is not independent" in where
        assert "Spearman judge-cold vs judge-warm: — (judge judge-cold is constant (0.2 on all 12 items)" in where
        assert "ρ(p, judges' mean): — (the judges' mean score is constant: every judge is constant" in where


def test_every_dash_in_the_tables_carries_its_reason(constant_panel):
    doc, text, report, _ = constant_panel
    for where in (text, report):
        numbers = [line for line in where.splitlines()
                   if line.startswith("|") or re.match(r"- (Spearman|ICC|ρ|Krippendorff)", line)
                   or "interactions at k =" in line or line.startswith("k sweep")]
        assert any("—" in line for line in numbers)          # the panel does leave numbers undefined
        for line in numbers:
            for m in re.finditer("—", line):
                assert line[m.end():].startswith(" ("), line


def test_the_statistics_match_independent_references(constant_panel):
    doc, *_ = constant_panel
    c = doc["arm_c"]
    x = np.array([[0.2, 0.43, 0.6]] * PANEL["items"])            # items × judges, as the fixture answers
    assert c["alpha"]["value"] == pytest.approx(krippendorff.alpha(reliability_data=x.T,
                                                                   level_of_measurement="interval"))
    assert c["alpha"]["value"] == pytest.approx(-0.4583333)     # computed, shown, but no test of disagreement
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert np.isnan(spearmanr(x[:, 0], x[:, 1]).statistic)  # scipy: undefined too
    assert all(e["value"] is None for e in c["pairwise_spearman"].values())
    assert c["icc_2_1"]["value"] == pytest.approx(icc_2_1(x)) == 0.0
    assert "every judge is constant" in c["icc_2_1"]["note"]


def _panel_study(tmp_path, scores: dict[str, list[float]], models: dict[str, str], api_base: str = ""):
    from store.outputs import write_output
    from store.runs import ensure_runs
    from workbench.protocols.calibration.importer import add_records
    from workbench.protocols.calibration.records import normalise

    db, _ = make_db(tmp_path)
    d = definition("cal-mixed", judges=tuple(scores), models=models, api_base=api_base)
    sid = save(db, d)
    n = len(next(iter(scores.values())))
    vs = [(-2.0 + 4.0 * i / (n - 1)) for i in range(n)]
    add_records(db, sid, ((i + 1, normalise({"run_id": "base", "interaction_id": f"i{i:02d}", "scenario": "s",
                                               "v_hat": v, "ground_truth": 1, "content": f"artifact {i}"}))
                          for i, v in enumerate(vs)), source="fixture")
    ensure_runs(db, sid, [{"id": f"i{i:02d}-{j}", "case_id": f"base:i{i:02d}", "condition": j, "replicate": 0}
                          for i in range(n) for j in scores])
    for j, vals in scores.items():
        for i, s in enumerate(vals):
            write_output(db, f"i{i:02d}-{j}", str(s), {"judge": j, "score": s, "judge_error": False,
                                                      "run_id": "base", "interaction_id": f"i{i:02d}"})
    return study_results(db, freeze(db, sid))


def test_one_constant_judge_voids_alpha_and_only_its_own_correlations(tmp_path):
    a = [0.1, 0.3, 0.2, 0.5, 0.4, 0.7, 0.6, 0.9]
    b = [0.2, 0.2, 0.4, 0.4, 0.6, 0.5, 0.8, 0.9]
    doc = _panel_study(tmp_path, {"ja": a, "jb": b, "flat": [0.5] * 8},
                       {"ja": "openai/one", "jb": "openai/two", "flat": "openai/three"}, api_base="http://x/v1")
    c = doc["arm_c"]
    assert [(d["kind"], d["judges"]) for d in c["degenerate"]] == [("constant", ["flat"])]
    assert c["pairwise_spearman"]["ja vs jb"]["value"] == pytest.approx(spearmanr(a, b).statistic)
    assert "judge flat is constant" in c["pairwise_spearman"]["ja vs flat"]["undefined_reason"]
    x = np.array([a, b, [0.5] * 8])
    assert c["alpha"]["value"] == pytest.approx(krippendorff.alpha(reliability_data=x,
                                                                   level_of_measurement="interval"))
    assert c["alpha"]["not_a_test"] == "α undefined as a test of disagreement: judge flat is constant"
    assert doc["outcome"]["holds"] is None
    assert doc["arm_c"]["icc_2_1"]["value"] == pytest.approx(icc_2_1(x.T))
    assert "note" not in doc["arm_c"]["icc_2_1"]               # the items vary: ICC is defined and said nothing of


def test_two_judges_on_one_model_are_named_but_decide_as_before(tmp_path):
    a = [0.1, 0.3, 0.2, 0.5, 0.4, 0.7, 0.6, 0.9]
    b = [0.2, 0.2, 0.4, 0.4, 0.6, 0.5, 0.8, 0.9]
    c_ = [0.1, 0.4, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]
    doc = _panel_study(tmp_path, {"ja": a, "jb": b, "jc": c_},
                       {"ja": "openai/qwen", "jb": "openai/qwen", "jc": "openai/llama"}, api_base="http://x/v1/")
    found = doc["arm_c"]["degenerate"]
    assert [(d["kind"], d["judges"], d["api_base"]) for d in found] == [("one_model", ["ja", "jb"], "http://x/v1")]
    assert found[0]["consequence"] == ("judges ja and jb are one model: their agreement is not independent, so α, "
                                       "ICC(2,1) and their Spearman measure one model against itself")
    assert doc["arm_c"]["pairwise_spearman"]["ja vs jb"]["note"] == "ja and jb are one model: not independent"
    assert doc["arm_c"]["pairwise_spearman"]["ja vs jb"]["value"] == pytest.approx(spearmanr(a, b).statistic)
    alpha = krippendorff.alpha(reliability_data=np.array([a, b, c_]), level_of_measurement="interval")
    assert doc["arm_c"]["alpha"]["value"] == pytest.approx(alpha) and "not_a_test" not in doc["arm_c"]["alpha"]
    assert "Caveat: judges ja and jb are one model" in doc["outcome"]["summary"]
    body = "\n".join(s.body for s in sections(doc))
    assert "judges ja and jb are one model (openai/qwen at http://x/v1)" in body
    assert "Spearman ja vs jb: " + format(spearmanr(a, b).statistic, ".3f") + " (ja and jb are one model" in body


def test_offline_judges_are_not_one_model(tmp_path):
    doc = _panel_study(tmp_path, {"ja": [0.1, 0.5, 0.9], "jb": [0.2, 0.4, 0.8], "jc": [0.3, 0.6, 0.7]}, {})
    assert doc["arm_c"]["degenerate"] == []                  # all three "mock": not a model
    assert "Degenerate judges" not in text_summary(doc)


async def test_the_results_screen_names_them_with_the_cores_words(tmp_path):
    """The TUI reads the same definition: the degenerate judges above Arm C's table, every "—" with its reason."""
    from textual.app import App
    from textual.widgets import DataTable, Static

    from screens.calibration.results_screen import CalibrationResultsScreen
    from tests.protocols.calibration.test_calibration_screens import settle
    from workbench.protocols.calibration.report import degenerate_lines

    a = [0.1, 0.3, 0.2, 0.5, 0.4, 0.7, 0.6, 0.9]
    doc = _panel_study(tmp_path, {"ja": a, "jb": a[::-1], "flat": [0.5] * 8},
                       {"ja": "openai/qwen", "jb": "openai/qwen", "flat": "openai/other"}, api_base="http://x/v1")
    from store import open_store

    db = open_store(tmp_path / "store.db")

    class Host(App):
        def on_mount(self) -> None:
            self.push_screen(CalibrationResultsScreen(db, "cal-mixed"))

    app = Host()
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert str(screen.query_one("#cal-outcome", Static).render()).startswith(
            "No pre-registered outcome can be decided: α undefined as a test of disagreement: judge flat")
        await pilot.press("right")
        note = screen.query_one("#cal-degenerate", Static)
        assert note.display and str(note.render()).splitlines()[1:] == degenerate_lines(doc)
        rows = {r[0]: r[1] for r in (screen.query_one("#cal-agreement", DataTable).get_row_at(i)
                                     for i in range(screen.query_one("#cal-agreement", DataTable).row_count))}
        assert rows["Spearman ja vs flat"].startswith("— (judge flat is constant (0.5 on all 8 items)")
        assert rows["Spearman ja vs jb"].endswith("(ja and jb are one model: not independent)")
        assert "(α undefined as a test of disagreement: judge flat is constant)" in rows["Krippendorff α (interval)"]


def test_a_constant_panel_states_one_outcome_everywhere(constant_panel):
    """Issue 24: with constant judges no outcome is decided, and every place says that one thing: the
    Outcome sentence, Arm C's decision line and the four outcomes (none marked HOLDS), in `metrics` and
    the report alike."""
    from workbench.protocols.calibration.outcomes import outcome_lines

    doc, text, report, _ = constant_panel
    o = doc["outcome"]
    assert o["holds"] is None
    assert doc["arm_c"]["decision"].endswith("the study's outcome: no pre-registered outcome holds")
    for where in (text, report):
        assert o["summary"] in where and f"decision rule: {doc['arm_c']['decision']}" in where
        assert all(line in where for line in outcome_lines(o))
        assert "HOLDS" not in where and where.count("the strong result") == 1
