"""The contract suite's fixtures: the toy protocol registered, and each protocol's study built once.

Package-scoped: the studies are built once for every module of tests/contract (the commands and the
screens), and the toy protocol is unregistered when the package's last test has run.
"""

from __future__ import annotations

import contextlib
import io
import shutil

import pytest

from tests.contract.studies import BY_PROTOCOL, ContractStudy, copy_stage
from tests.support.toy_protocol import EchoProtocol
from workbench.cli.main import main
from workbench.protocol import registry


@pytest.fixture(scope="package", autouse=True)
def toy_registered():
    registry.register(EchoProtocol())
    yield
    registry.unregister(EchoProtocol.name)


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
