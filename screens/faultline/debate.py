"""The live debate screen: the transcript (personas side by side, streaming) plus its crux cards."""

from __future__ import annotations

from textual.binding import Binding

from screens.faultline.crux_browser import CruxBrowserScreen
from screens.faultline.transcript import DebateTranscript


class DebateScreen(DebateTranscript):
    BINDINGS = [
        Binding("c", "cruxes", "Crux cards", id="fl-debate-cruxes", tooltip="Browse this debate's crux cards"),
    ]

    def action_cruxes(self) -> None:
        self.app.push_screen(CruxBrowserScreen(self.db, self.study_id, self.run_id))
