"""M11's tabs in the shared Metrics section: its report sections, grouped (the section reads the tables from
their Markdown, so every number is the report's). A section named here by no tab appears in the last tab."""

from __future__ import annotations

REST = "Samples and validation"  # the last tab: the sections no tab names
# (tab id, tab title, the titles of the report sections it holds, as prefixes): protocol.base.tabs_of_sections
LAYOUT = (
    ("dashboard", "Dashboard", ("M11 overview", "Confidence and retries", "Cost", "Human validation")),
    ("bands", "Bands", ("Bands and binary",)),
    ("trend", "Profile and trend", ("Likert profile",)),
)
