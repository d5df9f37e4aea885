"""M11's tabs in the shared Metrics section: its report sections, grouped (the section reads the tables from
their Markdown, so every number is the report's). A section named here by no tab appears in the last tab."""

from __future__ import annotations

from workbench.protocol.base import MetricsTab, tabs_of_sections

LAYOUT = (
    ("dashboard", "Dashboard", ("M11 overview", "Confidence and retries", "Cost", "Human validation")),
    ("bands", "Bands", ("Bands and binary",)),
    ("trend", "Profile and trend", ("Likert profile",)),
)


def metrics_tabs(protocol, db, study_id: str, options: dict) -> list[MetricsTab]:
    return tabs_of_sections(protocol.report_sections(db, study_id, options), LAYOUT, rest="Samples and validation")
