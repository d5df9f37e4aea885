"""One small `sim` study of every protocol, built once per session for the export tests."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tests.simulation.helpers import cli, sim_study

# protocol -> (shipped study, replacements that keep it small, commands after `run`)
STUDIES = {
    "hindsight": ("glenda-crock-sim", {}, [["judge", "{s}"], ["simulate", "raters", "{s}"], ["unblind", "{s}"]]),
    "faultline": ("faultline-sim", {
        'conditions = ["plain", "graph-20", "qbaf-20", "latent-20", "single", "self-consistency"]':
        'conditions = ["plain", "single", "self-consistency"]', 'topics = ["nuclear-power", "sugar-tax"]':
        'topics = ["sugar-tax"]', "graph-20 = 0.3\n": "", "qbaf-20 = -0.2\n": "", "latent-20 = 0.2\n": "",
        "graph-20 = 0.8\n": "", "qbaf-20 = 0.7\n": "", "latent-20 = 0.5\n": ""}, []),
    "m11": ("m11-sim", {"runs = 3 ": "runs = 1 ", "limit = 0": "limit = 4"}, [["simulate", "raters", "{s}"],
                                                                     ["unblind", "{s}", "--force"]]),
    "calibration": ("calibration-sim", {}, []),
}


class Built:
    def __init__(self, protocol: str, study: str, db: Path, pre_unblind: Path | None) -> None:
        self.protocol, self.study, self.db, self.pre_unblind = protocol, study, db, pre_unblind


def build(root: Path, protocol: str) -> Built:
    name, replace, after = STUDIES[protocol]
    db = root / "store.db"
    cli(db, "study", "create", str(sim_study(root, name, replace, "files")))
    cli(db, "run", name)
    pre_unblind = None
    for step in after:
        if step[0] == "unblind":  # keep a copy of the store as it was while still blind
            pre_unblind = root / "blind.db"
            with sqlite3.connect(db) as src, sqlite3.connect(pre_unblind) as dst:
                src.backup(dst)
        cli(db, *[part.format(s=name) for part in step])
    return Built(protocol, name, db, pre_unblind)


@pytest.fixture(scope="session", params=list(STUDIES))
def built(request, tmp_path_factory) -> Built:
    return build(tmp_path_factory.mktemp(request.param), request.param)


@pytest.fixture(scope="session", params=[p for p, (_, _, after) in STUDIES.items()
                                         if any(step[0] == "unblind" for step in after)])
def blinded(request, tmp_path_factory) -> Built:
    """The studies whose outputs are blinded for raters or judges (hindsight, m11)."""
    return build(tmp_path_factory.mktemp(f"{request.param}-blinded"), request.param)
