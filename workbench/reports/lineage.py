"""A report's "Lineage" section (issue 42): the earlier studies on the same data, what they reported, and, where a
pre-registered parameter is an earlier result or an earlier study's results on the same data existed before the
freeze, the label EXPLORATORY on this study's results, naming the earlier study (workbench.studies.lineage)."""

from __future__ import annotations

TITLE = "Lineage: other studies on the same data"


def lineage_section(db, study_id: str) -> str:
    """The section's Markdown (with its heading), or "" when no other study used the same data."""
    from workbench.studies.lineage import exploratory, lineage_lines

    lines = lineage_lines(db, study_id)
    if not lines:
        return ""
    why = exploratory(db, study_id)
    head = ("**EXPLORATORY.** The results below are exploratory, not confirmatory, though pre-registered: "
            + "; ".join(why) + ". A confirmatory test needs new data (`replication_of` in the study file, "
            "checked at create)." if why else "No earlier result on this data was seen before the freeze, and no "
            "pre-registered parameter is an earlier study's result.")
    return f"## {TITLE}\n\n{head}\n\n" + "\n".join(f"- {line}" for line in lines) + "\n"


def with_lineage(text: str, db, study_id: str) -> str:
    """The report with its lineage section before its first section (after the shared heading)."""
    section = lineage_section(db, study_id)
    if not section:
        return text
    at = text.find("\n## ")
    return text + "\n" + section if at < 0 else text[:at + 1] + section + "\n" + text[at + 1:]
