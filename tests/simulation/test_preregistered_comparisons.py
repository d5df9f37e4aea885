"""The comparisons the power analysis powers come from the study's protocol (asked through the registry):
hindsight's are the seed's Table 4 comparisons over the study's conditions, any other protocol's the
interface's default, each condition against the first on the first rubric."""

from __future__ import annotations

from workbench.simulation.comparisons import preregistered


def test_hindsight_pre_registers_the_seed_comparisons_its_conditions_allow():
    definition = {"protocol": "hindsight", "conditions": ["B1", "B3", "C2"]}
    assert preregistered(definition) == ["C2:B1:anticipation", "C2:B3:anticipation", "C2:B1:epistemic-humility"]
    # C3 against C2 joins once the study runs C3
    assert "C3:C2:anticipation" in preregistered({**definition, "conditions": ["B1", "B3", "C2", "C3"]})


def test_another_protocol_gets_each_condition_against_the_first():
    definition = {"protocol": "faultline", "conditions": ["plain", "graph-20", "graph-50"], "rubrics": ["spread"]}
    assert preregistered(definition) == ["graph-20:plain:spread", "graph-50:plain:spread"]
    assert preregistered({"protocol": "m11", "conditions": ["only"]}) == []
