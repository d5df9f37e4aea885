"""The batch contract of metrics and report: text, JSON, CSV, the markdown report; blinded and forced studies."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest

from tests.metrics_integration.conftest import FakeEmbedder
from workbench.cli.main import main
from workbench.protocols.hindsight.metrics.analysis import analyze
from workbench.protocols.hindsight.metrics.export import CSV_COLUMNS, long_rows
from workbench.metrics.render import FORCED_TAG, tables_text
from workbench.protocols.hindsight.metrics.render import analysis_tables
from workbench.protocols.hindsight.metrics.study_data import load_study_data
from workbench.protocols.hindsight.report import build_report

CONDITION_ID = re.compile(r"\b(B1|B2|B3|C1|C2|C3|P1)\b")


def run_cli(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def trace(db):
    statements: list[str] = []
    db.conn.set_trace_callback(statements.append)
    return statements


def test_blinded_study_never_reads_the_key_and_shows_no_condition(blinded):
    db, _, s = blinded
    statements = trace(db)
    data = load_study_data(db, "seeded-study")
    db.conn.set_trace_callback(None)
    sql = "\n".join(statements).lower()
    assert "blind_key" not in sql and "topology" not in sql and "guess" not in sql
    assert "condition" not in sql  # runs are read without their condition
    assert all(i.condition is None and i.run_id is None for i in data.items.values())
    analysis = analyze(data, embedder=FakeEmbedder())
    report = build_report(analysis)
    text = tables_text(analysis_tables(analysis))
    doc = json.dumps(analysis.to_dict())
    for output in (report, text, doc):
        assert not CONDITION_ID.findall(output)
        assert "blinded: conditions hidden" in output
        assert not any(rid in output for rid in s.run_ids.values())
    # Every rendered table says it is blinded.
    assert all("blinded: conditions hidden" in t.title for t in analysis_tables(analysis))
    assert analysis.table1 is None and analysis.overall is not None
    # The architecture model is not named either.
    assert "hidden until unblinding" in report


def test_store_refuses_condition_reads_while_blinded(blinded):
    from store import metrics_data as q

    with pytest.raises(q.BlindedStudy):
        q.unblinded_key(blinded[0], "seeded-study")
    with pytest.raises(q.BlindedStudy):
        q.study_runs(blinded[0], "seeded-study", with_conditions=True)


def test_forced_unblinding_is_marked_on_every_table(forced):
    analysis = analyze(load_study_data(forced[0], "seeded-study"), embedder=FakeEmbedder())
    tables = analysis_tables(analysis)
    assert tables and all(FORCED_TAG in t.title for t in tables)
    report = build_report(analysis)
    assert report.count(FORCED_TAG) >= len(tables) and "FORCED UNBLINDING" in report.splitlines()[0]
    doc = analysis.to_dict()
    assert doc["study"]["forced_unblinding"] is True
    assert {r["unblinding"] for r in long_rows(analysis.data)} == {"forced"}
    for key in ("table1", "table2", "table3", "table4"):
        assert doc[key]["forced_unblinding"] is True


def test_csv_columns_and_rows(seeded):
    data = load_study_data(seeded[0], "seeded-study")
    rows = long_rows(data)
    spec = seeded[2].spec
    human = sum(1 for v in spec.human.values() if v is not None) + len(spec.pilot_scores)
    assert len(rows) == human + len(spec.judge)
    assert list(rows[0]) == list(CSV_COLUMNS)
    errors = [r for r in rows if r["status"] == "judge_error"]
    assert len(errors) == 2 and all(r["value"] == "" for r in errors)
    assert {r["condition"] for r in rows if r["pilot"] == "0"} == {"B1", "B2", "B3", "C1", "C2", "C3", "P1"}
    edited = [r for r in rows if r["evaluator"] == "rater-a" and r["item_id"] == seeded[2].item_ids[
        ("harbor-dredging-bond", "B1", 0)] and r["criterion"] == "anticipation"]
    assert [r["value"] for r in edited] == ["0"]


def test_cli_metrics_text_json_csv(seeded, capsys, tmp_path):
    _, path, _ = seeded
    code, out, err = run_cli(capsys, "--batch", "--db", str(path), "metrics", "seeded-study", "--no-dq",
                             "--compare", "C1:B1:eh")
    assert code == 0 and "Table 1 - Condition x metric scores" in out and "C1 vs. B1 *" in out
    code, out, err = run_cli(capsys, "--batch", "--db", str(path), "--json", "metrics", "seeded-study", "--no-dq")
    assert code == 0
    doc = json.loads(out)  # one JSON document, nothing else on stdout
    cell = doc["table1"]["rows"][0]["cells"]["anticipation"]["estimate"]
    assert set(cell) >= {"value", "ci_low", "ci_high", "n", "method", "undefined_reason"}
    # The subcommand's own --json works too.
    code, out2, _ = run_cli(capsys, "--batch", "--db", str(path), "metrics", "seeded-study", "--no-dq", "--json")
    assert code == 0 and json.loads(out2)["table1"] == doc["table1"]
    code, out, err = run_cli(capsys, "--batch", "--db", str(path), "metrics", "seeded-study", "--csv")
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == 214 + 3 + 108  # human cells, 3 pilot scores, verdicts (2 of them judge_errors)
    assert tuple(rows[0]) == CSV_COLUMNS
    out_file = tmp_path / "scores.csv"
    code, _, err = run_cli(capsys, "--batch", "--db", str(path), "metrics", "seeded-study", "--csv",
                           "--out", str(out_file))
    assert code == 0 and out_file.read_text().count("\n") == len(rows) + 1


def test_cli_errors_and_exit_codes(seeded, capsys):
    _, path, _ = seeded
    code, out, err = run_cli(capsys, "--batch", "--db", str(path), "metrics", "no-such-study")
    assert code == 1 and "no study 'no-such-study'" in err
    code, out, err = run_cli(capsys, "--batch", "--db", str(path), "metrics", "seeded-study", "--compare", "Z9:B1:ant")
    assert code == 1 and "condition Z9 is not in study" in err
    code, out, err = run_cli(capsys, "--batch", "--db", str(path), "metrics", "seeded-study",
                             "--compare", "C1:B1:charisma", "--no-dq")
    assert code == 1 and "unknown metric 'charisma'" in err
    with pytest.raises(SystemExit) as exc:
        main(["--batch", "--db", str(path), "metrics", "seeded-study", "--compare", "C1/B1"])
    assert exc.value.code == 2
    code, out, err = run_cli(capsys, "--batch", "--db", str(path), "--json", "metrics", "seeded-study", "--csv")
    assert code == 2
    code, out, err = run_cli(capsys, "--batch", "--db", str(path), "metrics", "seeded-study",
                             "--record-concerns", "x.csv")
    assert code == 2 and "--rater" in err


def test_cli_blinded_outputs_hide_conditions(blinded, capsys):
    _, path, _ = blinded
    code, out, _ = run_cli(capsys, "--batch", "--db", str(path), "metrics", "seeded-study", "--no-dq")
    assert code == 0 and not CONDITION_ID.findall(out) and "blinded: conditions hidden" in out
    code, out, err = run_cli(capsys, "--batch", "--db", str(path), "metrics", "seeded-study", "--csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert rows and all(r["condition"] == "" and r["replicate"] == "" and r["unblinding"] == "blinded"
                        for r in rows)
    assert "blinded" in err
    code, out, err = run_cli(capsys, "--batch", "--db", str(path), "metrics", "seeded-study", "--compare", "C1:B1:ant")
    assert code == 1 and "blinded" in err


def test_cli_report(seeded, capsys, tmp_path):
    _, path, _ = seeded
    target = tmp_path / "out" / "report.md"
    code, out, err = run_cli(capsys, "--batch", "--db", str(path), "--json", "report", "seeded-study",
                             "--out", str(target), "--no-dq", "--compare", "C1:B1:ant")
    assert code == 0 and json.loads(out)["out"] == str(target)
    text = target.read_text()
    for needle in ("# Study report: seeded-study", "f" * 64, "### Table 1", "### Table 2", "### Table 3",
                   "### Table 4", "Inter-rater agreement", "Human vs LLM-judge", "Blindness audit",
                   "Contamination probes", "## Settings", "kappa_anticipation", "## Definitions",
                   "C1 vs. B1 *", "Calibration of judge scores"):
        assert needle in text, needle
    with pytest.raises(SystemExit) as exc:
        main(["--batch", "--db", str(path), "report", "seeded-study"])  # --out is required
    assert exc.value.code == 2


def test_report_numbers_are_the_tables_numbers(seeded):
    analysis = analyze(load_study_data(seeded[0], "seeded-study"), embedder=FakeEmbedder())
    report = build_report(analysis)
    for table in analysis_tables(analysis):
        for row in table.rows:
            assert "| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" in report


def test_n_cases_per_metric_when_they_differ(seeded):
    from workbench.protocols.hindsight.metrics.render import condition_table

    data = load_study_data(seeded[0], "seeded-study")
    b1_harbor = seeded[2].item_ids[("harbor-dredging-bond", "B1", 0)]
    data.scores = [s for s in data.scores if not (s.item_id == b1_harbor and s.rubric_id == "epistemic-humility")]
    analysis = analyze(data, include_dq=False)
    rendered = condition_table(analysis, analysis.table1)
    assert rendered.rows[0][0].startswith("B1") and rendered.rows[0][-1] == "3 / 2"
    assert rendered.rows[1][-1] == "3"
    assert any("in column order" in n for n in rendered.notes)
