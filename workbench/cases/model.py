"""The Case record (seed 000 §III–IV, seed 001 §2.1 and §2.3)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field

CASE_TYPES = ("historical", "constructed")
STATUSES = ("draft", "ready", "excluded")
# Seed 000 §III: post-cutoff, structural transposition, granularity below training data.
STRATEGIES = ("A", "B", "C")
# Seed 000 §IV recommended domains, plus "other" for anything outside them.
DOMAINS = ("organizational", "infrastructure", "policy", "other")
# Seed 001 §2.1 complexity classes (DQ-1) and §2.3 concern taxonomies (DQ-3).
COMPLEXITIES = ("low", "medium", "high")
CONCERN_DOMAINS = ("technology", "business", "policy", "unknown")
# Seed 000 §IV: each case must satisfy all five before it is ready.
CRITERIA = {
    "clear_decision_point": "Clear decision point: a specific moment where a choice was made, with identifiable options",
    "outcome_visible": "Outcome now visible: consequences have played out (minimum 6 months, ideally 1-2 years)",
    "knowledge_boundary": "Reconstructable knowledge boundary: what was known at the decision point can be separated from later information",
    "causal_record": "Causal record exists: enough documentation to reconstruct the chain from decision to outcome",
    "manageable_contamination": "Manageable contamination: passes the contamination probe, or can be transposed without losing structure",
}
# Seed 000 §III step 3: a probe that identifies the case or predicts (part of) the outcome.
CONTAMINATED_VERDICTS = ("recognized", "partial")
# Seed 000 §III Strategy B: the two verifiers confirm these three are preserved.
PRESERVES = {
    "information_asymmetry": "the information asymmetry",
    "structural_tensions": "the key structural tensions",
    "decision_point": "the decision point and available options",
}
# Body sections, in file order; the scenario is the only text architectures see.
SECTIONS = {
    "scenario": "Scenario",
    "outcome": "Outcome",
    "structural_tension": "Structural tension",
    "research_needed": "Research needed",
    "notes": "Notes",
}


@dataclass
class Transposition:
    original: str = ""
    mapping: list[dict] = field(default_factory=list)  # [{"from": ..., "to": ...}]
    verifiers: list[str] = field(default_factory=list)
    preserves: dict[str, bool] = field(default_factory=lambda: {k: False for k in PRESERVES})

    def is_empty(self) -> bool:
        return not (self.original or self.mapping or self.verifiers or any(self.preserves.values()))

    def for_evaluators(self) -> str | None:
        """What an evaluator needs to map the transposed scenario back to the real case (seed 000 §III, strategy
        B), or None for a case that is not transposed. The same for every item of the case: it names no
        condition."""
        if not self.mapping:
            return None
        lines = ["The scenario is a structural transposition of a real case"
                 + (f": {self.original}." if self.original else ".")
                 + " Read the scenario's terms as the real case's when you compare the response with the outcome:"]
        lines += [f"- {m.get('to', '')} (in the scenario) = {m.get('from', '')} (in the real case)" for m in self.mapping]
        return "\n".join(lines)


@dataclass
class Probe:
    model: str
    date: str
    verdict: str  # recognized | partial | not_recognized
    scenario_hash: str = ""
    note: str = ""


@dataclass
class Case:
    id: str
    title: str
    type: str = "historical"
    domain: str = "other"
    status: str = "draft"
    strategies: list[str] = field(default_factory=list)
    decision_date: str = ""
    complexity: str = "medium"
    concern_domain: str = "unknown"
    rubric: str = ""
    source: str = ""
    criteria: dict[str, bool] = field(default_factory=lambda: {k: False for k in CRITERIA})
    transposition: Transposition = field(default_factory=Transposition)
    probes: list[Probe] = field(default_factory=list)
    scenario: str = ""
    outcome: str = ""
    structural_tension: str = ""
    research_needed: str = ""
    notes: str = ""

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> "Case":
        data = dict(data)
        data["transposition"] = Transposition(**data.get("transposition") or {})
        data["probes"] = [Probe(**p) for p in data.get("probes") or []]
        return cls(**data)

    @property
    def scenario_hash(self) -> str:
        return text_hash(self.scenario)

    @property
    def content_hash(self) -> str:
        return text_hash(json.dumps(self.to_dict(), sort_keys=True, ensure_ascii=False))

    def latest_probe(self) -> Probe | None:
        return max(self.probes, key=lambda p: p.date) if self.probes else None

    def contamination_flags(self) -> list[Probe]:
        """Probes of the current scenario text that recognized the case or predicted part of its
        outcome (seed 000 §III step 3: either makes it contaminated for that model): transpose or exclude."""
        return [
            p
            for p in self.probes
            if p.verdict in CONTAMINATED_VERDICTS and (not p.scenario_hash or p.scenario_hash == self.scenario_hash)
        ]


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
