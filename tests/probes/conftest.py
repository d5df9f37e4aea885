"""Probe fixtures: a temporary case library (never the shipped cases/), a store, and a scripted loopback model."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from tests.support.case_files import case_text
from tests.support.loopback import loopback_server  # noqa: F401  (the fixture)

CASES = {
    "quarry-loan": ("Quarry loan covenant", "A regional lender must decide whether to waive a covenant for a quarry "
                    "operator whose main customer is delaying payments.",
                    "The customer failed; the lender lost most of the loan."),
    "ferry-timetable": ("Ferry timetable cut", "A ferry operator considers cutting its winter timetable to save fuel "
                        "while a rival bids for the same island route.",
                        "The rival won the route; the operator exited the market."),
}


def write_case(directory, case_id: str) -> None:
    title, scenario, outcome = CASES[case_id]
    text = case_text(id=case_id, title=title, scenario=scenario, outcome=outcome, domain="organizational",
                     decision_date="2018-06", concern_domain="business", source="probe test fixture")
    (directory / f"{case_id}.md").write_text(text, encoding="utf-8")


@pytest.fixture
def library(tmp_path, monkeypatch):
    cases = tmp_path / "cases"
    cases.mkdir()
    for case_id in CASES:
        write_case(cases, case_id)
    monkeypatch.setenv("WORKBENCH_CASES_DIR", str(cases))
    own = tmp_path / "case-library"  # the user's case library: where a probe of a shipped case is written
    monkeypatch.setenv("WORKBENCH_CASE_LIBRARY", str(own))
    return SimpleNamespace(cases=cases, own=own, db=tmp_path / "store" / "workbench.db")


@pytest.fixture
def db(library):
    from store import open_store
    from workbench.cases.library import bootstrap

    database = open_store(library.db)
    bootstrap(database)
    yield database
    database.close()


def scripted_model(verdicts: dict[str, str], answers: dict[str, str] | None = None, raw: dict[str, str] | None = None):
    """A loopback responder: the probe gets an answer, the classifier a JSON verdict, chosen by case."""
    answers = answers or {}
    raw = raw or {}

    def respond(body: dict) -> str:
        content = body["messages"][-1]["content"]
        for case_id, (title, scenario, _outcome) in CASES.items():
            if content.startswith(scenario):  # the probe itself
                return answers.get(case_id, "I do not recognize this specific scenario.")
            if f"Real event behind the scenario: {title}" in content:  # the classifier
                if case_id in raw:
                    return raw[case_id]
                return json.dumps({"verdict": verdicts.get(case_id, "not_recognized"),
                                   "identified_event": "", "reason": "scripted"})
        return "unexpected request"

    return respond
