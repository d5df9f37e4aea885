"""The house's boundaries (pyproject.toml's import-linter contracts) hold, and can fail.

The contracts: screens → workbench → store; Textual only in screens/; shared
machinery never imports a protocol package; protocols never import each
other; the protocol interface and registry (workbench/protocol/) import no
machinery; the shared statistics (workbench/metrics/) import no protocol; no cycles between the
packages of workbench/ or screens/, with no exemption.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def lint(cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(cwd)}
    return subprocess.run([sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command; "
                           "sys.exit(lint_imports_command())", "--config", str(cwd / "pyproject.toml"),
                           "--no-cache"], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def copy_tree(tmp_path: Path) -> Path:
    for name in ("workbench", "screens", "store"):
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def assert_broken(tree: Path, *lines: str) -> None:
    """The contracts fail on `tree`, and its report holds each of `lines` (a contract BROKEN, an import)."""
    result = lint(tree)
    assert result.returncode != 0
    for line in lines:
        assert line in result.stdout, (line, result.stdout)


def test_the_contracts_hold():
    result = lint(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "BROKEN" not in result.stdout and "KEPT" in result.stdout


def test_a_planted_forbidden_import_breaks_them(tmp_path):
    tree = copy_tree(tmp_path)
    (tree / "workbench" / "runs" / "planted.py").write_text(
        "import textual  # a widget in the core\n"
        "from workbench.protocols.hindsight import PROTOCOL  # the runner reaching into a protocol\n")
    (tree / "store" / "planted.py").write_text("from workbench.events import Event  # the store importing up\n")
    assert_broken(tree, "Textual only in screens/ BROKEN",
                  "Shared machinery never imports a protocol (it asks the registry) BROKEN",
                  "screens → workbench → store BROKEN",
                  "workbench.runs.planted -> workbench.protocols.hindsight")


def test_the_interface_importing_the_runner_breaks_them(tmp_path):
    """The interface at the bottom: one default reaching up into the runner (even inside a method, where
    it would run fine) is refused, and it would close a cycle the acyclic contract no longer exempts."""
    tree = copy_tree(tmp_path)
    base = tree / "workbench" / "protocol" / "base.py"
    base.write_text(base.read_text() + "\n\ndef _planted():\n    from workbench.runs.runner import StudyRunner\n")
    assert_broken(tree, "The protocol interface and registry import no machinery BROKEN",
                  "workbench.protocol.base -> workbench.runs.runner",
                  "No cycles between the core's packages BROKEN")


def test_no_contract_has_an_exemption():
    """The house holds with no `ignore_imports`: the `sim` model has its own package below the gateway."""
    import tomllib

    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    assert contracts and all(not c.get("ignore_imports") for c in contracts), \
        [c["name"] for c in contracts if c.get("ignore_imports")]


def test_the_sim_model_reaching_up_into_the_simulated_raters_breaks_them(tmp_path):
    """workbench.simmodel sits below the gateway: a function-level import of the simulated raters (which fill
    packets through scoring, above the gateway) closes a cycle the acyclic contract reads."""
    tree = copy_tree(tmp_path)
    engine = tree / "workbench" / "simmodel" / "engine.py"
    engine.write_text(engine.read_text() + "\n\ndef _planted():\n    from workbench.simulation.raters import fill_raters\n")
    assert_broken(tree, "No cycles between the core's packages BROKEN")


def test_the_statistics_importing_hindsight_breaks_them(tmp_path):
    """workbench.metrics holds statistics any protocol may use: reaching back into hindsight's tables (even
    inside a function) is refused by its own contract."""
    tree = copy_tree(tmp_path)
    (tree / "workbench" / "metrics" / "planted.py").write_text(
        "def _planted():\n    from workbench.protocols.hindsight.metrics.tables import SEED_COMPARISONS\n")
    assert_broken(tree, "The shared statistics import no protocol BROKEN",
                  "workbench.metrics.planted -> workbench.protocols.hindsight.metrics.tables")
