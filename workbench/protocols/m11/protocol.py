"""M11 module evaluation (seed 003) as a study protocol: what it adds to the shared machinery."""

from __future__ import annotations

from pathlib import Path

from workbench.protocol.base import ItemLoad, MetricsDocument, ReportSection, RunPlan, StudyProtocol
from workbench.protocols.m11.section import check_section

CONDITIONS = ("likert", "binary")


def resolve_items(path: str, base_dir: str | Path | None) -> Path | None:
    """The items file: relative to the study file's folder, else to the repository; None if absent."""
    from workbench.paths import PROJECT_ROOT

    p = Path(path)
    if p.is_absolute():
        candidates = [p]
    else:
        candidates = ([Path(base_dir) / p] if base_dir is not None else []) + [PROJECT_ROOT / p]
    return next((c for c in candidates if c.is_file()), None)


class M11Protocol(StudyProtocol):
    name = "m11"
    title = "Module evaluation (M11, hard constraints)"
    seed = "003"
    section = "m11"
    default_rubrics = ("m11-likert",)
    threshold_defaults = {"human_r": 0.85}   # seed 003 §8: human-pipeline Pearson r above 0.85
    metrics_tabs_module = "workbench.protocols.m11.metrics_tabs"  # its tabs in the shared Metrics section
    panels = {"metrics": "screens.m11.dashboard:M11Dashboard", "run": "screens.m11.debate:DebateScreen"}
    commands = ("workbench.protocols.m11.commands",)
    instruments = ("workbench.protocols.m11.instruments",)
    exports_module = "workbench.protocols.m11.commands"  # its export_entries()
    simulator_module = "workbench.protocols.m11.simulate"  # the offline `sim` model (issue 16)
    treatment_module = "workbench.protocols.m11.treatment"  # treatment fidelity: its steps and readings

    def conditions(self) -> list[str]:
        return list(CONDITIONS)

    def check_section(self, data: dict, definition: dict, bad) -> dict:
        for cond in definition.get("conditions") or []:
            if cond not in CONDITIONS:
                bad("conditions", f"'{cond}' is not an M11 condition; use likert and/or binary")
        return check_section(data, definition, bad)

    def summary_line(self, definition: dict) -> str:
        options = definition.get("m11") or {}
        parts = [f"likert x {options.get('runs', 3)} run(s)" if "likert" in definition.get("conditions", []) else "",
                 "binary" if "binary" in definition.get("conditions", []) else ""]
        limit = f", first {options['limit']} item(s)" if options.get("limit") else ""
        return " + ".join(p for p in parts if p) + f" per item of {options.get('items')}{limit}"

    def check_library(self, db, definition: dict, bad) -> None:
        items = (definition.get("m11") or {}).get("items")
        p = Path(items) if items else None
        if p is not None and p.is_absolute() and not p.is_file():
            bad("m11.items", f"no file {items}")

    # --- items -------------------------------------------------------------------------------------------
    def load_items(self, db, study_id: str, definition: dict, base_dir: str | None = None) -> ItemLoad:
        from store.items import add_items, put_artifact
        from workbench.problems import Problem
        from workbench.protocols.m11.metrics import FILTER_ARTIFACT
        from workbench.protocols.m11.records import ITEM_KIND, filter_file
        from workbench.studies.definition import StudyError

        options = definition.get("m11") or {}
        path = resolve_items(options["items"], base_dir)
        if path is None:
            raise StudyError([Problem(options["items"], 1, "m11.items", "no such file (looked beside the study file "
                                                                        "and in the repository)")])
        result = filter_file(path, injection=options.get("injection", "exclude"), shown_as=options["items"])
        if not result.items:
            raise StudyError(result.problems or [Problem(options["items"], 1, "file", "no record loaded")])
        added = add_items(db, study_id, result.items, kind=ITEM_KIND)
        put_artifact(db, study_id, FILTER_ARTIFACT, "report", {"file": options["items"], **result.summary()})
        return ItemLoad(added=added, excluded=result.excluded, problems=[str(p) for p in result.problems])

    def extra_rubrics(self, db, definition: dict) -> list[str]:
        """The rubric every pipeline stage reads (prompts.criteria_text), frozen even when the raters' list
        leaves it out."""
        from workbench.protocols.m11.prompts import RUBRIC

        return [] if RUBRIC in definition.get("rubrics", []) else [RUBRIC]

    def frozen_artefacts(self, db, study_id: str, definition: dict) -> list[tuple[str, str, str]]:
        import json

        from workbench.protocols.m11.never import NEVER_CATEGORIES
        from workbench.protocols.m11.prompts import TEMPLATES
        from workbench.protocols.m11.scoring import BANDS, HIGH_SPREAD, MEDIUM_SPREAD

        out = [("prompt", f"m11/{k}", v) for k, v in sorted(TEMPLATES.items())]
        out.append(("rule", "m11/never-categories", json.dumps(NEVER_CATEGORIES, sort_keys=True)))
        out.append(("rule", "m11/bands", json.dumps({"bands": BANDS, "high": HIGH_SPREAD, "medium": MEDIUM_SPREAD})))
        return out

    # --- runs --------------------------------------------------------------------------------------------
    def planned_runs(self, db, study_id: str, definition: dict) -> list[RunPlan]:
        from store.items import list_items

        options = definition.get("m11") or {}
        items = [r["id"] for r in list_items(db, study_id)]
        if options.get("limit"):
            items = items[:options["limit"]]
        conditions = [c for c in CONDITIONS if c in (definition.get("conditions") or CONDITIONS)]
        plans = []
        for item_id in items:
            for cond in conditions:
                for r in range(options.get("runs", 3) if cond == "likert" else 1):
                    plans.append(RunPlan(item_id, cond, r))
        return plans

    def expected_calls(self, definition: dict, plan: RunPlan) -> int:
        from workbench.protocols.m11.pipeline import CALLS_PER_PIPELINE

        return CALLS_PER_PIPELINE if plan.condition == "likert" else 1

    def dry_run_reply(self, request, padding: str) -> str | None:
        from workbench.protocols.m11.dry_run_replies import stand_in

        return stand_in(request, padding)

    async def program(self, ctx):
        from workbench.protocols.m11.pipeline import binary_program, likert_program

        if ctx.condition == "likert":
            return await likert_program(ctx)
        if ctx.condition == "binary":
            return await binary_program(ctx)
        raise ValueError(f"'{ctx.condition}' is not an M11 condition")

    def counted_error(self, output) -> str | None:
        """A pipeline whose stage never gave a usable reply ends as a counted error (report status "error")."""
        report = output.report or {}
        if report.get("status") == "error":
            return f"counted error: {report.get('failed_stage')} gave no usable reply ({report.get('error')})"
        return None

    # --- evaluation: what human raters read ------------------------------------------------------------
    def blind_texts(self, db, study_id: str, definition: dict) -> list[dict]:
        """The human-validation sample: [{case_id (the item), run_id (its first pipeline run), text}]."""
        from workbench.protocols.m11.human import rater_text, select_sample
        from workbench.protocols.m11.results import sample_results

        options = definition.get("m11") or {}
        results = {r["id"]: r for r in sample_results(db, study_id)}
        chosen = select_sample(list(results.values()), options.get("human_sample", 20), options.get("human_seed", 0))
        out = []
        for item_id in chosen:
            r = results[item_id]
            run_id = r["run_reports"][0]["run_id"] if r["run_reports"] else None
            out.append({"case_id": item_id, "run_id": run_id, "text": rater_text(r["item"])})
        return out

    def units(self, definition: dict) -> int | None:
        """The items evaluated: the study's `limit` when it sets one (the file's count is known once loaded)."""
        return (definition.get("m11") or {}).get("limit") or None

    # --- metrics and report ------------------------------------------------------------------------------
    def metrics(self, db, study_id: str, options: dict | None = None) -> MetricsDocument:
        from workbench.protocols.m11.metrics import CSV_COLUMNS, csv_rows, study_metrics
        from workbench.protocols.m11.report import text

        doc = study_metrics(db, study_id)
        notes = [f"{doc['input_filter']['excluded']} record(s) excluded by the InputFilter"] if (
            doc["input_filter"] and doc["input_filter"]["excluded"]) else []
        return MetricsDocument(document=doc, text=text(doc), csv_columns=list(CSV_COLUMNS), csv_rows=csv_rows(doc),
                               notes=notes)

    def report_sections(self, db, study_id: str, options: dict | None = None) -> list[ReportSection]:
        from workbench.protocols.m11.metrics import study_metrics, trend
        from workbench.protocols.m11.report import sections
        from workbench.reports.kept import kept

        doc = study_metrics(db, study_id, with_trend=False)
        # the trend reads other studies: the one of the report's first writing, unless asked to update
        doc["trend"], as_of = kept(db, study_id, "m11-trend", lambda: trend(db, study_id),
                                   update=bool((options or {}).get("update")))
        doc["trend"] = {**doc["trend"], "as_of": as_of}
        return sections(doc)

    # --- lineage (issue 42) -------------------------------------------------------------------------------
    # The human-agreement r a report shows is the one result a later study can pre-register (as its
    # `[thresholds] human_r` target). The bands are seed 003 §7's, fixed and pinned at the freeze (rule
    # m11/bands), never a study's parameter: no later study can pre-register them, so there is nothing to match.
    lineage_results = {"human_r": "the human-agreement verdict (Pearson r against the target)"}

    def reported_values(self, db, study_id: str, definition: dict) -> dict:
        from workbench.protocols.m11.human import human_validation
        from workbench.protocols.m11.results import sample_results

        options = definition.get("m11") or {}
        r = human_validation(db, study_id, sample_results(db, study_id), options)["pearson"]["value"]
        return {} if r is None else {"human_r": round(r, 3)}     # as the report shows it

    def preregistered_values(self, definition: dict) -> dict:
        """The study's human_r target unless it is the seed's own 0.85 (fixed before any study)."""
        target = (definition.get("thresholds") or {}).get("human_r", self.threshold_defaults["human_r"])
        return {} if target == self.threshold_defaults["human_r"] else {"human_r": target}

    def planted_vs_recovered(self, db, study_id: str, definition: dict):
        from workbench.protocols.m11.planted import planted_values

        return planted_values(db, study_id, definition)
