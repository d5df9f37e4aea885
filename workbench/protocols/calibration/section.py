"""The study file's `[calibration]` table: the pre-registration, checked and with every default filled.

Everything here lands in the study definition, so the shared freeze hashes it
and a frozen study refuses any change to it. The rubric's content hash and the
joined CSV's columns are filled in here too, so that editing the rubric file
or adding a judge changes the definition itself.
"""

from __future__ import annotations

import math
import re
from typing import Any, Callable

SECTION = "calibration"
SEED_P_GRID = [0.05, 0.2, 0.4, 0.6, 0.8, 0.95]          # seed 004 Arm A
SEED_EXCLUDED = ["task_progress_delta", "rework_count", "verifier_rejections", "tool_misuse_flags",
                 "counterparty_engagement_delta"]         # seed 004 Arm B, prompt discipline
SEED_MIN_PER_BIN = 500                                    # seed 004 Arm A: ≥ 500 interactions per bin
SEED_MIN_SAMPLE = 1000                                    # seed 004 Arm B: ≥ 1000 interactions
SEED_ALPHA_THRESHOLD, SEED_STRONG_ALPHA = 0.5, 0.7        # seed 004 Arm C and outcome 1
# Six equal-width bins, one per value of the seed's grid and none on an edge (edges at 1/6, 1/3, …): with ten
# bins four are always empty, with five the grid's 0.2, 0.4, 0.6 and 0.8 sit on edges and two are (issue 31)
DEFAULT_BINS = 6
DEFAULT_RUBRIC = "calibration-content-quality"
DEFAULT_K_SWEEP = [round(0.25 * i, 2) for i in range(1, 17)]   # 0.25 … 4.0 (project's choice)
SCENARIOS = ["negotiation", "code-review", "customer-support", "planning"]

DEFAULTS: dict[str, Any] = {
    "interactions": "",            # a CSV/JSONL file loaded at study create (relative to the study file)
    "p_grid": SEED_P_GRID,
    "per_bin": 500,                # seed: ≥ 500 interactions per grid value
    "k": 1.0,                      # the proxy's slope: p = sigmoid(k · v_hat)
    "k_sweep": DEFAULT_K_SWEEP,
    "n_bins": DEFAULT_BINS,        # equal-width reliability bins
    "sample_size": 1000,           # Arm B: seed says ≥ 1000
    "sample_seed": 4004,
    "strata_bins": DEFAULT_BINS,   # p bins for the stratified sample and disagreement-by-bin
    "excluded_fields": SEED_EXCLUDED,
    "alpha_threshold": SEED_ALPHA_THRESHOLD,   # seed: escalate below
    "strong_alpha": SEED_STRONG_ALPHA,         # seed: the strong result at or above
    "ece_threshold": 0.05,         # project's choice: "well calibrated" means ECE ≤ this at k
    "proxy_judge_rho": 0.3,        # project's choice: proxy and judges "agree" when Spearman(p, judges) ≥ this
    "rubric": DEFAULT_RUBRIC,
    "judge_retries": 1,
    "judge_max_tokens": 256,
    "schema_version": 1,
}
GENERATOR_DEFAULTS: dict[str, Any] = {"per_bin": 500, "seed": 2026, "k_true": 1.0, "scenarios": SCENARIOS,
                                      "runs": 4}
KEYS = tuple(DEFAULTS) + ("generator", "joined_schema")

Bad = Callable[[str, str], None]


def judge_column(judge_name: str) -> str:
    """A judge's column in the joined CSV: judge_score_<name>, non-alphanumerics as '_'."""
    return "judge_score_" + re.sub(r"[^a-z0-9]+", "_", judge_name.lower()).strip("_")


def joined_columns(judge_names: list[str]) -> list[str]:
    """The joined CSV's columns, in order (the schema the freeze pins)."""
    return (["run_id", "interaction_id", "scenario", "v_hat", "p", "ground_truth", "p_bin", "sampled"]
            + [judge_column(n) for n in judge_names]
            + ["judge_n", "judge_mean", "judge_sd", "judge_errors", "panel_alpha", "panel_icc", "panel_verdict",
               "schema_version"])


def check_section(data: dict, definition: dict, bad: Bad) -> dict:
    """Validate `[calibration]` (and the judges it needs); return it with every default filled."""
    raw = data.get(SECTION, {})
    if not isinstance(raw, dict):
        bad(SECTION, "must be a table ([calibration])")
        raw = {}
    for key in raw:
        if key not in KEYS:
            bad(f"{SECTION}.{key}", f"unknown key; known keys here: {', '.join(sorted(KEYS))}")
    g = _Getter(raw, bad)
    out: dict[str, Any] = {
        "interactions": g.string("interactions"),
        "p_grid": g.numbers("p_grid", lo=0.0, hi=1.0, open_ends=True),
        "per_bin": g.integer("per_bin", lo=1, hi=1_000_000),
        "k": g.number("k", lo=0.0, lo_open=True),
        "k_sweep": g.numbers("k_sweep", lo=0.0, open_ends=True, hi=None),
        "n_bins": g.integer("n_bins", lo=2, hi=100),
        "sample_size": g.integer("sample_size", lo=1, hi=10_000_000),
        "sample_seed": g.integer("sample_seed", lo=0, hi=2**63 - 1),
        "strata_bins": g.integer("strata_bins", lo=1, hi=50),
        "excluded_fields": g.strings("excluded_fields"),
        "alpha_threshold": g.number("alpha_threshold", lo=-1.0, hi=1.0),
        "strong_alpha": g.number("strong_alpha", lo=-1.0, hi=1.0),
        "ece_threshold": g.number("ece_threshold", lo=0.0, hi=1.0),
        "proxy_judge_rho": g.number("proxy_judge_rho", lo=-1.0, hi=1.0),
        "rubric": g.string("rubric", allow_empty=False),
        "judge_retries": g.integer("judge_retries", lo=0, hi=3),
        "judge_max_tokens": g.integer("judge_max_tokens", lo=16, hi=100_000),
        "schema_version": g.integer("schema_version", lo=1, hi=10_000),
    }
    if out["alpha_threshold"] > out["strong_alpha"]:
        bad(f"{SECTION}.alpha_threshold", f"must not exceed strong_alpha ({out['strong_alpha']})")
    out["generator"] = _generator(raw.get("generator"), bad)
    out["rubric_sha256"] = _rubric_hash(out["rubric"], bad)
    judges = [j.get("name") for j in definition.get("judges") or [] if isinstance(j, dict)]
    if len(judges) < 3:
        bad("judges", f"the calibration protocol needs at least three [[judges]] (seed 004); this file has "
                      f"{len(judges)}")
    columns = [judge_column(n) for n in judges if isinstance(n, str)]
    dupes = sorted({c for c in columns if columns.count(c) > 1})
    if dupes:
        bad("judges", f"judge names give the same joined-CSV column {', '.join(dupes)}; rename one")
    schema = joined_columns([n for n in judges if isinstance(n, str)])
    if "joined_schema" in raw and raw["joined_schema"] != schema:
        bad(f"{SECTION}.joined_schema", "must list exactly the columns the judges give: " + ", ".join(schema))
    out["joined_schema"] = schema
    return out


