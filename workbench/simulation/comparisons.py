"""Which comparisons a study pre-registers, for the power analysis.

Its protocol says (`StudyProtocol.preregistered_comparisons`; hindsight: the seed's four comparisons of
Table 4, seed 000 §XII, over the study's conditions). A protocol that computes its own power
(`StudyProtocol.power_document`: faultline) names its comparisons itself.
"""

from __future__ import annotations


def preregistered(definition: dict) -> list[str]:
    from workbench.protocol.registry import protocol_of

    return protocol_of(definition).preregistered_comparisons(definition)
