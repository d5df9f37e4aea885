"""The README's command chains, run verbatim (issue 24 item 6).

Every `sh` block of README.md whose chain calls `.venv/bin/workbench` is parsed out of the README and run
by bash in a fresh directory, so the test fails as soon as the README drifts from what the tool does. Only
the setup steps (creating the venv, pip installing) are left out: this test runs inside an installed
environment, and `.venv/bin/workbench` there is a two-line script that starts this checkout's `workbench`
with the test's own Python. The chains must reach the report.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SETUP = (re.compile(r"^python3 -m venv \.venv$"), re.compile(r"^\.venv/bin/pip install "))
STEPS = ("study create", "run", "judge", "simulate raters", "unblind", "metrics", "report")


def readme_chains() -> list[list[str]]:
    """Each chain of `&&`-joined commands in a README `sh` block that runs `.venv/bin/workbench`."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    chains = []
    for block in re.findall(r"^```sh\n(.*?)^```", text, flags=re.M | re.S):
        for line in block.splitlines():
            if ".venv/bin/workbench " in line:
                chains.append([c.strip() for c in line.split(" && ")])
    return chains


def without_setup(chain: list[str]) -> list[str]:
    return [c for c in chain if not any(p.search(c) for p in SETUP)]


def test_the_readme_has_the_main_job_and_the_mock_dry_run_each_reaching_the_report():
    chains = readme_chains()
    studies = [next(c.split()[-1] for c in chain if " study create " in c) for chain in chains]
    assert "studies/glenda-crock-sim.toml" in studies and "studies/glenda-crock-mock.toml" in studies
    for chain in chains:
        steps = [c.split("--batch ", 1)[1] for c in chain if ".venv/bin/workbench --batch " in c]
        order = [next((i for i, s in enumerate(steps) if s.startswith(step + " ")), -1) for step in STEPS]
        assert -1 not in order and order == sorted(order), (STEPS, steps)


def fake_venv(folder: Path) -> None:
    bin_dir = folder / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    script = bin_dir / "workbench"
    script.write_text(f'#!/bin/sh\nPYTHONPATH="{ROOT}" exec "{sys.executable}" -m screens.launch "$@"\n',
                      encoding="utf-8")
    script.chmod(0o755)
    for shipped in ("studies", "cases", "rubrics"):
        (folder / shipped).symlink_to(ROOT / shipped)


@pytest.mark.parametrize("chain", readme_chains(), ids=lambda c: next(
    (x.split()[-1].rsplit("/", 1)[-1] for x in c if " study create " in x), "chain"))
def test_a_readme_chain_runs_verbatim_to_its_report(chain, tmp_path):
    fake_venv(tmp_path)
    commands = without_setup(chain)
    env = {k: v for k, v in os.environ.items() if not k.startswith("WORKBENCH_")}
    env["HOME"] = str(tmp_path)  # the store and case library never default to the user's own
    done = subprocess.run(["bash", "-c", " && ".join(commands)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, (done.stdout[-3000:], done.stderr[-3000:])
    report = next(c.split("--out ", 1)[1].split()[0] for c in commands if " report " in c)
    text = (tmp_path / report).read_text(encoding="utf-8")
    assert text.startswith("# ") and "Table 1" in text
    if "glenda-crock-mock" in report:  # no placeholder seconds a motion: the fidelity table says C2 never debated
        assert "| C2 | a motion seconded and debated | 0 of 1 |" in text
    if "glenda-crock-sim" in report:  # the simulator delivers every step: B3's answers all split, no cell marked
        assert "| B3 | perspectives split apart | 2 of 2 | 0 |" in text and "†" not in text