def _rubric_hash(rubric_id: str, bad: Bad) -> str:
    from workbench.cases.library import shipped_rubrics

    rubric = shipped_rubrics().get(rubric_id)
    if rubric is None:
        bad(f"{SECTION}.rubric", f"no rubric '{rubric_id}' in rubrics/")
        return ""
    if len(rubric.criteria) != 1:
        bad(f"{SECTION}.rubric", f"rubric '{rubric_id}' must have exactly one criterion (the judge gives one score)")
    return rubric.hash


def _generator(raw: Any, bad: Bad) -> dict | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        bad(f"{SECTION}.generator", "must be a table ([calibration.generator])")
        return None
    for key in raw:
        if key not in GENERATOR_DEFAULTS:
            bad(f"{SECTION}.generator.{key}", f"unknown key; known keys here: {', '.join(sorted(GENERATOR_DEFAULTS))}")
    g = _Getter(raw, bad, prefix=f"{SECTION}.generator", defaults=GENERATOR_DEFAULTS)
    return {"per_bin": g.integer("per_bin", lo=1, hi=1_000_000), "seed": g.integer("seed", lo=0, hi=2**63 - 1),
            "k_true": g.number("k_true", lo=0.0, lo_open=True), "scenarios": g.strings("scenarios"),
            "runs": g.integer("runs", lo=1, hi=10_000)}


class _Getter:
    """Typed reads of one table: the value or its default, each wrong one reported by its dotted key."""

    def __init__(self, table: dict, bad: Bad, prefix: str = SECTION, defaults: dict = DEFAULTS):
        self.t, self.bad, self.prefix, self.defaults = table, bad, prefix, defaults

    def _key(self, key: str) -> str:
        return f"{self.prefix}.{key}"

    def string(self, key: str, allow_empty: bool = True) -> str:
        v = self.t.get(key, self.defaults[key])
        if not isinstance(v, str) or (not allow_empty and not v.strip()):
            self.bad(self._key(key), "must be a non-empty string" if not allow_empty else "must be a string")
            return self.defaults[key]
        return v

    def number(self, key: str, lo: float | None = None, hi: float | None = None, lo_open: bool = False) -> float:
        v = self.t.get(key, self.defaults[key])
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            self.bad(self._key(key), "must be a number")
            return float(self.defaults[key])
        if (lo is not None and (v <= lo if lo_open else v < lo)) or (hi is not None and v > hi):
            self.bad(self._key(key), f"must be {'greater than' if lo_open else 'at least'} {lo}"
                                     + (f" and at most {hi}" if hi is not None else "") + f" (got {v})")
            return float(self.defaults[key])
        return float(v)

    def integer(self, key: str, lo: int, hi: int) -> int:
        v = self.t.get(key, self.defaults[key])
        if isinstance(v, bool) or not isinstance(v, int):
            self.bad(self._key(key), "must be an integer")
            return self.defaults[key]
        if not lo <= v <= hi:
            self.bad(self._key(key), f"must be between {lo} and {hi} (got {v})")
            return self.defaults[key]
        return v

    def numbers(self, key: str, lo: float, hi: float | None, open_ends: bool) -> list[float]:
        v = self.t.get(key, self.defaults[key])
        ok = isinstance(v, list) and v and all(not isinstance(x, bool) and isinstance(x, (int, float)) for x in v)
        if not ok:
            self.bad(self._key(key), "must be a non-empty list of numbers")
            return list(self.defaults[key])
        outside = [x for x in v if x <= lo or (hi is not None and x >= hi)] if open_ends else []
        if outside:
            rng = f"strictly between {lo} and {hi}" if hi is not None else f"greater than {lo}"
            self.bad(self._key(key), f"every value must be {rng} (not {', '.join(map(str, outside))})")
            return list(self.defaults[key])
        if len(set(v)) != len(v):
            self.bad(self._key(key), "lists a value more than once")
        return sorted(float(x) for x in v)

    def strings(self, key: str) -> list[str]:
        v = self.t.get(key, self.defaults[key])
        if not isinstance(v, list) or not all(isinstance(x, str) and x.strip() for x in v):
            self.bad(self._key(key), "must be a list of non-empty strings")
            return list(self.defaults[key])
        if len(set(v)) != len(v):
            self.bad(self._key(key), "lists a value more than once")
        return list(v)
