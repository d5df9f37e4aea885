"""A `sim` study's "Planted vs recovered" section: each planted value of its `[simulation]` table beside the
estimate the study read back with its own measures (`StudyProtocol.planted_vs_recovered`). A study on a
real model plants nothing, and its report has no such section."""

from __future__ import annotations

TITLE = "Planted vs recovered"


def _num(v: float | None) -> str:
    return "—" if v is None else f"{v:.3f}"


def planted_section(db, study_id: str, protocol, definition: dict) -> str:
    """The section's Markdown (with its heading), or "" when the study is not simulated or the protocol
    pairs nothing."""
    from workbench.simmodel.label import is_simulated

    if not is_simulated(definition):
        return ""
    rows = protocol.planted_vs_recovered(db, study_id, definition)
    if rows is None:
        return ""
    if not rows:   # the protocol plants effects but can pair none yet (a blinded hindsight study)
        return (f"## {TITLE}\n\nNo planted value can be shown beside a recovered one yet: the study is blinded, "
                "and a report read before unblinding names no condition.\n")
    lines = [f"## {TITLE}", "",
             "SIMULATED: the planted values are this study's truth. Each value planted in its `[simulation]` table that the "
             "study measures, beside what its own measures recovered (95% CI where the measure has one). "
             "`expected` is what the measure should read on average under the plant, where its scale is not "
             "the parameter's.", "",
             "| parameter | planted | measure | expected | recovered | 95% CI | note |",
             "|---|---:|---|---:|---:|---|---|"]
    for r in rows:
        ci = f"[{r.ci_low:.3f}, {r.ci_high:.3f}]" if r.ci_low is not None and r.ci_high is not None else "—"
        lines.append(f"| {r.parameter} | {r.planted:g} | {r.measure} | {_num(r.expected)} | {_num(r.recovered)} | "
                     f"{ci} | {r.note} |")
    return "\n".join(lines) + "\n"
