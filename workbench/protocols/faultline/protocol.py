"""FaultlineProtocol: seed 002 as a StudyProtocol — persona debates with belief graphs, crux cards,
the single-agent and self-consistency baselines, and the six metrics."""

from __future__ import annotations

import json

from workbench.protocol.base import Bad, ItemLoad, MetricsDocument, ReportSection, RunPlan, StudyProtocol
from workbench.protocols.faultline.conditions import CONDITIONS, DEFAULT, SC_SAMPLES, SELF_CONSISTENCY, condition


class FaultlineProtocol(StudyProtocol):
    name = "faultline"
    instruments = ("workbench.protocols.faultline.instruments",)
    title = "Faultline: persona debates with belief graphs"
    seed = "002"
    section = "faultline"
    metrics_tabs_module = "workbench.protocols.faultline.metrics_tabs"  # its tabs in the shared Metrics section
    panels = {"run": "screens.faultline.debate:DebateScreen",
              "metrics": "screens.faultline.metrics_panel:FaultlineMetricsScreen",
              "items": "screens.faultline.graph_panel:BeliefGraphScreen",
              "cruxes": "screens.faultline.crux_browser:CruxBrowserScreen"}
    commands = ("workbench.protocols.faultline.cli",)
    exports_module = "workbench.protocols.faultline.cli"  # its export_entries()
    simulator_module = "workbench.protocols.faultline.simulate"  # the offline `sim` model (issue 16)

    # --- the study file ---------------------------------------------------------------------------
    def conditions(self) -> list[str]:
        return list(CONDITIONS)

    def default_conditions(self) -> list[str]:
        return list(DEFAULT)

    def check_section(self, data: dict, definition: dict, bad: Bad) -> dict:
        from workbench.protocols.faultline.section import check_section

        return check_section(data, definition, bad)

    def check_library(self, db, definition: dict, bad: Bad) -> None:
        from workbench.problems import CaseError
        from workbench.protocols.faultline.items import library_for

        try:
            library_for(definition["faultline"])
        except CaseError as exc:
            for p in exc.problems:
                bad("faultline.library", str(p))

    # --- items ------------------------------------------------------------------------------------
    def load_items(self, db, study_id: str, definition: dict, base_dir: str | None = None) -> ItemLoad:
        from workbench.protocols.faultline.items import load_study_items

        return ItemLoad(added=load_study_items(db, study_id, definition["faultline"], base_dir))

    async def prepare(self, db, gateway, study_id: str, definition: dict, *, sink, control) -> None:
        """Each persona's belief graphs, built before the freeze pins them (`faultline graphs` does the same)."""
        from workbench.protocols.faultline.graphs import build_study_graphs

        await build_study_graphs(db, gateway, study_id, definition, sink=sink, control=control)

    def units(self, definition: dict) -> int:
        """A debate is one topic x one persona pair."""
        s = definition["faultline"]
        return len(s["topics"]) * len(s["pairs"])

    def summary_line(self, definition: dict) -> str:
        s = definition["faultline"]
        return (f"{len(s['topics'])} topic(s) x {len(s['pairs'])} persona pair(s) x "
                f"{len(definition['conditions'])} condition(s), {s['rounds']} round(s)")

    def budget_lines(self, definition: dict) -> list[str]:
        from workbench.protocols.faultline.conditions import graph_sizes
        from workbench.protocols.faultline.graphs import budget_text

        return [budget_text(definition)] if graph_sizes(definition["conditions"]) else []

    def budget_warnings(self, definition: dict) -> list[str]:
        from workbench.protocols.faultline.graphs import graph_over_budget

        return graph_over_budget(definition)

    def dry_run_reply(self, request, padding: str) -> str | None:
        from workbench.protocols.faultline.dry_run_replies import stand_in

        return stand_in(request, padding)

    async def dry_run_item(self, ctx):
        """A graph condition's debate with its personas' graphs of the size asked (built by stand-in replies when
        not stored yet, as at `study create`): their prompts measured, and the debate's with the graphs in it."""
        from workbench.protocols.faultline.graphs import with_graphs

        return await with_graphs(ctx)

    def item_payload(self, db, study_id: str, item_id: str):
        """A debate item carries its personas' built graphs (every size), so the program needs no store."""
        from workbench.protocols.faultline.graphs import stored_graphs

        from workbench.studies.items import stored_payload

        payload = dict(stored_payload(db, study_id, item_id))
        if payload.get("kind") == "debate":
            ids = {p["id"] for p in payload["pair"]["personas"]}
            payload["graphs"] = {k: g for k, g in stored_graphs(db, study_id).items() if k.split(":")[0] in ids}
        return payload

    def frozen_artefacts(self, db, study_id: str, definition: dict) -> list[tuple[str, str, str]]:
        """Every prompt template and every belief graph the study's conditions use. A study whose graphs
        are not built yet cannot be frozen: build them first (`workbench --batch faultline graphs STUDY`)."""
        from workbench.problems import Problem
        from workbench.protocols.faultline import prompts
        from workbench.protocols.faultline.conditions import graph_sizes
        from workbench.protocols.faultline.graphs import graph_key, missing_graphs, stored_graphs
        from workbench.protocols.faultline.items import study_personas
        from workbench.studies.definition import StudyError

        sizes = graph_sizes(definition["conditions"])
        personas = study_personas(db, study_id)
        missing = missing_graphs(db, study_id, personas, sizes)
        if missing:
            names = ", ".join(f"{p['id']} ({s} nodes)" for p, s in missing)
            raise StudyError([Problem(study_id, 1, "faultline.belief_graph",
                                      f"belief graphs not built yet: {names}; build them before the freeze with "
                                      f"`workbench --batch faultline graphs {study_id}`")])
        out = [("prompt", f"faultline.{k}", v) for k, v in prompts.TEMPLATES.items()]
        graphs = stored_graphs(db, study_id)
        for p in personas:
            for s in sizes:
                key = graph_key(p["id"], s)
                out.append(("belief_graph", key, json.dumps(graphs[key], sort_keys=True, ensure_ascii=False)))
        return out

    # --- runs -------------------------------------------------------------------------------------
    def lost_treatments(self, db, study_id: str, definition: dict) -> dict[str, str]:
        from workbench.protocols.faultline.treatment import study_lost_treatments

        return study_lost_treatments(db, study_id, definition)

    def treatment_steps(self, definition: dict) -> dict[str, str]:
        from workbench.protocols.faultline.treatment import fidelity_steps

        return fidelity_steps(definition)

    def treatment(self, db, study_id: str, definition: dict, runs: list[dict]) -> list:
        from workbench.protocols.faultline.treatment import fidelity_readings

        return fidelity_readings(db, runs)

    def planned_runs(self, db, study_id: str, definition: dict) -> list[RunPlan]:
        from store.items import list_items
        from workbench.protocols.faultline.items import DEBATE, TOPIC

        plans = []
        for cid in definition["conditions"]:
            kind = DEBATE if condition(cid).is_debate else TOPIC
            for item in list_items(db, study_id, kind=kind):
                for r in range(definition["replicates"]):
                    plans.append(RunPlan(item["id"], cid, r))
        return plans

    def expected_calls(self, definition: dict, plan: RunPlan) -> int:
        cond = condition(plan.condition)
        if not cond.is_debate:
            samples = SC_SAMPLES if cond.id == SELF_CONSISTENCY else 1
            return 2 * samples                      # answers + one stance extraction each
        n = definition["faultline"]["rounds"]
        speeches = 2 + 2 * n + 2                    # openings, rounds, closings
        moderator = n if cond.architecture == "qbaf" else 0
        return speeches + moderator + 1 + speeches + 4   # + crux cards + claims per speech + 4 stance sets

    async def program(self, ctx):
        if condition(ctx.condition).is_debate:
            from workbench.protocols.faultline.debate import run_debate

            return await run_debate(ctx)
        from workbench.protocols.faultline.baselines import run_baseline

        return await run_baseline(ctx)

    # --- power and planted effects ----------------------------------------------------------------
    def power_document(self, definition: dict, effects: dict, sims: int, grid: tuple[int, ...]) -> dict:
        """Power on seed 002's metrics (ACC, BA, ΔSD), simulated from the study's planted effects."""
        from workbench.protocols.faultline.power import power_document

        return power_document(definition, effects, sims, grid)

    def planted_vs_recovered(self, db, study_id: str, definition: dict) -> list:
        from workbench.protocols.faultline.planted import planted_values

        return planted_values(self.metrics(db, study_id).document, definition)

    # --- metrics and report -----------------------------------------------------------------------
    # --- lineage (issue 42): the architecture and divergence level a report finds best --------------
    @property
    def lineage_results(self) -> dict[str, str]:
        from workbench.protocols.faultline.lineage import RESULTS

        return RESULTS

    def reported_values(self, db, study_id: str, definition: dict) -> dict:
        from workbench.protocols.faultline.lineage import reported_values

        return reported_values(db, study_id, definition)

    def preregistered_values(self, definition: dict) -> dict:
        from workbench.protocols.faultline.lineage import preregistered_values

        return preregistered_values(definition)

    def metrics(self, db, study_id: str, options: dict | None = None) -> MetricsDocument:
        from workbench.protocols.faultline.analysis import CSV_COLUMNS, csv_rows, study_metrics
        from workbench.protocols.faultline.report import text
        from workbench.studies import load_study

        doc = study_metrics(db, study_id, load_study(db, study_id)["definition"],
                            progress=(options or {}).get("progress"))
        from workbench.protocols.faultline.report import unknown_claims_line

        e = doc["errors"]
        notes = ([f"{e['extraction_errors']} extraction error(s) in {e['runs_with_errors']} run(s): values "
                  "missing, not filled in"] if e["extraction_errors"] else [])
        if e.get("unknown_claim_stances"):
            notes.append(unknown_claims_line(e))
        return MetricsDocument(document=doc, text=text(doc), csv_columns=CSV_COLUMNS, csv_rows=csv_rows(doc),
                               notes=notes)

    def report_sections(self, db, study_id: str, options: dict | None = None) -> list[ReportSection]:
        from workbench.protocols.faultline.report import sections

        return sections(self.metrics(db, study_id, options).document)
