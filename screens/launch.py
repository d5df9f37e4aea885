"""The `workbench` command: the TUI, or `--batch` commands through workbench.cli (the top of the house).

`make_app` is the one factory of the app, used here and by the snapshot tests. A batch command never
imports the screens (nor Textual): `main` hands the command line to workbench.cli, which opens the TUI
through `run_app` only without --batch, and serves the desk (`desk serve`) through `serve_desk`.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from screens.app import WorkbenchApp
    from workbench.scoring.rater_lock import RaterLock


def make_app(db_path: Path, rater: RaterLock | None = None) -> WorkbenchApp:
    """The app on the store at `db_path`, which it opens after its first frame (a store that cannot be
    opened ends it with code 1 and `exit_note()`); with `rater`, locked to that rater's blind scoring of one
    study (screens/rater_desk.py), after refusing a lock that cannot be honoured (RaterLockRefused, or
    StoreError: the rater's store is opened at once)."""
    if rater is not None:
        from screens.rater_desk import RaterApp  # the scoring desk's modules: not needed to paint Cases

        return RaterApp(Path(db_path), rater)
    from screens.app import WorkbenchApp

    return WorkbenchApp(Path(db_path))


def run_app(db_path: Path, rater: RaterLock | None = None) -> int:
    """Open the TUI on the store at `db_path` (locked to `rater` if given); returns the exit code."""
    try:
        app = make_app(db_path, rater)
    except Exception as exc:  # the refusals are imported only now: they load the store's modules
        from workbench.paths import StoreError
        from workbench.scoring.rater_lock import RaterLockRefused

        if not isinstance(exc, (StoreError, RaterLockRefused)):
            raise
        print(f"workbench: {exc}", file=sys.stderr)
        return 1
    app.run()
    note = app.exit_note()
    if note:  # the store could not be opened; rater mode: why the session could not open, or that it failed
        print(f"workbench: {note}", file=sys.stderr)
    return app.return_code or 0


def serve_desk(*args, **kwargs) -> None:
    """`desk serve`'s server (screens/desk_server.py: textual-serve and aiohttp, imported only for it)."""
    from screens.desk_server import serve_study

    serve_study(*args, **kwargs)


def main(argv: list[str] | None = None) -> int:
    """The console script: batch commands run headless, anything else opens the TUI."""
    from workbench.cli.main import main as cli_main

    return cli_main(argv, open_tui=run_app, serve_desk=serve_desk)


if __name__ == "__main__":
    sys.exit(main())
