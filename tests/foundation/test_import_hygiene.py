"""The core and the store never import Textual (DESIGN.md: screens -> workbench -> store)."""

from __future__ import annotations

import pkgutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _all_modules(package: str) -> list[str]:
    names = [package]
    for info in pkgutil.walk_packages([str(ROOT / package)], prefix=f"{package}."):
        names.append(info.name)
    return names


def modules_loaded(code: str, names: tuple[str, ...]) -> list[str]:
    """Which of `names` a fresh interpreter has imported after running `code` (which must succeed)."""
    code += f"print(','.join(m for m in {names!r} if m in sys.modules))\n"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    last = out.stdout.strip().splitlines()[-1:] or [""]
    return [m for m in last[0].split(",") if m]


def test_core_and_store_never_load_textual():
    modules = _all_modules("workbench") + _all_modules("store")
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        "bad = sorted(m for m in sys.modules if m == 'textual' or m.startswith('textual.'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "", f"textual imported by the core: {out.stdout}"


def test_cli_start_does_not_load_heavy_libraries():
    code = (
        "import sys\n"
        "from workbench.cli.main import build_parser\n"
        "build_parser()\n"
        "heavy = [m for m in ('litellm', 'torch', 'sentence_transformers', 'scipy', 'textual') if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == ""


def test_batch_commands_through_the_workbench_command_load_neither_textual_nor_pandas(tmp_path):
    """`workbench --batch …` (screens.launch, the console script) hands the command to workbench.cli before
    anything of the screens is imported, and the store loads sqlite-utils without its optional pandas and
    numpy: a batch command imports neither Textual nor pandas, a study run on `mock` included."""
    study = ROOT / "studies" / "calibration-small.toml"
    code = (
        "import contextlib, io, sys\n"
        "from screens.launch import main\n"
        f"db = {str(tmp_path / 'store.db')!r}\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):\n"
        "    try:\n"
        "        main(['--batch', '--help'])\n"
        "    except SystemExit:\n"
        "        pass\n"
        f"    assert main(['--batch', '--db', db, 'study', 'create', {str(study)!r}]) == 0\n"
        "    assert main(['--batch', '--db', db, 'study', 'show', 'calibration-small']) == 0\n"
        "    assert main(['--batch', '--db', db, 'run', 'calibration-small']) == 0\n"
    )
    loaded = modules_loaded(code, ("textual", "pandas", "screens.app"))
    assert loaded == [], f"loaded by batch commands: {loaded}"


def test_a_study_run_imports_no_statistics_embeddings_or_screens(tmp_path):
    """`workbench --batch run` imports only what a run uses: none of NumPy, SciPy, pandas, sentence-transformers
    (torch), Textual or the screens on a study that needs none of them (the store created in another process)."""
    db = str(tmp_path / "store.db")
    create = subprocess.run([sys.executable, "-m", "screens.launch", "--batch", "--db", db, "study", "create",
                             str(ROOT / "studies" / "calibration-small.toml")], cwd=ROOT, capture_output=True,
                            text=True, timeout=300)
    assert create.returncode == 0, create.stderr
    code = (
        "import contextlib, io, sys\n"
        "from screens.launch import main\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):\n"
        f"    assert main(['--batch', '--db', {db!r}, 'run', 'calibration-small']) == 0\n"
    )
    heavy = ("numpy", "scipy", "pandas", "sentence_transformers", "torch", "textual", "screens.app")
    # nor another command's module, nor a protocol but the study's own
    others = ("workbench.cli.judge_cmd", "workbench.cli.report_cmd", "workbench.protocols.hindsight",
              "workbench.protocols.faultline", "workbench.protocols.m11")
    loaded = modules_loaded(code, (*heavy, *others, "litellm", "workbench.protocols.calibration"))
    # litellm yes: the run made its calls through it
    assert loaded == ["litellm", "workbench.protocols.calibration"], f"loaded by a run: {loaded}"
