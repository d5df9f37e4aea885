"""Quantitative bipolar argumentation frameworks (QBAFs) under DF-QuAD gradual semantics.

DF-QuAD: A. Rago, F. Toni, M. Aurisicchio, P. Baroni, "Discontinuity-Free
Decision Support with Quantitative Argumentation Debates", KR 2016. Each
argument has a base score τ in [0, 1]; its strength is

    σ(a) = C(τ(a), F(σ of a's attackers), F(σ of a's supporters))
    F(v1..vn) = 1 − Π(1 − vi)              (probabilistic sum; F() = 0)
    C(v0, va, vs) = v0 − v0·(va − vs)       if va ≥ vs
                  = v0 + (1 − v0)·(vs − va) if va < vs

The paper defines σ on acyclic graphs, computed from the leaves up. A model-
built graph may contain a cycle; then (the project's own choice) the same
equations are iterated from σ = τ until no strength moves by more than 1e-9,
and the result says whether that happened.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Strengths:
    values: dict[str, float]
    acyclic: bool
    converged: bool = True


def aggregate(values: list[float]) -> float:
    """F: the probabilistic sum of the strengths of one kind of parent."""
    out = 1.0
    for v in values:
        out *= 1.0 - v
    return 1.0 - out


def combine(base: float, attack: float, support: float) -> float:
    """C: move the base score down by the attack surplus or up by the support surplus."""
    if attack >= support:
        return base - base * (attack - support)
    return base + (1.0 - base) * (support - attack)


def strengths(base: dict[str, float], relations: list[tuple[str, str, str]], *,
              max_iterations: int = 1000) -> Strengths:
    """σ for every argument. `relations`: (source, target, "attack" | "support"), source acting on target."""
    for a, v in base.items():
        if not 0.0 <= v <= 1.0:
            raise ValueError(f"base score of '{a}' must be in [0, 1], got {v}")
    attackers: dict[str, list[str]] = {a: [] for a in base}
    supporters: dict[str, list[str]] = {a: [] for a in base}
    for src, dst, kind in relations:
        if src not in base or dst not in base:
            raise ValueError(f"relation {src} → {dst} names an argument that has no base score")
        if kind not in ("attack", "support"):
            raise ValueError(f"relation {src} → {dst}: kind must be attack or support, not {kind!r}")
        (attackers if kind == "attack" else supporters)[dst].append(src)

    def sigma(a: str, current: dict[str, float]) -> float:
        return combine(base[a], aggregate([current[x] for x in attackers[a]]),
                       aggregate([current[x] for x in supporters[a]]))

    order = _topological(base, attackers, supporters)
    if order is not None:
        out: dict[str, float] = {}
        for a in order:
            out[a] = sigma(a, out)
        return Strengths(out, acyclic=True)
    current = dict(base)
    for _ in range(max_iterations):
        nxt = {a: sigma(a, current) for a in base}
        if max(abs(nxt[a] - current[a]) for a in base) < 1e-9:
            return Strengths(nxt, acyclic=False, converged=True)
        current = nxt
    return Strengths(current, acyclic=False, converged=False)


def _topological(base, attackers, supporters) -> list[str] | None:
    parents = {a: set(attackers[a]) | set(supporters[a]) for a in base}
    order, done = [], set()
    while len(order) < len(base):
        ready = [a for a in base if a not in done and parents[a] <= done]
        if not ready:
            return None
        for a in ready:
            order.append(a)
            done.add(a)
    return order


def crux(per_persona: dict[str, dict[str, float]]) -> tuple[str, float] | None:
    """The argument whose strengths diverge most between personas (largest max − min), and by how much;
    ties go to the argument listed first. None when there is nothing to compare."""
    names = list(per_persona)
    if len(names) < 2:
        return None
    best = None
    for arg in per_persona[names[0]]:
        vals = [per_persona[p][arg] for p in names if arg in per_persona[p]]
        if len(vals) < 2:
            continue
        gap = max(vals) - min(vals)
        if best is None or gap > best[1]:
            best = (arg, gap)
    return best
