"""Which comparisons a study pre-registers, for the power analysis.

Hindsight: the seed's four comparisons of Table 4 (seed 000 §XII), over the study's conditions.
Any other protocol: each condition against the study's first condition on its first rubric (the
project's choice; its own metrics name no A-versus-B comparison in the study file). A protocol that
computes its own power (`StudyProtocol.power_document`: faultline) names its comparisons itself.
"""

from __future__ import annotations


def preregistered(definition: dict) -> list[str]:
    conditions = list(definition.get("conditions") or [])
    if definition.get("protocol", "hindsight") == "hindsight":
        from workbench.metrics.hindsight_tables import SEED_COMPARISONS

        return [f"{a}:{b}:{m}" for a, b, m in SEED_COMPARISONS if a in conditions and b in conditions]
    metric = (definition.get("rubrics") or ["score"])[0]
    return [f"{c}:{conditions[0]}:{metric}" for c in conditions[1:]]
