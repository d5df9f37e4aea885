"""Faultline's tabs in the shared Metrics section: its report sections, grouped (the section reads the
tables from their Markdown, so every number is the report's). A section named here by no tab, such as one
a later change adds, appears in the last tab."""

from __future__ import annotations

REST = "Errors, choices"  # the last tab: the sections no tab names
# (tab id, tab title, the titles of the report sections it holds, as prefixes): protocol.base.tabs_of_sections
LAYOUT = (
    ("metrics", "Metrics table", ("Faultline: does debate", "Faultline metrics by", "Faultline conditions without")),
    ("comparisons", "Comparisons", ("Faultline condition comparisons",)),
    ("spread", "Spread", ("Faultline semantic spread",)),
    ("cruxes", "Crux cards", ("Faultline crux",)),
)
