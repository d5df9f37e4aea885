"""The calibration protocol (seed 004): imported interactions, proxy fidelity, a judge panel, agreement."""

from __future__ import annotations

import json
from pathlib import Path

from workbench.protocol.base import ItemLoad, MetricsDocument, ReportSection, RunPlan, StudyProtocol
from workbench.protocols.calibration import section as sec


class CalibrationProtocol(StudyProtocol):
    name = "calibration"
    title = "Calibration study: proxy fidelity and an external judge anchor"
    seed = "004"
    section = sec.SECTION
    default_rubrics = (sec.DEFAULT_RUBRIC,)
    metrics_tabs_module = "workbench.protocols.calibration.metrics_tabs"  # its tabs in the shared Metrics section
    panels = {"items": "screens.calibration.import_screen:CalibrationImportScreen",
              "metrics": "screens.calibration.results_screen:CalibrationResultsScreen"}
    commands = ("workbench.protocols.calibration.commands",)
    judges_are_runs = True  # its [[judges]] are its conditions: `run` judges, the shared `judge` refuses
    exports_module = "workbench.protocols.calibration.commands"  # its export_entries()
    simulator_module = "workbench.protocols.calibration.simulate"  # the offline `sim` model (issue 16)
    treatment_module = "workbench.protocols.calibration.treatment"  # treatment fidelity: its steps and readings

    def blinds_outputs(self, definition: dict) -> bool:
        """The judge panel scores interactions as the study's conditions; nothing is blinded for raters."""
        return False

    def conditions(self) -> list[str]:
        return []   # a run's condition is a judge's name from the study's [[judges]]

    def check_section(self, data: dict, definition: dict, bad) -> dict:
        report = getattr(bad, "bad", bad)   # a checker object or the bare reporter
        return sec.check_section(data, definition, report)

    def load_items(self, db, study_id: str, definition: dict, base_dir: str | None = None) -> ItemLoad:
        """The section's `interactions` file and/or `[calibration.generator]` draws, into the study's items."""
        from workbench.protocols.calibration.generator import generate
        from workbench.protocols.calibration.importer import (ImportRefused, add_records, import_file,
                                                              record_import)
        from workbench.protocols.calibration.records import normalise
        from workbench.studies.definition import StudyError

        options = definition[self.section]
        load = ItemLoad()
        if options["interactions"]:
            path = Path(options["interactions"])
            if not path.is_absolute() and base_dir:
                path = Path(base_dir) / path
            try:
                summary = import_file(db, study_id, path, check_frozen=False)
            except ImportRefused as exc:
                from workbench.problems import Problem

                raise StudyError([Problem(str(path), 1, "calibration.interactions", str(exc))]) from None
            if summary.records == 0 and summary.problems:
                raise StudyError(summary.problems[:20])
            record_import(db, study_id, summary)
            load.added += summary.added
            load.excluded += summary.bad + summary.conflicting
            load.problems += [str(p) for p in summary.problems]
        gen = options.get("generator")
        if gen is not None:
            records = generate(p_grid=options["p_grid"], per_bin=gen["per_bin"], seed=gen["seed"],
                               k_true=gen["k_true"], scenarios=gen["scenarios"], runs=gen["runs"])
            summary = add_records(db, study_id, ((n, normalise(r)) for n, r in enumerate(records, start=1)),
                                  source="generator")
            summary.records = summary.added + summary.already_present
            record_import(db, study_id, summary)
            load.added += summary.added
        return load

    def summary_line(self, definition: dict) -> str:
        o = definition[self.section]
        return (f"{len(definition.get('judges') or [])} judge(s), Arm B sample of {o['sample_size']}, "
                f"k = {o['k']:g}")

    def budget_warnings(self, definition: dict) -> list[str]:
        from workbench.protocols.calibration.program import short_budget

        return short_budget(definition)

    def frozen_artefacts(self, db, study_id: str, definition: dict) -> list[tuple[str, str, str]]:
        """The joined CSV's schema (the rubric is frozen as a rubric: see `extra_rubrics`)."""
        options = definition[self.section]
        return [("schema", "calibration/joined.csv",
                 json.dumps({"version": options["schema_version"], "columns": options["joined_schema"]}))]

    def extra_rubrics(self, db, definition: dict) -> list[str]:
        rubric = definition[self.section]["rubric"]
        return [] if rubric in definition.get("rubrics", []) else [rubric]

    def planned_runs(self, db, study_id: str, definition: dict) -> list[RunPlan]:
        from store.items import iter_items
        from workbench.protocols.calibration.importer import KIND
        from workbench.protocols.calibration.sampling import stratified_sample

        o = definition[self.section]
        accepted = [(r["id"], r["payload"]["scenario"], r["payload"]["v_hat"])
                    for r in iter_items(db, study_id, kind=KIND) if r["payload"].get("accepted", True)]
        sample = stratified_sample(accepted, size=o["sample_size"], seed=o["sample_seed"], k=o["k"],
                                   n_bins=o["strata_bins"])
        judges = [j["name"] for j in definition.get("judges") or []]
        return [RunPlan(item, judge) for item in sample for judge in judges]

    def expected_calls(self, definition: dict, plan: RunPlan) -> int:
        return 1

    def settings_for(self, definition: dict, plan: RunPlan):
        return judge_settings(definition, plan.condition)

    async def program(self, ctx):
        from workbench.protocols.calibration.program import judge_program

        return await judge_program(ctx)

    def counted_error(self, output) -> str | None:
        """A judge reply that never parsed is a counted judge_error, kept with its raw replies."""
        report = output.report or {}
        return f"judge_error: {report.get('error')}" if report.get("judge_error") else None

    def metrics(self, db, study_id: str, options: dict | None = None) -> MetricsDocument:
        from workbench.protocols.calibration.report import csv_rows, text_summary
        from workbench.protocols.calibration.results import study_results

        doc = study_results(db, study_id)
        cols, rows = csv_rows(doc)
        return MetricsDocument(document=doc, text=text_summary(doc), csv_columns=cols, csv_rows=rows)

    def report_sections(self, db, study_id: str, options: dict | None = None) -> list[ReportSection]:
        from workbench.protocols.calibration.report import sections
        from workbench.protocols.calibration.results import study_results

        return sections(study_results(db, study_id))

    lineage_results = {"k": "Arm A at the pre-registered k (ECE, MCE, Brier) and the outcome it decides"}

    def reported_values(self, db, study_id: str, definition: dict) -> dict:
        """Arm A's k sweep reports the k that minimises ECE: a later study on the same interactions that
        pre-registers that k chose it after seeing this result."""
        from workbench.protocols.calibration.results import arm_a, load

        try:
            best = arm_a(load(db, study_id))["k_sweep"]["best_k"]
        except KeyError:          # not frozen: no metric was shown
            return {}
        return {"k": best} if best is not None else {}

    def preregistered_values(self, definition: dict) -> dict:
        return {"k": definition["calibration"]["k"]}

    def planted_vs_recovered(self, db, study_id: str, definition: dict):
        from workbench.protocols.calibration.planted import planted_values

        return planted_values(db, study_id, definition)


def judge_settings(definition: dict, judge_name: str):
    """A judge's model settings: its own model, api_base and temperature; the study's seed and timeout."""
    from workbench.gateway.api import ModelSettings, connection_options

    judge = next((j for j in definition.get("judges") or [] if j["name"] == judge_name), None)
    if judge is None:
        raise KeyError(f"no judge '{judge_name}' in the study")
    model = definition.get("model") or {}
    return ModelSettings(model=judge["model"], api_base=judge.get("api_base") or None,
                         temperature=judge.get("temperature", 0.0), seed=model.get("seed"),
                         max_tokens=definition[sec.SECTION]["judge_max_tokens"],
                         timeout=model.get("timeout", 120.0), **connection_options(judge))
