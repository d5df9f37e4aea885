"""Calibration's tabs in the shared Metrics section: its report sections, grouped (the section reads the
tables from their Markdown, so every number is the report's). A section named here by no tab appears in the
last tab."""

from __future__ import annotations

REST = "Choices and files"  # the last tab: the sections no tab names
# (tab id, tab title, the titles of the report sections it holds, as prefixes): protocol.base.tabs_of_sections
LAYOUT = (
    ("outcome", "Outcome", ("Outcome", "Pre-registration", "The four outcomes")),
    ("arm-a", "Arm A", ("Arm A",)),
    ("arm-b", "Arm B", ("Arm B",)),
    ("arm-c", "Arm C", ("Arm C",)),
)
