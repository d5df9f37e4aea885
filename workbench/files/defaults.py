"""Where the TUI proposes to write what it saves and exports, when the user has not said.

Absolute, under one documented output folder, and distinct per study and per kind of output (the Metrics
screen's save and the Studies screen's "Metrics" export never propose the same folder):

    $WORKBENCH_OUTPUT_DIR/<study>/<what>       if the variable is set
    <platformdirs user documents>/hindsight-workbench/<study>/<what>   otherwise
"""

from __future__ import annotations

import os
from pathlib import Path

OUTPUT_ENV = "WORKBENCH_OUTPUT_DIR"


def output_root() -> Path:
    env = os.environ.get(OUTPUT_ENV)
    if env:
        return Path(env).expanduser().resolve()
    from platformdirs import user_documents_dir

    return Path(user_documents_dir()).resolve() / "hindsight-workbench"


def default_output(study_id: str, what: str) -> Path:
    """The folder (or file) proposed for `what` of `study_id`: `<output root>/<study>/<what>`."""
    return output_root() / study_id / what
