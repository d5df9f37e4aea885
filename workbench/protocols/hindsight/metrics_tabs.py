"""Hindsight's tabs in the shared Metrics section: its analysis's rendered tables (the ones `metrics` and the
report print), filed by table, with the plots each tab draws and the DQ-3 keys on the decision-quality tab.
A table filed under no tab here (an evaluator's second block is filed as its first) goes to the last tab."""

from __future__ import annotations

from workbench.protocol.base import MetricsTab

DQ3_HINT = ("DQ-3 (concern coverage): a has a model assess every run's concerns (the study's first judge, as "
            "`metrics STUDY --assess-concerns`); k records a rater's concern file (`--record-concerns FILE "
            "--rater NAME`). The DQ tables below then include DQ-3 and the weighted score.")

# (tab id, title, its tables' ids, the plots it draws, its own keys, its prose)
LAYOUT = (
    ("tables", "Tables", ("overall", "table1", "table3", "table4", "predictions", "probes"), ("means", "forest"),
     (), ""),
    ("agreement", "Agreement", ("agreement", "judges", "panel", "judge_errors", "audit"), ("agreement",), (), ""),
    ("dq", "Decision quality", ("dq", "dq_spread", "dq_baseline"), ("heatmap",),
     ("assess_concerns", "record_concerns"), DQ3_HINT),
    ("topology", "Topology", ("table2",), (), (), ""),
    ("calibration", "Calibration", ("calibration", "reliability"), ("reliability",), (), ""),
    ("counts", "Counts", ("counts",), (), (), ""),
)


def metrics_tabs(protocol, db, study_id: str, options: dict) -> list[MetricsTab]:
    from workbench.metrics.render import base_id

    door = protocol.analysis()
    analysis = options.get("analysis") or door.analyze(db, study_id)
    tables = door.tables(analysis)
    tabs = [MetricsTab(tab_id, title, text, [t for t in tables if base_id(t.id) in ids], plots, keys)
            for tab_id, title, ids, plots, keys, text in LAYOUT]
    filed = {i for _, _, ids, *_ in LAYOUT for i in ids}
    rest = [t for t in tables if base_id(t.id) not in filed]
    return tabs + ([MetricsTab("more", "More", tables=rest)] if rest else [])
