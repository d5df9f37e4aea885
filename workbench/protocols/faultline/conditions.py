"""Condition ids and how each maps to seed 002's variables.

| id | architecture (seed: "Architecture") | belief-graph nodes per persona |
|---|---|---|
| plain | current dialogue | 0 |
| graph-20, graph-50 | belief graph injection | 20, 50 |
| qbaf, qbaf-20, qbaf-50 | QBAF crux | 0, 20, 50 |
| latent-20, latent-50 | latent (the project's reading, see README) | 20, 50 |
| single | single-agent baseline (ACC) | — |
| self-consistency | 5 samples, majority vote (ACC) | — |

The seed's third variable, initial epistemic divergence (low / medium / high),
belongs to the persona pair (`pairs/<id>.toml: divergence`): a study varies it
by the pairs it names, and every metric is also broken down by it.
"""

from __future__ import annotations

from dataclasses import dataclass

SINGLE = "single"
SELF_CONSISTENCY = "self-consistency"
BASELINES = (SINGLE, SELF_CONSISTENCY)
SC_SAMPLES = 5  # seed 002: "self-consistency (5 samples, majority vote)"
PAIR_VOTES = 2  # a persona pair's closing stances (library.py checks two personas a pair)


@dataclass(frozen=True)
class Condition:
    id: str
    architecture: str   # plain | graph | qbaf | latent | single | self-consistency
    nodes: int          # belief-graph nodes per persona (0: none in the persona's context)

    @property
    def is_debate(self) -> bool:
        return self.architecture not in BASELINES


_ALL = [Condition("plain", "plain", 0), Condition("graph-20", "graph", 20), Condition("graph-50", "graph", 50),
        Condition("qbaf", "qbaf", 0), Condition("qbaf-20", "qbaf", 20), Condition("qbaf-50", "qbaf", 50),
        Condition("latent-20", "latent", 20), Condition("latent-50", "latent", 50),
        Condition(SINGLE, SINGLE, 0), Condition(SELF_CONSISTENCY, SELF_CONSISTENCY, 0)]
CONDITIONS = {c.id: c for c in _ALL}
DEFAULT = ["plain", "graph-20", "qbaf-20", "latent-20", SINGLE, SELF_CONSISTENCY]


def condition(cid: str) -> Condition:
    try:
        return CONDITIONS[cid]
    except KeyError:
        raise KeyError(f"'{cid}' is not a faultline condition; use any of {', '.join(CONDITIONS)}") from None


def graph_sizes(conditions: list[str]) -> list[int]:
    """The belief-graph sizes a study's conditions need built."""
    return sorted({CONDITIONS[c].nodes for c in conditions if c in CONDITIONS and CONDITIONS[c].nodes > 0})
