"""The debate view for the Runs section: the dashboard opened on its sample browser."""

from __future__ import annotations

from screens.m11.dashboard import M11Dashboard


class DebateScreen(M11Dashboard):
    initial_tab = "m11-tab-samples"
