"""The app's sections, in navigation order.

Each entry names the screen class as "module:Class"; the screen is constructed
with the app's `WorkbenchContext` (see `screens/app.py`).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Section:
    id: str
    title: str
    target: str  # "module:Class"
    key: str
    description: str
    palette: str = ""  # the prefix of its palette commands ("runs:"); help lists it, providers use it


SECTIONS = [
    Section("cases", "Cases", "screens.cases:CasesScreen", "1", "build, edit and probe decision cases", "cases:"),
    Section("studies", "Studies", "screens.studies:StudiesScreen", "2", "define and freeze studies", "studies:"),
    Section("runs", "Runs", "screens.runs:RunsScreen", "3", "launch runs and watch them stream", "runs:"),
    Section("scoring", "Scoring", "screens.scoring:ScoringScreen", "4", "score blind items with the keyboard",
            "score:"),
    Section("metrics", "Metrics", "screens.metrics:MetricsScreen", "5", "tables, agreement and plots", "metrics:"),
    Section("settings", "Settings", "screens.settings:SettingsScreen", "6", "models, limits and keys",
            "settings:"),
]

# Palette prefixes that belong to no one section: navigation and a protocol's own screens.
APP_PALETTE = {"go:": "go to a section", "panels:": "a protocol's own screens for a study"}


def palette_prefix(section_id: str) -> str:
    return next((s.palette for s in SECTIONS if s.id == section_id), f"{section_id}:")
