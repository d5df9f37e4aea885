"""Seeded draws: every random choice of the simulator is a pure function of the study's seed and a key.

A key names what is drawn (a case's latent, a run's latent, one call's noise),
so the same study gives byte-identical text on every machine, a resumed study
draws what the interrupted one would have, and another `[simulation] seed`
gives other data.
"""

from __future__ import annotations

import hashlib
import random
from statistics import NormalDist

_STD = NormalDist()


def rng(seed: int, *key: object) -> random.Random:
    digest = hashlib.sha256(repr((seed, *key)).encode("utf-8")).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def normal(seed: int, *key: object) -> float:
    return rng(seed, *key).gauss(0.0, 1.0)


def probit(x: float) -> float:
    """Φ(x): a latent quality on the probit scale as a probability."""
    return _STD.cdf(x)


def latent(params: dict, case: str, condition: str, replicate: int, kind: str = "effects") -> float:
    """A run's latent quality: baseline + the condition's planted effect + a case part shared by every
    condition of the case + the run's own part; the two parts split unit variance by `case_correlation`."""
    seed, rho = params["seed"], params["case_correlation"]
    effect = (params.get(kind) or {}).get(condition, 0.0)
    case_part = normal(seed, kind, "case", case)
    run_part = normal(seed, kind, "run", case, condition, replicate)
    return params["baseline"] + effect + rho ** 0.5 * case_part + (1 - rho) ** 0.5 * run_part
