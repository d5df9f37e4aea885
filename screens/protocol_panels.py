"""A protocol's own screens (its `panels`), opened on a study: the live debate, a dashboard, an import.

Hindsight's panels are the Runs and Metrics sections themselves; another
protocol names Textual screens (`"screens.<pkg>.<module>:<Class>"`, built as
`Class(db, study_id)`). They open from the palette (`panels: …`) and with `o`
in the Runs and Metrics sections.
"""

from __future__ import annotations

import importlib
from functools import partial

from textual.screen import Screen
from textual.widgets import Static

from screens.commands import ListProvider

PANEL_TITLES = {"run": "live run", "metrics": "results", "items": "items", "cruxes": "crux cards"}


def study_panels(db, study_id: str) -> dict[str, str]:
    """kind -> dotted screen path for the study's protocol (empty for hindsight and unknown studies)."""
    from workbench.protocol.registry import UnknownProtocol, protocol_of
    from workbench.studies.lookup import find_study

    study = find_study(db, study_id)
    if study is None:
        return {}
    try:
        return dict(protocol_of(study["definition"]).panels)
    except UnknownProtocol:
        return {}


def panel_screen(path: str, db, study_id: str) -> Screen:
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)(db, study_id)


def open_panel(app, study_id: str, kind: str | None = None) -> Screen | None:
    """Push the study's `kind` panel (default: the first it has); None when its protocol has none."""
    panels = study_panels(app.db, study_id)
    path = panels.get(kind) if kind else next(iter(panels.values()), None)
    if path is None:
        return None
    screen = panel_screen(path, app.db, study_id)
    app.push_screen(screen)
    line = _marks(app.db, study_id)
    if line:  # the study's marks above the panel, as above every Metrics tab: a screenshot never passes for real
        screen.call_after_refresh(screen.mount, Static(line, classes="panel-marks", markup=False), before=0)
    return screen


def _marks(db, study_id: str) -> str:
    from workbench.exports.metrics_files import marks_line, study_marks
    from workbench.studies.lookup import find_study

    study = find_study(db, study_id)
    return marks_line(study_marks(db, study_id, study["definition"]), study["definition"]) if study else ""


class PanelFeed:
    """An event sink that hands a running study's events to the open panels that take them live
    (a screen with `feed(event)`, e.g. the faultline debate streaming its turns)."""

    def __init__(self) -> None:
        self.screens: list[Screen] = []

    def add(self, screen: Screen | None) -> None:
        if screen is not None and callable(getattr(screen, "feed", None)):
            self.screens.append(screen)

    def emit(self, event) -> None:
        self.screens = [s for s in self.screens if s.is_attached]
        for screen in self.screens:
            screen.feed(event)

    def watching(self, run_id) -> bool:
        """An open live panel watches every run of the study: their calls stream."""
        return any(s.is_attached for s in self.screens)


class PanelCommands(ListProvider):
    """`panels: <kind> of <study>` for every stored study whose protocol has screens of its own."""

    async def startup(self) -> None:
        worker = self.app.run_worker(partial(_all_panels, self.app.db), thread=True, exit_on_error=False,
                                     group="palette")
        try:
            self.panels = await worker.wait()
        except Exception:  # a store problem must not break the palette
            self.panels = []

    def commands(self):
        return [(f"panels: {PANEL_TITLES.get(kind, kind)} of {study_id}", f"{protocol} · {path.split(':')[-1]}",
                 partial(open_panel, self.app, study_id, kind))
                for study_id, protocol, kind, path in getattr(self, "panels", [])]


def _all_panels(db) -> list[tuple[str, str, str, str]]:
    from workbench.studies.lookup import list_studies

    out = []
    for s in list_studies(db):
        for kind, path in study_panels(db, s["id"]).items():
            out.append((s["id"], s["protocol"], kind, path))
    return out
