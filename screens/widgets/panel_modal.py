"""A panel over a section (evaluator quality, a verdict review, a queue): centred on the dimmed section, in a
bordered frame (its one Vertical) whose height each panel sets."""

from __future__ import annotations

from textual.screen import ModalScreen


class PanelModal(ModalScreen[None]):
    DEFAULT_CSS = """
    PanelModal { align: center middle; background: $background 60%; }
    PanelModal > Vertical { width: 98%; border: thick $accent; background: $surface; padding: 0 1; }
    """
