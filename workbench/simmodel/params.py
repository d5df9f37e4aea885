"""The study file's `[simulation]` table: the planted parameters of a simulated study.

```toml
[simulation]
seed = 11                  # every draw derives from it; another seed gives other data
baseline = -0.3            # latent quality of a condition with no planted effect (probit scale)
case_correlation = 0.5     # share of latent variance that belongs to the case (shared across conditions)
judge_icc = 0.6            # planted reliability of each LLM judge's score
judge_bias = 0.0           # points added to every judge score before rounding
rater_icc = 0.7            # planted reliability of each simulated rater
[simulation.effects]       # planted effect per condition, in SD units of the latent quality
C2 = 1.0
[simulation.humility]      # planted effect per condition on epistemic humility (same units)
C2 = 0.5
[simulation.rater_bias]    # points added to one rater's scores (a harsh or lenient rater)
rater-b = -0.3
[simulation.rater_quality] # planted quality of a simulated rater (workbench/simulation/raters.py):
rater-a = "careful"        # careful: reads every item (30-120 s), reliability 0.95;
rater-c = "careless"       # careless: after the pilots, clicks through in 1-4 s, mostly the same score
[simulation.topology]      # how often P1's three runs form each pattern (weights)
basin = 0.5
ridge = 0.3
plateau = 0.2
# faultline (seed 002)
[simulation.stance_shift]  # planted ΔSD per debate condition: change of the personas' stance SD per
plain = -0.5               # contested claim from opening to closing (stance points; < 0: they converge)
[simulation.adherence]     # per debate condition: share of a persona's claims that restate its belief graph
graph-20 = 0.8
[simulation.accuracy]      # per condition: probability a stance on a verifiable claim matches the truth
self-consistency = 0.75
[simulation.crux_recurrence]  # per debate condition: probability a crux card asks the debate's own question
qbaf-20 = 0.9              # (else a question of that run alone): CR's planted recurrence
# calibration (seed 004)
[simulation.judge_offsets] # per judge: offset added to its [0, 1] score (a lenient or harsh judge)
llama = 0.1
```

m11 (seed 003) reads `baseline` as the mean latent quality of an item (Φ of it, times 5, is the
item's true overall score) and `judge_icc` as the reliability of each pipeline run's and the binary
judge's reading of it. calibration reads `judge_icc` as each judge's planted reliability on [0, 1].

Every key is optional; `defaults()` holds the project's own choices. The
table is part of the definition, so it is frozen and hashed with the study.
"""

from __future__ import annotations

from typing import Any

DEFAULTS: dict[str, Any] = {
    "seed": 0, "baseline": -0.3, "case_correlation": 0.5, "judge_icc": 0.6, "judge_bias": 0.0,
    "rater_icc": 0.7, "effects": {}, "humility": {}, "rater_bias": {},
    "topology": {"basin": 0.5, "ridge": 0.3, "plateau": 0.2},
    "stance_shift": {}, "adherence": {}, "accuracy": {}, "judge_offsets": {}, "crux_recurrence": {},
}
# Kept in the definition only when the file has them, so a study without them keeps its definition (and hash).
OPTIONAL = ("rater_quality",)
RATER_QUALITIES = ("careful", "careless")
# per-condition tables: key -> (lowest, highest value)
CONDITION_TABLES = {"effects": (-4, 4), "humility": (-4, 4), "stance_shift": (-2, 2), "adherence": (0, 1),
                    "accuracy": (0, 1), "crux_recurrence": (0, 1)}
TOPOLOGIES = ("basin", "ridge", "plateau")
SIM_MODEL = "sim"  # the offline simulator's model string (the gateway and label.py read it from here)


def defaults() -> dict[str, Any]:
    return {k: (dict(v) if isinstance(v, dict) else v) for k, v in DEFAULTS.items()}


