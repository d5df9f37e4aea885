"""Protocols are found through the `workbench.protocols` entry-point group, as an outside package ships one.

Each test puts a temporary distribution's metadata (a `*.dist-info` folder with `entry_points.txt`) on
sys.path, as installing a package does, so nothing depends on the installed metadata of this checkout.
"""

from __future__ import annotations

import pytest

from workbench.protocol import registry


def install(tmp_path, monkeypatch, entry_points: str, dist: str = "toy_protocols") -> None:
    info = tmp_path / f"{dist}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(f"[workbench.protocols]\n{entry_points}\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))


@pytest.fixture(autouse=True)
def forget_loaded():
    """A protocol found through an entry point is cached by the registry: forget it after the test."""
    yield
    for name in ("echo-toy", "broken-toy", "misnamed"):
        registry.unregister(name)


def test_a_protocol_of_an_installed_distribution_is_found_and_runs(tmp_path, monkeypatch, capsys):
    from tests.support.toy_protocol import STUDY
    from workbench.cli.main import main

    assert "echo-toy" not in registry.names()
    install(tmp_path, monkeypatch, 'echo-toy = tests.support.toy_protocol:PROTOCOL')
    assert registry.entry_points()["echo-toy"] == "tests.support.toy_protocol:PROTOCOL"
    assert registry.get("echo-toy").title.startswith("Echo")
    assert registry.names()[:4] == ["hindsight", "faultline", "m11", "calibration"]
    assert "echo-toy" in registry.names()

    study = tmp_path / "echo.toml"
    study.write_text(STUDY, encoding="utf-8")
    db = str(tmp_path / "store.db")
    assert main(["--batch", "--db", db, "study", "create", str(study)]) == 0
    assert main(["--batch", "--db", db, "run", "echo-study"]) == 0
    assert "echo-study" in capsys.readouterr().out


def test_a_broken_entry_point_is_named_in_the_error_and_does_not_hide_the_others(tmp_path, monkeypatch):
    install(tmp_path, monkeypatch, 'broken-toy = no_such_protocol_package:PROTOCOL\n'
                                   'misnamed = tests.support.toy_protocol:PROTOCOL')
    with pytest.raises(registry.ProtocolLoadError) as err:
        registry.get("broken-toy")
    message = str(err.value)
    assert "broken-toy = no_such_protocol_package:PROTOCOL" in message
    assert "workbench.protocols" in message and "no_such_protocol_package" in message
    with pytest.raises(registry.ProtocolLoadError, match="named 'echo-toy', not 'misnamed'"):
        registry.get("misnamed")
    names = registry.names()
    assert "broken-toy" not in names and "misnamed" not in names and "hindsight" in names


def test_the_built_ins_are_known_without_any_entry_point(monkeypatch):
    """Stale metadata (an editable install of another tree) declares none: the built-ins still run."""
    monkeypatch.setattr(registry, "entry_points", lambda: {})
    assert registry.names()[:4] == ["hindsight", "faultline", "m11", "calibration"]
    assert registry.get("m11").name == "m11"


def test_the_built_ins_are_declared_as_entry_points_in_pyproject():
    import tomllib
    from pathlib import Path

    pyproject = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text("utf-8"))
    assert pyproject["project"]["entry-points"][registry.GROUP] == registry.BUILT_IN
