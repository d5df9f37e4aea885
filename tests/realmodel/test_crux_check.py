"""Faultline's crux equivalence check (issue 41) on the real model, as `read cruxes --equivalence model` and a
study's extractor ask it (equivalence.gateway_asker): six pairs, one of them raise/cut.

- With the schema the gateway sends (llama-cpp-python enforces it by grammar) every answer is read: SAME or
  DIFFERENT, none flagged. SmolLM2-135M's answers are not held to be right (benchmarks/crux_check_models.py
  measured it near chance on unseen pairs): what is held is that they are read.
- A pair asked again is answered from the call log, not by the server.
- Raise and cut are never counted as one recurring crux silently: apart, or the reading is flagged.
"""

from __future__ import annotations

import re

import pytest

from store.db import open_store
from workbench.gateway.api import ModelSettings
from workbench.protocols.faultline import equivalence as eq
from workbench.protocols.faultline.instruments import read_cruxes

pytestmark = pytest.mark.realmodel

RAISE, CUT = "Will the central bank raise rates before Q3?", "Will the central bank cut rates before Q3?"
PAIRS = [  # three rewordings and three different questions, the first raise/cut
    (RAISE, CUT),
    (RAISE, "Does the Fed hike ahead of the third quarter?"),
    ("Will the new tariff raise consumer prices?", "Does the tariff save jobs in the steel towns?"),
    ("Will the bridge open on schedule?", "Is the bridge opening going to be delayed?"),
    ("Will the city ban cars downtown?", "Will ridership on city buses double?"),
    ("Can the mill expand capacity within two years?", "Will the mill be able to grow its output in under two years?"),
]


@pytest.fixture
def ask(tmp_path, server):
    db = open_store(tmp_path / "check.db")
    settings = ModelSettings(model="openai/smollm2", api_base=server.api_base, api_key_env="none", temperature=0.0,
                             max_tokens=eq.CHECK_TOKENS, timeout=300.0)
    return lambda: eq.gateway_asker(db, tmp_path / "check.db", settings, None)


def test_every_constrained_answer_is_read_and_a_pair_asked_again_is_replayed(ask, server):
    prompts = [eq.pair_prompt(a, b) for a, b in PAIRS]
    before = server.requests()
    replies = ask()(prompts)
    assert server.requests() - before == len(PAIRS)
    assert all(eq.read_check(r) is not None for r in replies), replies
    assert all(re.fullmatch(r'\s*\{\s*"answer"\s*:\s*"(SAME|DIFFERENT)"\s*\}\s*', r) for r in replies), replies
    assert ask()(prompts) == replies and server.requests() - before == len(PAIRS)


def test_raise_and_cut_are_never_one_recurring_crux_silently(ask):
    runs = f'[["{RAISE}", "Will the new tariff raise consumer prices?"], ' \
           f'["{CUT}", "Will consumer prices go up because of the tariff?"]]'
    doc = read_cruxes(runs, {"equivalence": eq.MODEL}, ask=ask())
    assert doc["asked"] >= 1 and doc["unreadable"] == 0
    joined = any(RAISE in c["questions"] and CUT in c["questions"] for c in doc["clusters"])
    assert not joined or (doc["flagged"] and "differ in direction" in doc["reason"]), doc
