"""Hindsight's keys of a study file: `cases`, `[architectures.X]` options, `[metrics] custom_concerns`,
`evaluator` (whose scores Tables 1-4 come from: `workbench.studies.evaluator`), and `[hindsight]`: the
study's fidelity settings (report shape, study kind, training cutoff, contamination overrides,
adjudication margin).

They sit at the top level of the file (the format predates protocol sections,
and every shipped hindsight study uses it).
"""

from __future__ import annotations

from typing import Callable

from workbench.cases.validate import decision_date_problem
from workbench.protocols.hindsight import gates
from workbench.protocols.hindsight.architectures import architecture, conditions
from workbench.studies.evaluator import check_evaluator

TOP_KEYS = ("cases", "architectures", "metrics", "hindsight", "evaluator")


def check_section(data: dict, definition: dict, c) -> dict:
    """`c`: the study's StudyChecker. Returns the hindsight keys of the definition, defaults filled."""
    cases = c.strings(data, "cases", "cases")
    if "cases" in data and not cases and isinstance(data["cases"], list):
        c.bad("cases", "must name at least one case")
    out = {"cases": cases, "architectures": _architectures(c, data, conditions()), "hindsight": _fidelity(c, data)}
    evaluator = check_evaluator(c, data, definition)
    if evaluator is not None:  # kept only when given: a file without it keeps the definition it had
        out["evaluator"] = evaluator
    if "metrics" in data:  # [metrics] custom_concerns = [...]: extra DQ-3 concerns (metrics/dq_study.py)
        metrics = c.table(data, "metrics", "metrics")
        c.unknown(metrics, ("custom_concerns",), "metrics")
        out["metrics"] = {"custom_concerns": c.strings(metrics, "custom_concerns", "metrics.custom_concerns", [])}
    return out


def _fidelity(c, data: dict) -> dict:
    """`[hindsight]`: every choice here is pre-registered (hashed with the definition) and printed in the report."""
    from workbench.protocols.hindsight.architectures.extraction import DEFAULT_SHAPE, SHAPES

    t = c.table(data, "hindsight", "hindsight") if "hindsight" in data else {}
    c.unknown(t, FIDELITY_KEYS, "hindsight")
    shape = c.string(t, "report_shape", "hindsight.report_shape", DEFAULT_SHAPE)
    if shape not in SHAPES:
        c.bad("hindsight.report_shape", f"must be one of {', '.join(SHAPES)} (\"extract\": the seed's prompts, "
                                        "then a copying extraction; \"instruction\": the report layout is "
                                        "appended to every condition, a deviation the report prints)")
        shape = DEFAULT_SHAPE
    kind = c.string(t, "study_kind", "hindsight.study_kind", "pilot")
    if kind not in gates.STUDY_KINDS:
        c.bad("hindsight.study_kind", f"must be one of {', '.join(gates.STUDY_KINDS)} (a confirmatory study "
                                      "must meet seed 000 §IV's corpus rule; a pilot study is warned)")
        kind = "pilot"
    cutoff = c.string(t, "training_cutoff", "hindsight.training_cutoff", "")
    if cutoff and (".." in cutoff or decision_date_problem(cutoff, historical=False)):
        c.bad("hindsight.training_cutoff", "must be a real date YYYY, YYYY-MM or YYYY-MM-DD (the architecture "
                                           "model's training cutoff, for strategy-A cases)")
        cutoff = ""
    overrides = gates.check_overrides(c, t.get("overrides", []))
    margin = c.number(t, "adjudication_margin", "hindsight.adjudication_margin", 1.0, lo=0.0)
    pilot_cases = c.strings(t, "pilot_cases", "hindsight.pilot_cases", [])
    cases = data.get("cases") if isinstance(data.get("cases"), list) else []
    if pilot_cases:
        if len(pilot_cases) != 2 or len(set(pilot_cases)) != 2:
            c.bad("hindsight.pilot_cases", "name two different cases (seed 000 §VI: calibrate on 2 pilot cases)")
        for case in pilot_cases:
            if case not in cases:
                c.bad("hindsight.pilot_cases", f"'{case}' is not one of the study's cases")
        if len(set(cases) - set(pilot_cases)) < 1:
            c.bad("hindsight.pilot_cases", "the study needs cases beyond its pilot cases for the main set")
    return {"report_shape": shape, "study_kind": kind, "training_cutoff": cutoff, "overrides": overrides,
            "adjudication_margin": margin, "pilot_cases": pilot_cases}


FIDELITY_KEYS = ("report_shape", "study_kind", "training_cutoff", "overrides", "adjudication_margin",
                 "pilot_cases")


def _architectures(c, data: dict, known: list[str]) -> dict:
    """Per-condition options: each architecture module fills its defaults and checks its own keys."""
    t = c.table(data, "architectures", "architectures")
    for key in t:
        if key not in known:
            c.bad(f"architectures.{key}", f"'{key}' is not a known condition; use any of {', '.join(known)}")
    out = {}
    for cond in known:
        module = architecture(cond)
        check: Callable | None = getattr(module, "check_options", None)
        if check is None:
            if cond in t:
                c.bad(f"architectures.{cond}", f"{cond} takes no options")
            continue
        raw = t.get(cond, {})
        if not isinstance(raw, dict):
            c.bad(f"architectures.{cond}", "must be a table")
            raw = {}
        out[cond] = check(raw, f"architectures.{cond}", c.bad)
    return out


def check_cases(db, definition: dict, c) -> None:
    """Every case the study names is in the store, ready, and its own rubric exists."""
    from store import cases as case_rows
    from workbench.cases.library import known_rubric_ids, refusal_of

    rubric_ids = known_rubric_ids(db)
    for case_id in definition["cases"]:
        row = case_rows.get_case(db, case_id)
        if row is None and refusal_of(db, case_id):
            c.bad("cases", f"case '{case_id}' was refused when the case library was loaded: "
                           f"{refusal_of(db, case_id)}")
        elif row is None:
            c.bad("cases", f"no case '{case_id}' in the store (import it with `workbench --batch cases import`)")
        elif row["status"] != "ready":
            c.bad("cases", f"case '{case_id}' is {row['status']}: only ready cases can enter a study "
                           "(finish it and set status = \"ready\" in its file, then import it)")
        elif row["rubric"] and row["rubric"] not in rubric_ids:
            c.bad("cases", f"case '{case_id}' names rubric '{row['rubric']}', which is not in rubrics/")
    gates.check_study_cases(db, definition, c)
