"""Issue 41: an instrument's flag travels into every table its reading would have entered.

- Hindsight: a B3 run whose reply is flagged unsplit (no layout read, or a count other than the prompt asked for)
  is left out of DQ-1, DQ-2 and the sequential baseline, and every DQ table says how many, in the one rendering
  the Metrics tab draws, batch `metrics` prints (text) and the report writes (Markdown).
- Faultline: a repeated debate whose crux equivalence is flagged is marked in every table with a CR cell (by
  condition, by divergence, the comparisons), counted, and the tables say what the mark means.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from workbench.metrics.ratings import RunInfo
from workbench.metrics.render import tables_text
from workbench.protocols.hindsight.metrics.analysis import analyze
from workbench.protocols.hindsight.metrics.render import analysis_tables
from workbench.protocols.hindsight.metrics.study_data import CaseInfo, Perspective, StudyData
from workbench.protocols.hindsight.report import _table_markdown

DQ_TABLES = {"dq", "dq_spread", "dq_baseline"}


class FakeEmbedder:
    """One unit vector per distinct text (what is under test is where the flag goes, not the embeddings)."""

    model = "fake"
    encoded_count = 0

    def embed(self, texts):
        v = np.array([np.random.default_rng(int(hashlib.sha256(t.encode()).hexdigest()[:8], 16)).normal(size=32)
                      for t in texts])
        return v / np.linalg.norm(v, axis=1, keepdims=True)


def b3_study(blinded: bool = False) -> StudyData:
    """Two cases; B3's run on case a is flagged unsplit, its run on b split into three; C1 gives five each."""
    data = StudyData("s", "s", "hindsight", {"conditions": ["B3", "C1"], "cases": ["a", "b"]}, blinded)
    for case in "ab":
        data.cases[case] = CaseInfo(case, case, "historical", "medium", None, None)

    def run(rid, case, condition, texts, parallel=False, unsplit=False):
        data.runs[rid] = RunInfo(rid, case, "done", condition, 0)
        for i, text in enumerate(texts):
            data.perspectives.append(Perspective(rid, len(data.perspectives) + 1, text, 1 if parallel else i + 1,
                                                 parallel, f"m{i}" if parallel else None, unsplit))

    run("b3-a", "a", "B3", ["## Law\nCoercion.\n## Money\nFunders.\n## Verdict\nResist."], unsplit=True)
    run("b3-b", "b", "B3", ["The legal view.", "The funders' view.", "The mission's view."])
    for case in "ab":
        run(f"c1-{case}", case, "C1", [f"Respondent {i} on {case}." for i in range(5)], parallel=True)
    return data


@pytest.fixture(scope="module")
def tables():
    analysis = analyze(b3_study(), embedder=FakeEmbedder())
    return analysis, {t.id: t for t in analysis_tables(analysis)}


def test_a_flagged_b3_run_is_left_out_of_dq1_dq2_and_the_sequential_baseline(tables):
    analysis, _ = tables
    dq = analysis.dq
    flagged = next(r for r in dq.runs if r.run_id == "b3-a")
    split = next(r for r in dq.runs if r.run_id == "b3-b")
    assert flagged.unsplit and flagged.n_perspectives == 0 and not flagged.dq1.defined and not flagged.dq2.defined
    b3 = next(r for r in dq.rows if r.group == "B3")
    assert b3.n_runs == 2 and b3.unsplit == 1
    assert b3.parts["dq1"].value == pytest.approx(split.dq1.value) and b3.parts["dq1"].n == 1  # one case, not two
    assert b3.parts["dq2"].value == pytest.approx(split.dq2.value)
    assert [dq.baseline[p].sequential.n for p in ("dq1", "dq2")] == [1, 1]   # the baseline's B3 side: one case


def test_every_dq_table_says_how_many_runs_were_flagged_in_every_front_end(tables):
    _, by_key = tables
    assert DQ_TABLES <= set(by_key)
    said = "FLAGGED: 1 run(s) (B3 1) whose reply could not be split into the perspectives the prompt asked for"
    for key in DQ_TABLES:
        table = by_key[key]
        assert any(n.startswith(said) for n in table.notes), key          # the Metrics tab draws these notes
        assert said in tables_text([table]), key                            # batch `metrics`
        assert said in _table_markdown(table), key                         # the report
    assert not any("FLAGGED" in n for k, t in by_key.items() if k not in DQ_TABLES for n in t.notes)


