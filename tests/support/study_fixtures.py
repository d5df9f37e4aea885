"""Study fixtures shared by the architecture and runner tests: a store with fixture cases,
the scripted loopback model, and a study runner."""

from __future__ import annotations

import pytest

from tests.runner.studykit import create, gateway, make_store, scripted, study_text
from tests.support.loopback import loopback_server  # noqa: F401  (the fixture)
from workbench.events import ListSink


@pytest.fixture
def store(tmp_path):
    db, db_path, cases_dir = make_store(tmp_path)
    yield db, db_path
    db.close()


@pytest.fixture
def server(loopback_server):
    loopback_server.responder = scripted
    return loopback_server


@pytest.fixture
def run_conditions(store, server):
    """Create a study of the given conditions on the scripted server, run it; (summary, events, db)."""
    from workbench.runs.runner import run_study

    db, db_path = store

    async def run(*conditions, extra: str = "", cases=("toll-bridge",), name: str = "arch-study"):
        study_id = create(db, study_text(name, cases=cases, conditions=conditions, api_base=server.url,
                                         extra=extra))
        sink = ListSink()
        summary = await run_study(db, gateway(db, db_path), study_id, sink=sink)
        return summary, sink.events, db

    return run
