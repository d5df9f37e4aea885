"""Hindsight's analysis as the shared Metrics section and `metrics` command ask for it (`MetricsAnalysis`).

The protocol names this module (`analysis_module`); shared code reaches it through the registry, never
by importing it. Every method is a thin door onto the modules beside it.
"""

from __future__ import annotations

from workbench.protocols.hindsight.metrics import plot_data


class HindsightAnalysis:
    plots = plot_data

    def parse_comparison(self, text: str):
        from workbench.protocols.hindsight.metrics.tables import parse_comparison

        return parse_comparison(text)

    def check_comparisons(self, db, study_id: str, comparisons: list, analysis=None) -> None:
        if not comparisons:
            return
        from workbench.protocols.hindsight.metrics.study_data import load_study_data
        from workbench.protocols.hindsight.metrics.tables import check_comparisons

        check_comparisons(analysis.data if analysis is not None else load_study_data(db, study_id), comparisons)

    def analyze(self, db, study_id: str, *, comparisons=(), progress=None):
        from workbench.protocols.hindsight.metrics.analysis import analyze_study

        return analyze_study(db, study_id, comparisons=list(comparisons), progress=progress)

    def tables(self, analysis) -> list:
        from workbench.protocols.hindsight.metrics.render import analysis_tables

        return analysis_tables(analysis)

    def drilldown(self, analysis, ref):
        from workbench.protocols.hindsight.metrics.drilldown import dq_group_drilldown, drilldown

        if ref.kind == "dq_group":
            return dq_group_drilldown(analysis, *ref.args)
        return drilldown(analysis.data, ref)

    def record_concerns(self, db, study_id: str, rater: str, path: str) -> int:
        from workbench.protocols.hindsight.metrics.concern_coverage import read_concern_file, record_rater_concerns

        return record_rater_concerns(db, study_id, rater, read_concern_file(path), source_name=path)

    def assess_concerns(self, db, db_path, study_id: str, settings, *, redo: bool = False, progress=None):
        """A coroutine: the assessment runs on the caller's loop (the command runs it interruptibly)."""
        from workbench.protocols.hindsight.metrics.concern_coverage import assess_study_concerns

        return assess_study_concerns(db, db_path, study_id, settings, redo=redo, progress=progress)


ANALYSIS = HindsightAnalysis()
