"""Seeds of independent draws: a replicate (`draw`) and a sample inside it each get their own.

A server that honours `seed` answers one prompt with one seed identically, byte for byte. Five
self-consistency samples, three judge runs or two replicates sent with the study's seed are then one
answer copied, and every comparison with them compares copies. So each draw's seed is derived from the
study's seed: replicate d uses seed + d (draw 0 keeps the study's seed exactly), and sample k > 0 of a
draw uses a hash of (that seed, k), so that no (replicate, sample) pair shares a seed with another
(seed + d + k would give replicate 1 / sample 0 the seed of replicate 0 / sample 1). Sample 0 keeps
the draw's seed. No seed (None) stays None: the provider then draws at random anyway.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace

from workbench.gateway.api import ModelSettings

SEED_BITS = 31  # llama.cpp takes a uint32 and some providers a signed int: a 31-bit seed suits both


def draw_seed(seed: int | None, draw: int) -> int | None:
    """Replicate `draw`'s seed: seed + draw (draw 0: the study's seed)."""
    return seed if seed is None or draw == 0 else seed + draw


def sample_seed(seed: int | None, sample: int) -> int | None:
    """Sample `sample`'s seed within one draw: the draw's seed for sample 0, else a hash of (seed, sample)."""
    if seed is None or sample == 0:
        return seed
    digest = hashlib.sha256(f"workbench-sample:{seed}:{sample}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % (1 << SEED_BITS)


def draw_settings(settings: ModelSettings, draw: int) -> ModelSettings:
    """The settings of replicate `draw` (see `draw_seed`)."""
    seed = draw_seed(settings.seed, draw)
    return settings if seed == settings.seed else replace(settings, seed=seed)


def sample_settings(settings: ModelSettings, sample: int) -> ModelSettings:
    """The settings of sample `sample` of one draw (see `sample_seed`); the gateway applies this to every call."""
    seed = sample_seed(settings.seed, sample)
    return settings if seed == settings.seed else replace(settings, seed=seed)
