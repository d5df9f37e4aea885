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
