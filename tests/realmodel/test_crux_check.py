"""Faultline's crux equivalence check (issue 41) on real models, as `read cruxes --equivalence model` and a
study's extractor ask it (equivalence.gateway_asker).

On SmolLM2-135M (the suite's model), six pairs, one of them raise/cut:
- With the schema the gateway sends (llama-cpp-python enforces it by grammar) every answer is read: SAME or
  DIFFERENT, none flagged. SmolLM2's answers are not held to be right (benchmarks/crux_check_models.py measured it
  at chance on unseen pairs): what is held is that they are read.
- A pair asked again is answered from the call log, not by the server.
- Raise and cut are never counted as one recurring crux silently: apart, or the reading is flagged.

On Qwen2.5-Coder-1.5B (the `checker` server: the smallest model here that answers the check above chance):
- the fifteen cruxes on one topic with raise / cut / hold triples, read with its check as a user types the command,
  recur no more than 0.1 (issue 41's target for the model's check);
- its accuracy on the tests' labelled pairs (tests/corpus/crux-pairs/planted-pairs.toml) holds the floor below.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from store.db import open_store
from workbench.gateway.api import ModelSettings
from workbench.protocols.faultline import equivalence as eq
from workbench.instruments.corpus import load
from workbench.protocols.faultline.instruments import read_cruxes
from tests.realmodel.kit import Workbench

CORPUS = Path(__file__).resolve().parents[1] / "corpus"

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


# Qwen2.5-Coder-1.5B answered 67 of these 81 right (83%, 2026-11-29; SAME to 23 of the 33 same): the floor leaves
# room for a build that rounds otherwise, and fails a check at chance (SmolLM2: 48-55% on such sets).
CHECK_FLOOR = 0.75
QWEN = "openai/qwen2.5-coder-1.5b"


def test_the_checker_keeps_fifteen_cruxes_on_one_topic_apart(tmp_path, checker):
    """Issue 41's target for the model's check, on the tests' planted set, as a user types the command."""
    planted = next(e for e in load(CORPUS, "cruxes") if e.id == "fifteen-distinct-one-topic-with-directions")
    runs = tmp_path / "one-topic.json"
    runs.write_text(planted.text)
    doc = Workbench(tmp_path, checker).json("read", "cruxes", str(runs), "--equivalence", "model", "--model", QWEN,
                                            "--api-base", checker.api_base, "--api-key-env", "none")
    assert doc["asked"] >= 20 and doc["unreadable"] == 0, doc
    assert doc["cr"] is not None and doc["cr"] <= 0.1, doc
    raise_, cut = (f"Will the central bank {verb} interest rates before the third quarter?"
                   for verb in ("raise", "cut"))
    assert not any(raise_ in c["questions"] and cut in c["questions"] for c in doc["clusters"]), doc


def test_the_checker_answers_the_labelled_pairs_above_its_floor(tmp_path, checker):
    pairs = [e for e in load(CORPUS, "crux-pairs") if Path(e.file).name == "planted-pairs.toml"]
    db = open_store(tmp_path / "check.db")
    settings = ModelSettings(model=QWEN, api_base=checker.api_base, api_key_env="none", temperature=0.0,
                             max_tokens=eq.CHECK_TOKENS, timeout=300.0)
    replies = eq.gateway_asker(db, tmp_path / "check.db", settings, None)(
        [eq.pair_prompt(*e.text.split("\n")) for e in pairs])
    read = [eq.read_check(r) for r in replies]
    assert None not in read, replies
    right = sum(r == e.truth["same"] for r, e in zip(read, pairs))
    assert len(pairs) == 81 and right / len(pairs) >= CHECK_FLOOR, right
