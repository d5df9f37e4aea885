"""The contract suite's fixtures: the toy protocol installed as an outside package, and each protocol's study
built once.

Package-scoped: the studies are built once for every module of tests/contract (the commands and the
screens), and the toy protocol is uninstalled when the package's last test has run.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import shutil
import sys
from pathlib import Path

import pytest

from tests.contract.studies import BY_PROTOCOL, ContractStudy, copy_stage
from tests.support import toy_protocol
from workbench.cli.main import main
from workbench.protocol import registry

OUTSIDE = "echo_outside_protocol"  # the toy's package name outside the repository


@pytest.fixture(scope="package", autouse=True)
def toy_registered(tmp_path_factory):
    """The toy protocol as a research group would ship it: its own package in a folder outside the repository,
    with the distribution metadata `pip install` leaves (a dist-info whose `workbench.protocols` entry point
    names it), found by the registry through that entry point; `registry.register` is not called."""
    site = tmp_path_factory.mktemp("site-packages")
    package = site / OUTSIDE
    package.mkdir()
    (package / "__init__.py").write_text(Path(toy_protocol.__file__).read_text(encoding="utf-8"), encoding="utf-8")
    info = site / f"{OUTSIDE}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {OUTSIDE}\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(f"[workbench.protocols]\n{toy_protocol.NAME} = {OUTSIDE}:PROTOCOL\n",
                                           encoding="utf-8")
    sys.path.insert(0, str(site))
    importlib.invalidate_caches()
    assert registry.entry_points()[toy_protocol.NAME] == f"{OUTSIDE}:PROTOCOL"
    assert type(registry.get(toy_protocol.NAME)).__module__ == OUTSIDE  # loaded from outside, not the tests
    yield
    registry.unregister(toy_protocol.NAME)
    sys.path.remove(str(site))
    sys.modules.pop(OUTSIDE, None)


def quiet(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def build(study: ContractStudy, root) -> dict:
    """The study's stages, each a folder holding a store and its call logs (see studies.py)."""
    stages = {}
    work = root / "work"
    work.mkdir()
    study_file = root / f"{study.name}.toml"
    study_file.write_text(study.study_text(), encoding="utf-8")
    db = str(work / "store.db")

    def step(stage: str, *argv: str) -> None:
        code, out, err = quiet(["--batch", "--db", db, *argv])
        assert code == 0, f"building {study.name}: {' '.join(argv)} exited {code}\n{out}\n{err}"
        if stage:
            shutil.copytree(work, root / stage)
            stages[stage] = root / stage

    step("created", "study", "create", str(study_file))
    step("ran", "run", study.name)
    if study.judges:
        step("", "judge", study.name)
    if study.raters:
        step("", "simulate", "raters", study.name)
    step("judged", "metrics", study.name)
    stages["file"] = study_file
    return stages


@pytest.fixture(scope="package")
def built(tmp_path_factory, toy_registered):
    """protocol -> its stages, each study built once per test package (tests/contract) (on first use)."""
    cache: dict[str, dict] = {}

    def get(protocol: str) -> dict:
        if protocol not in cache:
            cache[protocol] = build(BY_PROTOCOL[protocol], tmp_path_factory.mktemp(protocol))
        return cache[protocol]

    return get


def stage(built, study: ContractStudy, name: str, tmp_path):
    """A private copy of the study's stage `name`; the path of its store."""
    return copy_stage(built(study.protocol)[name], tmp_path / "store")
