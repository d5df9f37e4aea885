"""Treatment fidelity of M11's runs (issue 45): every stage of the pipeline parsed.

Read from the run's report (pipeline.py): a counted error names the stage that gave no usable reply after
its retry; a MetaJudge check that did not parse keeps the Judge's verdict but leaves the pipeline one stage
short (the project's reading: that run did not go through the whole pipeline either). The binary comparison
is one call: its verdict parsed or not.
"""

from __future__ import annotations

from workbench.protocol.base import TreatmentReading

STEPS = {"likert": "every stage parsed (Critic, Defender, Judge, MetaJudge)", "binary": "the binary verdict parsed"}


def steps(definition: dict) -> dict[str, str]:
    return {c: STEPS[c] for c in definition.get("conditions") or STEPS if c in STEPS}


def reading(report: dict | None) -> tuple[bool, str, bool]:
    report = report or {}
    if report.get("status") != "ok":
        return False, f"{report.get('failed_stage') or 'a stage'} never parsed", False
    checks = (report.get("debate") or {}).get("metajudge") or []
    if any(c.get("error") for c in checks):
        return False, "the MetaJudge check never parsed", False
    return True, "", False


def readings(db, runs: list[dict]) -> list[TreatmentReading]:
    from store.outputs import get_output

    return [TreatmentReading(r["id"], r["condition"], *reading((get_output(db, r["id"]) or {}).get("report")))
            for r in runs]
