"""Which comparisons a study pre-registers, for the power analysis: its protocol says
(`StudyProtocol.preregistered_comparisons`; hindsight: the seed's four comparisons of Table 4)."""

from __future__ import annotations


def preregistered(definition: dict) -> list[str]:
    from workbench.protocol.registry import protocol_of

    return protocol_of(definition).preregistered_comparisons(definition)
