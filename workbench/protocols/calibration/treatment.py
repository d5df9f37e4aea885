"""Treatment fidelity of a calibration study (issue 45): each run is one judge's verdict on one interaction,
and what defines the judge's condition is a score read from its reply. A `judge_error` (no score after the
retries) or a prompt refused because it would have shown an excluded field did not deliver it."""

from __future__ import annotations

from workbench.protocol.base import TreatmentReading

STEP = "a score read from the judge's reply"


def steps(definition: dict) -> dict[str, str]:
    return {j["name"]: STEP for j in definition.get("judges") or [] if j.get("name")}


def reading(report: dict | None) -> tuple[bool, str, bool]:
    report = report or {}
    if report.get("prompt_refused"):
        return False, "prompt refused (it would show an excluded field)", False
    if report.get("judge_error") or report.get("score") is None:
        return False, "judge_error: no score read", False
    return True, "", False


def readings(db, runs: list[dict]) -> list[TreatmentReading]:
    from store.outputs import get_output

    return [TreatmentReading(r["id"], r["condition"], *reading((get_output(db, r["id"]) or {}).get("report")))
            for r in runs]
