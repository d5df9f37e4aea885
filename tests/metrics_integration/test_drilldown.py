"""Every drill-down reference the rendered tables carry leads to the items behind the number."""

from __future__ import annotations

import pytest

from tests.metrics_integration.conftest import FakeEmbedder, G, H
from workbench.protocols.hindsight.metrics.analysis import analyze
from workbench.protocols.hindsight.metrics.drilldown import dq_group_drilldown, drilldown
from workbench.metrics.render import DrillRef
from workbench.protocols.hindsight.metrics.render import analysis_tables
from workbench.protocols.hindsight.metrics.study_data import load_study_data


@pytest.fixture
def analysis(seeded):
    return analyze(load_study_data(seeded[0], "seeded-study"), embedder=FakeEmbedder())


def test_every_reference_resolves(analysis):
    seen = set()
    for table in analysis_tables(analysis):
        for ref in table.refs.values():
            if ref.kind in ("none", "calibration"):
                continue
            detail = dq_group_drilldown(analysis, *ref.args) if ref.kind == "dq_group" \
                else drilldown(analysis.data, ref)
            assert detail.columns and detail.title
            seen.add(ref.kind)
    assert seen >= {"condition_cell", "effect", "agreement", "judge", "judge_errors", "audit", "topology",
                    "dq_group"}


def test_drilldowns_list_the_right_items(analysis, seeded):
    s = seeded[2]
    errors = drilldown(analysis.data, DrillRef("judge_errors", ("judge-b", "C2")))
    assert [r[0] for r in errors.rows] == [s.item_ids[(G, "C2", 0)]]
    audit = drilldown(analysis.data, DrillRef("audit", ("P1",)))
    assert len(audit.rows) == 9 and all(r[-1] == "yes" for r in audit.rows)
    topo = drilldown(analysis.data, DrillRef("topology", (H,)))
    assert [r[2] for r in topo.rows] == ["0", "1", "2"]
    agree = drilldown(analysis.data, DrillRef("agreement", ("epistemic-humility",)))
    assert len(agree.rows) == 26  # the undone cell leaves one item with a single rater
    runs = dq_group_drilldown(analysis, "B3")
    assert len(runs.rows) == 3 and {r[4] for r in runs.rows} == {"sequential"}


def test_blinded_drilldowns_refuse_conditions_and_hide_values(blinded):
    analysis = analyze(load_study_data(blinded[0], "seeded-study"), embedder=FakeEmbedder())
    with pytest.raises(ValueError, match="blinded"):
        drilldown(analysis.data, DrillRef("condition_cell", ("C2", "anticipation")))
    with pytest.raises(ValueError, match="blinded"):
        dq_group_drilldown(analysis, "all")
    detail = drilldown(analysis.data, DrillRef("judge", ("judge-b", "anticipation")))
    assert detail.columns == ["Item", "Case", "Raters who scored", "Judges ok", "Judge errors"]
    assert sum(int(r[4]) for r in detail.rows) == 1
