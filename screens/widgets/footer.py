"""The footer every workbench screen uses: Quit and Help stay visible however narrow the terminal.

Textual's Footer lists the focused widget's keys first and the app's last, so at 80 columns a
screen with many keys scrolls Quit and Help out of sight (issue 15). Here the app's own keys and
the palette key sit together at the right edge, and the screen's keys fill what is left.
"""

from __future__ import annotations

from textual.containers import HorizontalGroup
from textual.widgets import Footer

APP_ACTIONS = frozenset({"quit", "help"})
COMPACT_BELOW = 100  # columns: below this the keys lose their padding, so more of them fit


class KeyFooter(Footer):
    """A Footer whose Quit, Help and palette keys are pinned to the right edge."""

    DEFAULT_CSS = """
    KeyFooter .pinned-keys {
        dock: right;
        width: auto;
        height: 1;
        padding-left: 1;
    }
    KeyFooter .pinned-keys FooterKey.-command-palette {
        dock: none;
    }
    """

    _composed_for: tuple | None = None  # the keys the footer shows now (see `bindings_changed`)

    def keys_shown(self) -> tuple:
        """What the footer is drawn from: the screen's active keys (shown or not: the palette's is drawn
        though hidden) with their state, and the width class."""
        return (self.app.size.width < COMPACT_BELOW,
                tuple((b.key, b.description, b.action, b.group, b.show, enabled, tooltip)
                      for _, b, enabled, tooltip in self.screen.active_bindings.values()))

    def bindings_changed(self, screen) -> None:
        """Textual rebuilds the footer whenever the screen's bindings are refreshed (a focus change, a
        worker's end…), restyling every key; most refreshes leave the keys as they were."""
        if self._bindings_ready and screen is self.screen and self.keys_shown() == self._composed_for:
            return
        super().bindings_changed(screen)

    def on_resize(self) -> None:
        compact = self.size.width < COMPACT_BELOW
        if compact != self.compact and getattr(self.screen, "NARROW_KEYS", None) is not None:
            self.call_after_refresh(self.recompose)  # the narrow key set changes with the width
        self.compact = compact

    def compose(self):
        if self._bindings_ready:
            self._composed_for = self.keys_shown()
        if any(b.group for _, b, _, _ in self.screen.active_bindings.values()):
            yield from super().compose()  # grouped keys are composed inside their group: leave them be
            return
        pinned, rest = [], []
        # below COMPACT_BELOW columns a screen with more keys than fit names the ones that must stay visible
        essential = getattr(self.screen, "NARROW_KEYS", None) if self.app.size.width < COMPACT_BELOW else None
        for widget in super().compose():
            action = getattr(widget, "action", None)
            is_app_key = action in APP_ACTIONS or widget.has_class("-command-palette")
            name = (action or "").split("(", 1)[0]
            # named by action (`freeze`) or, for an action with an argument, whole (`selected('judge')`)
            if essential is not None and not {name, action} & essential and (not is_app_key or name == "quit"):
                continue  # in help (?) and the palette (ctrl+q too); the footer has no room for it here
            (pinned if is_app_key else rest).append(widget)
        yield from rest
        if pinned:
            # a class, not an id: a recompose racing the previous one (bindings changing fast on a loaded
            # machine) may mount the new group before the old one is gone, and ids must be unique
            yield HorizontalGroup(*pinned, classes="pinned-keys")
