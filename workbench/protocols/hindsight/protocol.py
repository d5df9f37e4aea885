"""The hindsight protocol (seed 000, with seed 001's decision quality) behind the protocol interface.

Its items are library cases (a run is given the case's scenario text), its
conditions are the architecture modules in `architectures/`, and P1's
topology is a follow-up once a case's three replicates are done. Metrics and
the report are the tables of its `metrics/` package (Tables 1–4, agreement,
DQ, calibration of judge scores, probes) on the shared statistics of
`workbench.metrics`; the shared Metrics section reaches them through
`analysis()` (`metrics/section.py`).
"""

from __future__ import annotations

from workbench.protocol.base import FollowUp, RunPlan, StudyProtocol
from workbench.protocols.hindsight import study_section
from workbench.protocols.hindsight.architectures import (
    architecture,
    conditions,
    draw_for,
    prompt_templates,
    replicates_for,
)

TOPOLOGY_CONDITION = "P1"


class HindsightProtocol(StudyProtocol):
    name = "hindsight"
    title = "Hindsight: do deliberative architectures anticipate the risks history revealed?"
    seed = "000"
    top_keys = study_section.TOP_KEYS
    default_rubrics = ("anticipation", "epistemic-humility")
    threshold_defaults = {"kappa_anticipation": 0.70, "kappa_epistemic_humility": 0.65, "alpha_judges": 0.5}
    simulator_module = "workbench.protocols.hindsight.simulate"  # the offline `sim` model (issue 16)
    required_evaluators = ("raters", "judges")  # a study file that leaves them out is refused (issue 15)
    # its panels are the Runs and Metrics sections themselves
    commands = ("workbench.protocols.hindsight.commands",)
    instruments = ("workbench.protocols.hindsight.instruments",)
    analysis_module = "workbench.protocols.hindsight.metrics.section"  # the shared Metrics section's tables
    metrics_tabs_module = "workbench.protocols.hindsight.metrics_tabs"  # its tabs in the shared Metrics section
    metrics_options = ("compare", "assess_concerns", "record_concerns")

    # --- the study file ---------------------------------------------------------------------------
    def conditions(self) -> list[str]:
        return conditions()

    def check_section(self, data: dict, definition: dict, bad) -> dict:
        return study_section.check_section(data, definition, bad)

    def check_library(self, db, definition: dict, bad) -> None:
        study_section.check_cases(db, definition, bad)

    def summary_line(self, definition: dict) -> str:
        from workbench.studies.evaluator import describe

        return (f"{len(definition['cases'])} case(s) x {len(definition['conditions'])} condition(s); "
                f"{describe(definition)}")

    def units(self, definition: dict) -> int:
        return len(definition["cases"])

    # --- items: library cases -----------------------------------------------------------------------
    def load_items(self, db, study_id: str, definition: dict, base_dir: str | None = None):
        """Hindsight's cases are in the library already; what `study create` adds here is the corpus
        warning of a pilot study (a confirmatory one is refused in check_library)."""
        from store import cases as case_rows
        from workbench.protocol.base import ItemLoad
        from workbench.protocols.hindsight.gates import corpus_problems

        if (definition.get("hindsight") or {}).get("study_kind", "pilot") == "confirmatory":
            return ItemLoad()
        docs = [row["document"] for row in (case_rows.get_case(db, c) for c in definition["cases"]) if row]
        return ItemLoad(problems=[f"cases: warning (pilot study): {why}" for why in corpus_problems(docs)])

    def item_payload(self, db, study_id: str, item_id: str) -> str:
        from store.cases import get_case

        row = get_case(db, item_id)
        if row is None:
            raise KeyError(f"case '{item_id}' is not in the store")
        return row["document"]["scenario"]

    def frozen_artefacts(self, db, study_id: str, definition: dict) -> list[tuple[str, str, str]]:
        """Each case's scenario and outcome (the case-file drift check reads these) and every prompt."""
        from store import cases as case_rows
        from workbench.studies.freeze import case_content

        out = []
        for case_id in definition["cases"]:
            row = case_rows.get_case(db, case_id)
            if row is None:
                raise KeyError(f"case '{case_id}' is no longer in the store")
            doc = row["document"]
            out.append(("case", case_id, case_content(doc.get("scenario", ""), doc.get("outcome", ""))))
        out += [("prompt", name, text) for name, text in sorted(prompt_templates().items())]
        return out

    def extra_rubrics(self, db, definition: dict) -> list[str]:
        """A case's own rubric (Glenda/Crock, Blast Radius) is scored and frozen with the study's."""
        from store import cases as case_rows

        out = []
        for case_id in definition["cases"]:
            row = case_rows.get_case(db, case_id)
            if row is not None and row["rubric"]:
                out.append(row["rubric"])
        return out

    # --- runs -----------------------------------------------------------------------------------------
    def planned_runs(self, db, study_id: str, definition: dict) -> list[RunPlan]:
        """case × condition × replicate (P1: always 3), in grid order."""
        return [RunPlan(case, cond, r) for case in definition["cases"] for cond in definition["conditions"]
                for r in replicates_for(cond, definition["replicates"])]

    def expected_calls(self, definition: dict, plan: RunPlan) -> int:
        return architecture(plan.condition).expected_calls(self.run_options(definition))

    def draw(self, plan: RunPlan) -> int:
        return draw_for(plan.condition, plan.replicate)

    def run_options(self, definition: dict) -> dict:
        """The [architectures.X] tables, and the report shape every final step follows (extraction.py)."""
        from workbench.protocols.hindsight.architectures.extraction import LEGACY_SHAPE, OPTION

        fidelity = definition.get("hindsight") or {}
        return {**definition.get("architectures", {}), OPTION: fidelity.get("report_shape", LEGACY_SHAPE)}

    async def program(self, ctx):
        return await architecture(ctx.condition).run(ctx)

    def treatment_steps(self, definition: dict) -> dict[str, str]:
        from workbench.protocols.hindsight.treatment import steps

        return steps(definition)

    def treatment(self, db, study_id: str, definition: dict, runs: list[dict]) -> list:
        from workbench.protocols.hindsight.treatment import readings

        return readings(db, study_id, definition, self.run_options(definition), runs)

    def dry_run_reply(self, request, padding: str) -> str | None:
        from workbench.protocols.hindsight.architectures.dry_run_replies import stand_in

        return stand_in(request, padding)

    def follow_ups(self, db, study_id: str, definition: dict, runs: list[dict]) -> list[FollowUp]:
        """Topology per case: P1's three committees, and (issue 13, so architectures can be compared on
        it) any other condition run with three or more replicates, over its replicates 0, 1 and 2.
        Ready when those three runs are done; done when stored."""
        from store.topology import get_topology
        from workbench.protocols.hindsight.architectures.topology import EXPECTED_CALLS

        groups: dict[tuple[str, str], list[dict]] = {}
        for r in runs:
            if r["condition"] == TOPOLOGY_CONDITION or (definition.get("replicates", 1) >= 3
                                                        and r["replicate"] in (0, 1, 2)):
                groups.setdefault((r["case_id"], r["condition"]), []).append(r)
        out = []
        for (case_id, cond), group in sorted(groups.items()):
            ready = len(group) >= 3 and all(r["status"] in ("done", "done_with_errors") for r in group)
            done = get_topology(db, study_id, case_id, cond) is not None
            key = f"topology:{case_id}" if cond == TOPOLOGY_CONDITION else f"topology:{case_id}:{cond}"
            out.append(FollowUp(key=key, item_id=case_id, condition=cond, expected_calls=EXPECTED_CALLS,
                                ready=ready, done=done, work=_topology_work(db, study_id, case_id, group, cond)))
        return out

    # --- the cue audit: conditions that differ only in structure (workbench.cue_audit) --------------------
    cue_baseline = "B1"

    def condition_prompts(self, definition: dict) -> dict[str, list[tuple[str, str, str]]]:
        from workbench.protocols.hindsight.architectures import condition_prompts

        conds = list(dict.fromkeys(["B1", *(definition.get("conditions") or [])]))
        return condition_prompts(conds, self.run_options(definition))

    def condition_structure(self) -> dict[str, str]:
        from workbench.protocols.hindsight.architectures import seed_texts

        return seed_texts()

    # --- metrics and report ---------------------------------------------------------------------------
    def metrics(self, db, study_id: str, options: dict | None = None):
        from workbench.protocols.hindsight.results import metrics_document

        return metrics_document(db, study_id, options or {})

    def report(self, db, study_id: str, options: dict | None = None) -> str:
        from workbench.protocols.hindsight.results import report_text

        return report_text(db, study_id, options or {})

    def preregistered_comparisons(self, definition: dict) -> list[str]:
        """The seed's four comparisons of Table 4 (seed 000 §XII), over the study's conditions."""
        from workbench.protocols.hindsight.metrics.tables import SEED_COMPARISONS

        conditions = list(definition.get("conditions") or [])
        return [f"{a}:{b}:{m}" for a, b, m in SEED_COMPARISONS if a in conditions and b in conditions]

    # --- lineage (issue 42): the observed kappas and the best committee a report shows ---------------------
    @property
    def lineage_results(self) -> dict[str, str]:
        from workbench.protocols.hindsight.lineage import RESULTS

        return RESULTS

    def reported_values(self, db, study_id: str, definition: dict) -> dict:
        from workbench.protocols.hindsight.lineage import reported_values

        return reported_values(db, study_id)

    def preregistered_values(self, definition: dict) -> dict:
        from workbench.protocols.hindsight.lineage import preregistered_values

        return preregistered_values(definition, self.threshold_defaults)

    def planted_vs_recovered(self, db, study_id: str, definition: dict) -> list:
        from workbench.protocols.hindsight.planted import planted_values

        return planted_values(db, study_id, definition)


def _topology_work(db, study_id: str, case_id: str, group: list[dict], condition: str = TOPOLOGY_CONDITION):
    async def work(ctx) -> None:
        from store.outputs import get_output
        from store.topology import save_topology
        from workbench.protocols.hindsight.architectures.topology import classify_case

        runs = [{"run_id": r["id"], "replicate": r["replicate"], "text": get_output(db, r["id"])["text"]}
                for r in sorted(group, key=lambda r: r["replicate"])[:3]]
        row = await classify_case(ctx, runs)
        save_topology(db, study_id=study_id, case_id=case_id, condition=condition, **row)

    return work
