"""Issue 15: the hindsight report reads like a paper's appendix — settings as a table of words, Tables 1-4
as headings that say they are hidden while blinded, notes as one paragraph under each table — and is
written with ordinary permissions (owner-only only when it holds sealed data)."""

from __future__ import annotations

import os
import re

from tests.metrics_integration.conftest import FakeEmbedder
from workbench.protocols.hindsight.metrics.analysis import analyze
from workbench.protocols.hindsight.metrics.render import analysis_tables
from workbench.protocols.hindsight.metrics.study_data import load_study_data
from workbench.protocols.hindsight.report import HIDDEN_NOTE, build_report

CONDITION_ID = re.compile(r"\b(B1|B2|B3|C1|C2|C3|P1)\b")


def _report(db) -> tuple[str, object]:
    analysis = analyze(load_study_data(db, "seeded-study"), embedder=FakeEmbedder())
    return build_report(analysis, generated_at="2026-03-01T00:00:00+00:00"), analysis


def _settings(report: str) -> list[str]:
    return report.split("## Settings", 1)[1].split("\n## ", 1)[0].strip().splitlines()


def test_settings_are_a_table_of_words_not_json(seeded):
    report, _ = _report(seeded[0])
    rows = _settings(report)
    assert rows[:2] == ["| Setting | Value |", "|---|---|"]
    assert not any(ch in line for line in rows[2:] for ch in "{}[]\"")  # no JSON left
    assert "| Cases | harbor-dredging-bond, glenda-crock, blast-radius |" in rows
    assert "| Architecture model | mock (max tokens 1024, seed 7, temperature 0.7) |" in rows
    assert "| LLM judge: judge-a | mock-judge-1 (pipeline direct, runs 1, temperature 0.0) |" in rows
    assert "| Threshold: kappa_anticipation | 0.7 |" in rows
    assert "| Blinding | overlap 1.0, pilot items yes, seed 11 |" in rows
    assert "| Architecture: C2 | debate rounds 2, roster a, b, c, d |" in rows
    assert any(line.startswith("| Rubric version: anticipation | `") and len(line.split("`")[1]) == 64
               for line in rows)  # the full content hash, not a prefix


def test_a_blinded_report_keeps_tables_1_to_4_as_headings_and_names_no_condition(blinded):
    report, analysis = _report(blinded[0])
    for title in ("Table 1 - Condition x metric scores", "Table 2 - Topology map",
                  "Table 3 - Specialized test scores", "Table 4 - Effect sizes"):
        assert f"### {title}\n\n{HIDDEN_NOTE}\n" in report
    assert report.index("### Table 1") < report.index("### Table 4") < report.index("## Contamination probes")
    assert not CONDITION_ID.findall(report)
    assert "| Architecture model | hidden until unblinding |" in report


def test_an_unblinded_report_has_the_tables_themselves(seeded):
    report, _ = _report(seeded[0])
    assert HIDDEN_NOTE not in report
    assert "### Table 1 - Condition x metric scores - human raters\n\n| Condition |" in report


def test_notes_are_one_compact_paragraph_under_each_table(seeded):
    report, analysis = _report(seeded[0])
    assert "\n\n\n" not in report
    for table in analysis_tables(analysis):
        if table.notes:
            paragraphs = [line for line in report.splitlines() if line.startswith("*Note.* ")]
            assert any(all(n in p for n in table.notes) for p in paragraphs), table.id  # all in one paragraph
    assert not any(line.startswith("- Unit:") for line in report.splitlines())


def test_a_report_is_written_readable_like_any_file_and_owner_only_when_sealed(seeded, tmp_path):
    from workbench.files import write_text

    _, analysis = _report(seeded[0])
    old = os.umask(0o022)
    try:
        path = write_text(tmp_path / "report.md", build_report(analysis))
        sealed = write_text(tmp_path / "key.md", "sealed key\n", sealed=True)
    finally:
        os.umask(old)
    assert oct(path.stat().st_mode & 0o777) == oct(0o644)
    assert oct(sealed.stat().st_mode & 0o777) == oct(0o600)