def test_while_blinded_the_count_is_given_without_naming_a_condition():
    analysis = analyze(b3_study(blinded=True), embedder=FakeEmbedder())
    notes = [n for t in analysis_tables(analysis) if t.id in DQ_TABLES for n in t.notes if "FLAGGED" in n]
    assert notes and all(n.startswith("FLAGGED: 1 run(s) whose reply") and "B3" not in n for n in notes)
    assert analysis.to_dict()["decision_quality"]["unsplit_note"] == notes[0]


# --- faultline ----------------------------------------------------------------------------------------------

def crux_fixture():
    """The comparisons tests' per-debate values, each defined CR with the clusters it counted."""
    from tests.protocols.faultline.test_faultline_comparisons import fixture

    docs, cr = fixture()
    for g in cr:
        g["details"] = {"stable": 1, "clusters": 3, "noise": 2, "questions": 8}
    return docs, cr


@pytest.fixture(scope="module")
def faultline_doc():
    from tests.protocols.faultline.test_faultline_comparisons import CONDITIONS
    from workbench.protocols.faultline.analysis import summarise

    return summarise(*crux_fixture(), CONDITIONS)


def sections_of(doc) -> dict[str, str]:
    from workbench.protocols.faultline.report import sections

    return {s.title: s.body for s in sections(doc)}


@pytest.fixture(scope="module")
def faultline_sections(faultline_doc):
    assert not any("⚑" in body for body in sections_of(faultline_doc).values())   # nothing flagged: no mark
    for g in faultline_doc["crux_recurrence"]:   # graph-20's first repeated debate (low divergence) flagged
        if (g["condition"], g["item"]) == ("graph-20", "t0"):
            g.update(flagged=True, flag_reason="a recurring crux joins opposite directions")
    return sections_of(faultline_doc)


def _row(body: str, first_cell: str) -> str:
    return next(line for line in body.splitlines() if line.startswith(f"| {first_cell} "))


def test_a_flagged_cr_is_marked_in_the_condition_table_and_counted(faultline_sections):
    body = faultline_sections["Faultline metrics by condition"]
    assert "⚑ 1 of 6 flagged" in _row(body, "graph-20").split(" | ")[5]   # the CR cell, and only there
    assert "⚑" not in _row(body, "graph-20").split(" | ")[4] and "⚑" not in _row(body, "plain")
    assert "⚑ 1 of 30 repeated debate(s) have a flagged CR" in body


def test_a_flagged_cr_is_marked_in_the_divergence_table(faultline_sections):
    body = faultline_sections["Faultline metrics by initial divergence"]
    assert "⚑ 1 of 10 flagged" in _row(body, "low") and "⚑" not in _row(body, "high")
    assert "have a flagged CR" in body


def test_a_flagged_cr_is_marked_on_every_comparison_of_cr_it_enters(faultline_sections):
    body = faultline_sections["Faultline condition comparisons"]
    assert "⚑ 1 of 12 flagged" in _row(body, "CR: graph-20 − plain")      # graph-20's six and plain's six
    assert "⚑" not in _row(body, "BA: graph-20 − plain") and "⚑" not in _row(body, "CR: qbaf − plain")
    assert "⚑ 1 of 20 flagged" in _row(body, "CR: medium − low divergence")
    assert "⚑" not in _row(body, "CR: high − medium divergence")
    assert "have a flagged CR" in body


def test_a_flagged_cr_carries_its_reason_in_the_csv_rows(faultline_sections, faultline_doc):
    from workbench.protocols.faultline.analysis import CSV_COLUMNS, csv_rows

    rows = csv_rows(faultline_doc)
    assert all(list(r) == CSV_COLUMNS for r in rows)
    flagged = [(r["metric"], r["condition"], r["item"], r["flag"]) for r in rows if r["flag"]]
    assert flagged == [("CR", "graph-20", "t0", "a recurring crux joins opposite directions")]
