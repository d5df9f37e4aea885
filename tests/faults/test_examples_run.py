"""Every shipped example runs as its header says (issue 34, finding 5): each study file's opening comment lists
its commands; they are run verbatim, in that order, on a fresh store in a folder of their own, and each must
succeed. One test per study file, so that a parallel run spreads them. A study whose header lists the very
commands of a README chain is run once, by tests/test_readme_commands.py (the README's two chains take the
longest of all examples); here it is checked that the two lists are the same."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_readme_commands import readme_chains

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "studies").glob("*.toml"))  # studies/local/ needs a server: the real-model suite runs it


def header_commands(path: Path) -> list[list[str]]:
    """The `workbench ...` lines of the file's opening comment, split as a shell would (comments dropped)."""
    commands = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            break
        text = line.lstrip("#").strip()
        if text.startswith("workbench "):  # prose around the commands is not shell
            commands.append(shlex.split(text, comments=True)[1:])
    return commands


def readme_commands() -> dict[str, list[list[str]]]:
    """study file name -> the README chain's workbench commands, as a header would list them (`--resume`,
    which a header leaves to the reader, dropped)."""
    chains = {}
    for chain in readme_chains():
        commands = [[a for a in shlex.split(c.split(".venv/bin/workbench ", 1)[1]) if a != "--resume"]
                    for c in chain if ".venv/bin/workbench " in c]
        chains[Path(commands[0][-1]).name] = commands
    return chains


README_RUN = readme_commands()
HEADER_RUN = [p for p in EXAMPLES if p.name not in README_RUN]


def test_an_example_the_readme_runs_lists_exactly_the_readme_commands():
    assert README_RUN, "the README runs no shipped example"
    for name, commands in README_RUN.items():
        assert header_commands(ROOT / "studies" / name) == commands, name


def test_every_example_lists_its_commands_from_create_onwards():
    for path in EXAMPLES:
        commands = header_commands(path)
        assert commands, f"{path.name} lists no commands"
        assert commands[0] == ["--batch", "study", "create", f"studies/{path.name}"], path.name


@pytest.mark.parametrize("path", HEADER_RUN, ids=[p.stem for p in HEADER_RUN])
def test_the_example_runs_as_its_header_says(path, tmp_path):
    for shared in ("studies", "cases", "rubrics"):  # the header's paths, and what they name, as in the checkout
        (tmp_path / shared).symlink_to(ROOT / shared)
    env = dict(os.environ, WORKBENCH_DB=str(tmp_path / "workbench.db"),
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    for argv in header_commands(path):
        proc = subprocess.run([sys.executable, "-m", "workbench.cli.main", *argv], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=900)
        assert proc.returncode == 0, (f"workbench {' '.join(argv)} exited {proc.returncode}\n"
                                      f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
        assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
