"""The mixin for screens that hold work the user could lose (edits, a running study).

While such a screen is shown it is registered with the app's quit guard, so
quitting asks it first (`has_unsaved_changes()` / `resolve_unsaved_changes()`,
see `WorkbenchApp.register_unsaved_guard`). Textual calls these handlers for
every class in the MRO, so a screen's own `on_screen_resume` still runs too.
"""

from __future__ import annotations


class UnsavedGuard:
    def on_screen_resume(self) -> None:
        register = getattr(self.app, "register_unsaved_guard", None)
        if register is not None:
            register(self)

    def on_unmount(self) -> None:
        unregister = getattr(self.app, "unregister_unsaved_guard", None)
        if unregister is not None:
            unregister(self)
