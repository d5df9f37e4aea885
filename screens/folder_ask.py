"""Before writing into a folder that holds anything: ask, naming what would be replaced (the files the
workbench wrote there) and what stays (everything else: workbench.files never replaces it)."""

from __future__ import annotations

from pathlib import Path

from screens.confirm import CANCEL, Choice, ChoiceDialog

REPLACE = "replace"


def folder_dialog(state, names: set[str] | None = None) -> ChoiceDialog:
    """The question for a folder that holds files (`state`: workbench.files.FolderState). `names`: the files
    the save will write, when known: one that is not the workbench's as it wrote it (edited by hand since, or
    another's) is named before any key is offered, for the save would be refused (issue 43)."""
    clash = sorted(n for n in state.theirs if n in (names or ()))
    if clash:
        message = (f"{state.text()}.\n\n{', '.join(clash)}: edited by hand since the workbench wrote it, or not "
                   "the workbench's. This save writes a file of that name and never replaces such a file, so it "
                   "would be refused: move it, or choose another folder.")
        return ChoiceDialog(f"{state.path} holds a file this save may not replace", message,
                            [Choice(CANCEL, "Cancel", "c")], cancel_id=CANCEL, default_id=CANCEL)
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


async def ask_to_write(screen, folder: str | Path, names: set[str] | None = None) -> bool | None:
    """From an async worker: None if nothing may be written (cancelled, or not a folder: said), else whether
    the write must replace the workbench's files there (False: the folder is empty or absent). `names`: the
    files the save writes, when known (see folder_dialog)."""
    from workbench.files import WriteError, folder_state

    try:
        state = folder_state(folder)
    except WriteError as exc:
        screen.notify(f"nothing written: {exc}", title="Save", severity="error", timeout=10)
        return None
    if state.empty:
        return False
    return True if await screen.app.push_screen_wait(folder_dialog(state, names)) == REPLACE else None