def check_simulation(c, data: dict, definition: dict) -> dict:
    """Validate `[simulation]` with the study checker `c` (file:line problems); defaults filled."""
    t = c.table(data, "simulation", "simulation")
    c.unknown(t, (*DEFAULTS, *OPTIONAL), "simulation")
    out = defaults()
    seed = t.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int):
        c.bad("simulation.seed", "must be an integer")
    else:
        out["seed"] = seed
    out["baseline"] = c.number(t, "baseline", "simulation.baseline", DEFAULTS["baseline"], lo=-4, hi=4)
    out["case_correlation"] = c.number(t, "case_correlation", "simulation.case_correlation",
                                       DEFAULTS["case_correlation"], lo=0, hi=0.95)
    for key in ("judge_icc", "rater_icc"):
        out[key] = c.number(t, key, f"simulation.{key}", DEFAULTS[key], lo=0.05, hi=1)
    out["judge_bias"] = c.number(t, "judge_bias", "simulation.judge_bias", 0.0, lo=-3, hi=3)
    conditions = set(definition.get("conditions") or [])
    for key, (lo, hi) in CONDITION_TABLES.items():
        table = c.table(t, key, f"simulation.{key}")
        for cond in table:
            if conditions and cond not in conditions:
                c.bad(f"simulation.{key}.{cond}", f"'{cond}' is not a condition of this study "
                                                  f"({', '.join(sorted(conditions))})")
            out[key][cond] = c.number(table, cond, f"simulation.{key}.{cond}", 0.0, lo=lo, hi=hi)
    judges = {j.get("name") for j in definition.get("judges") or []}
    offsets = c.table(t, "judge_offsets", "simulation.judge_offsets")
    for judge in offsets:
        if judge not in judges:
            c.bad(f"simulation.judge_offsets.{judge}", f"'{judge}' is not one of the study's [[judges]]")
        out["judge_offsets"][judge] = c.number(offsets, judge, f"simulation.judge_offsets.{judge}", 0.0,
                                               lo=-0.5, hi=0.5)
    _protocol_models(c, data, definition)
    raters = set(definition.get("raters") or [])
    bias = c.table(t, "rater_bias", "simulation.rater_bias")
    for rater in bias:
        if rater not in raters:
            c.bad(f"simulation.rater_bias.{rater}", f"'{rater}' is not one of the study's raters")
        out["rater_bias"][rater] = c.number(bias, rater, f"simulation.rater_bias.{rater}", 0.0, lo=-3, hi=3)
    quality = c.table(t, "rater_quality", "simulation.rater_quality")
    if quality:
        out["rater_quality"] = {}
    for rater, kind in quality.items():
        if rater not in raters:
            c.bad(f"simulation.rater_quality.{rater}", f"'{rater}' is not one of the study's raters")
        elif kind not in RATER_QUALITIES:
            c.bad(f"simulation.rater_quality.{rater}", f"must be one of {', '.join(RATER_QUALITIES)} (got {kind!r})")
        else:
            out["rater_quality"][rater] = kind
    if "topology" in t:
        topo = c.table(t, "topology", "simulation.topology")
        c.unknown(topo, TOPOLOGIES, "simulation.topology")
        weights = {k: c.number(topo, k, f"simulation.topology.{k}", 0.0, lo=0) for k in TOPOLOGIES}
        if sum(weights.values()) <= 0:
            c.bad("simulation.topology", "needs at least one positive weight (basin, ridge, plateau)")
        else:
            out["topology"] = weights
    return out


def _protocol_models(c, data: dict, definition: dict) -> None:
    """A protocol's own model tables (faultline's [faultline.extractor], ...) are models too: on a study
    on `sim` they must be `sim` as well, or simulated and real data would share the study."""
    section = definition.get("protocol") or ""
    table = data.get(section) if section else None
    for key, sub in (table.items() if isinstance(table, dict) else ()):
        name = sub.get("name") if isinstance(sub, dict) else None
        if isinstance(name, str) and name and name != SIM_MODEL:
            c.bad(f"{section}.{key}.name", f"a study on the `sim` model cannot also use {name}: simulated and "
                                           "real data never share a study; make every model `sim`, or none")


def params_of(definition: dict | None) -> dict[str, Any]:
    """The study's planted parameters, defaults filled (a definition without the table gets defaults)."""
    table = (definition or {}).get("simulation") or {}
    out = defaults()
    out.update({k: v for k, v in table.items() if k in DEFAULTS or k in OPTIONAL})
    return out
