"""Case files: the decision cases shown to architectures and, with their outcomes, to evaluators."""

from workbench.cases.model import (
    CASE_TYPES,
    COMPLEXITIES,
    CONCERN_DOMAINS,
    CRITERIA,
    DOMAINS,
    STATUSES,
    STRATEGIES,
    Case,
    Probe,
    Transposition,
)
from workbench.problems import CaseError, Problem

__all__ = [
    "CASE_TYPES",
    "COMPLEXITIES",
    "CONCERN_DOMAINS",
    "CRITERIA",
    "DOMAINS",
    "STATUSES",
    "STRATEGIES",
    "Case",
    "CaseError",
    "Probe",
    "Problem",
    "Transposition",
]
