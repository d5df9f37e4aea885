"""Faultline's tabs in the shared Metrics section: its report sections, grouped (the section reads the
tables from their Markdown, so every number is the report's). A section named here by no tab, such as one
a later change adds, appears in the last tab."""

from __future__ import annotations

from workbench.protocol.base import MetricsTab, tabs_of_sections

LAYOUT = (
    ("metrics", "Metrics table", ("Faultline: does debate", "Faultline metrics by", "Faultline conditions without")),
    ("comparisons", "Comparisons", ("Faultline condition comparisons",)),
    ("spread", "Spread per round", ("Faultline semantic spread",)),
    ("cruxes", "Crux cards", ("Faultline crux",)),
)


def metrics_tabs(protocol, db, study_id: str, options: dict) -> list[MetricsTab]:
    return tabs_of_sections(protocol.report_sections(db, study_id, options), LAYOUT, rest="Errors and choices")
