"""The study file's `[m11]` table: checked, defaults filled (stored as `definition["m11"]`).

    [m11]
    items = "cases/m11/sample.jsonl"  # module outputs (JSONL or JSON), relative to the study file or the repo
    module = "M11"                    # the module evaluated: studies of one module form its trend
    trend = "same"                    # the trend lists studies of this one's kind (real, simulated, dry run);
                                      # "all": every kind, each labelled
    runs = 3                          # pipeline runs per sample: 3 (confidence from their spread) or 1
    limit = 10                        # evaluate only the first N items of the file (0: all)
    injection = "exclude"             # records with instruction-like text: "exclude" or "flag"
    human_sample = 20                 # items sampled for human raters (seed 003 §8)
    human_seed = 11                   # the sample's seed (default: the blinding seed)

The pre-registered human-agreement target is `[thresholds] human_r = 0.85` (Pearson r above it).
"""

from __future__ import annotations

from typing import Any, Callable

KEYS = ("items", "module", "runs", "limit", "injection", "human_sample", "human_seed", "trend")
# `trend` ("same" unless given) is stored only when the file gives it, so that the definition of a study
# frozen before the key existed is still the one its unchanged file gives
DEFAULTS: dict[str, Any] = {"module": "M11", "runs": 3, "limit": 0, "injection": "exclude", "human_sample": 20}


def check_section(data: dict, definition: dict, bad: Callable[[str, str], None]) -> dict:
    t = data.get("m11", {})
    if not isinstance(t, dict):
        bad("m11", "must be a table ([m11])")
        return {}
    for key in t:
        if key not in KEYS:
            bad(f"m11.{key}", f"unknown key; known keys here: {', '.join(sorted(KEYS))}")
    out = dict(DEFAULTS)
    items = t.get("items")
    if items is None:
        bad("m11.items", "is required: the file of module outputs (JSONL or JSON)")
    elif not isinstance(items, str) or not items.strip():
        bad("m11.items", "must be a file path")
    else:
        out["items"] = items
    if "module" in t:
        if isinstance(t["module"], str) and t["module"].strip():
            out["module"] = t["module"].strip()
        else:
            bad("m11.module", "must be a non-empty string")
    _one_of(t, "trend", ("same", "all"), out, bad,
            'must be "same" (studies of this one\'s kind: real, simulated or dry run) or "all"')
    _int(t, "runs", out, bad, lo=1, hi=3)
    if out["runs"] == 2:
        bad("m11.runs", "must be 1 (single-run mode) or 3 (confidence from the spread of three runs)")
    _int(t, "limit", out, bad, lo=0, hi=1_000_000)
    _one_of(t, "injection", ("exclude", "flag"), out, bad, 'must be "exclude" or "flag"')
    _int(t, "human_sample", out, bad, lo=1, hi=10_000)
    if "human_seed" in t:
        _int(t, "human_seed", out, bad, lo=0, hi=2**63 - 1)
    else:
        out["human_seed"] = int((definition.get("blinding") or {}).get("seed") or 0)
    return out


def _one_of(t: dict, key: str, choices: tuple[str, ...], out: dict, bad, message: str) -> None:
    if key in t:
        if t[key] in choices:
            out[key] = t[key]
        else:
            bad(f"m11.{key}", message)


def _int(t: dict, key: str, out: dict, bad, *, lo: int, hi: int) -> None:
    if key not in t:
        return
    v = t[key]
    if isinstance(v, bool) or not isinstance(v, int):
        bad(f"m11.{key}", "must be an integer")
    elif not lo <= v <= hi:
        bad(f"m11.{key}", f"must be from {lo} to {hi} (got {v})")
    else:
        out[key] = v
