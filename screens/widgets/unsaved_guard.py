"""The mixin for screens that hold work the user could lose (edits, a running study), and `LeaveAsking`, the
forms that Esc leaves only after asking.

While such a screen is shown it is registered with the app's quit guard, so
quitting asks it first (`has_unsaved_changes()` / `resolve_unsaved_changes()`,
see `WorkbenchApp.register_unsaved_guard`). Textual calls these handlers for
every class in the MRO, so a screen's own `on_screen_resume` still runs too.
"""

from __future__ import annotations

from textual import work


class UnsavedGuard:
    def on_screen_resume(self) -> None:
        register = getattr(self.app, "register_unsaved_guard", None)
        if register is not None:
            register(self)

    def on_unmount(self) -> None:
        unregister = getattr(self.app, "unregister_unsaved_guard", None)
        if unregister is not None:
            unregister(self)


class LeaveAsking(UnsavedGuard):
    """A form screen that Esc leaves, asking first when it holds unsaved changes; it dismisses with
    `left_with()` (the case or study it was editing)."""

    def left_with(self):
        raise NotImplementedError

    def action_leave(self) -> None:
        if self.has_unsaved_changes():
            self._leave_after_asking()
        else:
            self.dismiss(self.left_with())

    @work(exclusive=True, group="leave", exit_on_error=False)
    async def _leave_after_asking(self) -> None:
        if await self.resolve_unsaved_changes():
            self.dismiss(self.left_with())
