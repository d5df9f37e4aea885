"""Before writing into a folder that holds anything: ask, naming what would be replaced (the files the
workbench wrote there) and what stays (everything else: workbench.files never replaces it)."""

from __future__ import annotations

from pathlib import Path

from screens.confirm import CANCEL, Choice, ChoiceDialog

REPLACE = "replace"


def folder_dialog(state) -> ChoiceDialog:
    """The question for a folder that holds files (`state`: workbench.files.FolderState)."""
    if state.ours:
        message = (f"{state.text()}.\n\nOnly files the workbench wrote there are replaced (or removed when this "
                   "save no longer writes them); nothing else in the folder is touched.")
        label = f"Replace {len(state.ours)} file(s)"
    else:
        message = (f"{state.text()}.\n\nThe workbench wrote none of them: they stay as they are, and a file of "
                   "the same name is never replaced (the save is refused instead).")
        label = "Write beside them"
    return ChoiceDialog(f"{state.path} is not empty", message,
                        [Choice(REPLACE, label, "r", "warning"), Choice(CANCEL, "Cancel", "c")],
                        cancel_id=CANCEL, default_id=CANCEL)


async def ask_to_write(screen, folder: str | Path) -> bool | None:
    """From an async worker: None if nothing may be written (cancelled, or not a folder: said), else whether
    the write must replace the workbench's files there (False: the folder is empty or absent)."""
    from workbench.files import WriteError, folder_state

    try:
        state = folder_state(folder)
    except WriteError as exc:
        screen.notify(f"nothing written: {exc}", title="Save", severity="error", timeout=10)
        return None
    if state.empty:
        return False
    return True if await screen.app.push_screen_wait(folder_dialog(state)) == REPLACE else None
