"""The one core every view reads: Arm A, Arm B's scores, Arm C and the outcome, from the store.

`study_results(db, study_id)` is what the metrics command, the report, the
exports and the TUI panels all show, so their counts and numbers agree.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import sqlite_utils

from workbench.protocols.calibration.importer import KIND, import_history
from workbench.protocols.calibration.outcomes import Inputs, alpha_rule, decide
from workbench.protocols.calibration.sampling import bin_label, p_bin, proxy_p


class NotPreregistered(KeyError):
    """Metrics asked of a study that is not frozen. A KeyError, so the shared `metrics` and `report` commands
    refuse it as they refuse an unknown study: exit 1 with this message."""

    def __str__(self) -> str:
        return str(self.args[0])


def require_frozen(study: dict) -> None:
    """Seed 004: Arm A's p grid, sample sizes and k sweep, the α threshold and the rubric are fixed "before data
    collection". No metric is shown before the study is frozen, so none can be seen and then redefined (a frozen
    study refuses a changed definition): the project's choice over marking numbers exploratory (README)."""
    if not study["frozen_at"]:
        raise NotPreregistered(
            f"study '{study['id']}' is not frozen: its pre-registration (k, p grid, bins, sample size, thresholds, "
            "rubric) can still change, so no calibration metric is shown yet (seed 004: fixed before data "
            f"collection). Freeze it first: workbench --batch study freeze {study['id']}")


@dataclass
class Interaction:
    id: str
    run_id: str
    interaction_id: str
    scenario: str
    v_hat: float
    p: float
    ground_truth: int
    accepted: bool


@dataclass
class StudyData:
    study_id: str
    definition: dict
    options: dict
    judges: list[dict]
    interactions: list[Interaction]
    sampled: list[str]                                   # item ids with at least one judge run
    scores: dict[str, dict[str, float]] = field(default_factory=dict)      # item → judge → score
    failures: dict[str, dict[str, str]] = field(default_factory=dict)      # item → judge → judge_error | prompt_refused
    judge_rows: list[dict] = field(default_factory=list)                   # one per finished judge run
    run_status: dict[str, int] = field(default_factory=dict)


def load(db: sqlite_utils.Database, study_id: str) -> StudyData:
    from store import runs as run_rows
    from store import studies as study_rows
    from store.items import iter_items
    from store.outputs import outputs_for_study

    study = study_rows.get_study(db, study_id)
    if study is None:
        raise KeyError(f"no study '{study_id}' in the store")
    require_frozen(study)
    definition = study["definition"]
    options = definition["calibration"]
    k = options["k"]
    interactions = []
    for row in iter_items(db, study_id, kind=KIND):
        pl = row["payload"]
        interactions.append(Interaction(row["id"], pl["run_id"], pl["interaction_id"], pl["scenario"],
                                        pl["v_hat"], proxy_p(pl["v_hat"], k), pl["ground_truth"],
                                        pl.get("accepted", True)))
    runs = run_rows.list_runs(db, study_id)
    data = StudyData(study_id, definition, options, definition.get("judges") or [], interactions,
                     sorted({r["case_id"] for r in runs}), run_status=run_rows.status_counts(db, study_id))
    for out in outputs_for_study(db, study_id):
        rep = out["report"]
        item, judge = out["case_id"], out["condition"]
        if rep.get("score") is not None:
            data.scores.setdefault(item, {})[judge] = rep["score"]
        elif rep.get("prompt_refused"):
            data.failures.setdefault(item, {})[judge] = "prompt_refused"
        elif rep.get("judge_error"):
            data.failures.setdefault(item, {})[judge] = "judge_error"
        data.judge_rows.append({**rep, "judge_run": out["run_id"], "item_id": item, "judge": judge})
    return data


def arm_a(data: StudyData) -> dict:
    """Proxy fidelity over every imported interaction at the pre-registered k, and the k sweep."""
    from workbench.metrics.calibration import calibration, sigmoid_k_sweep

    o = data.options
    ps = [i.p for i in data.interactions]
    ys = [i.ground_truth for i in data.interactions]
    report = calibration(ps, ys, n_bins=o["n_bins"])
    sweep = sigmoid_k_sweep([i.v_hat for i in data.interactions], ys, o["k_sweep"], n_bins=o["n_bins"])
    ece = report.ece.value
    return {"k": o["k"], "n": report.n, "calibration": report.to_dict(), "k_sweep": sweep.to_dict(),
            "well_calibrated": None if ece is None else ece <= o["ece_threshold"],
            "ece_threshold": o["ece_threshold"]}


def score_matrix(data: StudyData) -> tuple[list[str], dict[str, list[float | None]]]:
    """The sampled items and, per judge (definition order), its score or None for each."""
    names = [j["name"] for j in data.judges]
    items = data.sampled
    return items, {n: [data.scores.get(i, {}).get(n) for i in items] for n in names}


def disagreement_by_p_bin(data: StudyData, items: list[str], matrix: dict[str, list]) -> list[dict]:
    """Per p bin (`strata_bins`), over sampled items with ≥ 2 judge scores: mean |pairwise difference| and SD."""
    import statistics

    n_bins = data.options["strata_bins"]
    p_of = {i.id: i.p for i in data.interactions}
    per_bin: dict[int, list[tuple[float, float]]] = {b: [] for b in range(n_bins)}
    for col, item in enumerate(items):
        vals = [matrix[j][col] for j in matrix if matrix[j][col] is not None]
        if len(vals) < 2 or item not in p_of:
            continue
        pairs = [abs(a - b) for a, b in itertools.combinations(vals, 2)]
        per_bin[p_bin(p_of[item], n_bins)].append((sum(pairs) / len(pairs), statistics.stdev(vals)))
    out = []
    for b in range(n_bins):
        rows = per_bin[b]
        out.append({"bin": bin_label(b, n_bins), "lower": b / n_bins, "upper": (b + 1) / n_bins, "count": len(rows),
                    "mean_abs_pairwise_difference": sum(r[0] for r in rows) / len(rows) if rows else None,
                    "mean_sd": sum(r[1] for r in rows) / len(rows) if rows else None})
    return out


def _names(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def constant_judges(matrix: dict[str, list]) -> dict[str, tuple[float, int]]:
    """Judges whose scores (two or more) are all one value: name → (value, items scored)."""
    out = {}
    for name, vals in matrix.items():
        got = [v for v in vals if v is not None]
        if len(got) >= 2 and max(got) == min(got):
            out[name] = (got[0], len(got))
    return out


def one_model_groups(judges: list[dict]) -> list[tuple[str, str, list[str]]]:
    """Judges on one model: (model, api_base, names) for every model string and api_base shared by two or more
    judges. The offline models (`mock`, `sim`) are no model: `sim` plants each judge apart by name."""
    from workbench.gateway.api import OFFLINE_MODELS

    groups: dict[tuple[str, str], list[str]] = {}
    for j in judges:
        model = j.get("model") or ""
        if model in OFFLINE_MODELS:
            continue
        base = (j.get("api_base") or "").strip().rstrip("/")
        groups.setdefault((model, base), []).append(j["name"])
    return [(m, b, names) for (m, b), names in groups.items() if len(names) >= 2]


def degenerate_judges(judges: list[dict], matrix: dict[str, list]) -> list[dict]:
    """What makes the panel's agreement statistics say less than they seem to, each with its consequence
    (issue 25): a judge with zero variance, and judges that are one model (same model string and api_base)."""
    out = []
    for name, (value, n) in constant_judges(matrix).items():
        out.append({"kind": "constant", "judges": [name], "value": value, "n": n,
                    "statement": f"judge {name} is constant: {value:g} on all {n} items it scored",
                    "consequence": f"α undefined as a test of disagreement: judge {name} is constant; its "
                                   "Spearman correlations are undefined (a constant has no ranks)"})
    for model, base, names in one_model_groups(judges):
        where = f"{model} at {base}" if base else model
        pairs = "their agreement is" if len(names) == 2 else "the agreement among them is"
        out.append({"kind": "one_model", "judges": names, "model": model, "api_base": base,
                    "statement": f"judges {_names(names)} are one model ({where})",
                    "consequence": f"judges {_names(names)} are one model: {pairs} not independent, so α, "
                                   "ICC(2,1) and their Spearman measure one model against itself"})
    return out


def _explain_degenerate(panel: dict, judges: list[dict], matrix: dict[str, list]) -> None:
    """Name the degenerate judges in Arm C and give every number they empty or void its reason."""
    found = degenerate_judges(judges, matrix)
    panel["degenerate"] = found
    constant = constant_judges(matrix)
    shared = {n: names for _, _, names in one_model_groups(judges) for n in names}
    for pair, est in panel["pairwise_spearman"].items():
        a, b = pair.split(" vs ", 1)
        flat = [x for x in (a, b) if x in constant]
        if flat and est["value"] is None:
            x = flat[0]
            est["undefined_reason"] = (f"judge {x} is constant ({constant[x][0]:g} on all {constant[x][1]} "
                                       "items): a constant has no ranks to correlate")
        if b in shared.get(a, ()):
            est["note"] = f"{a} and {b} are one model: not independent"
    if constant:
        names = sorted(constant)
        void = (f"α undefined as a test of disagreement: judge{'s' if len(names) > 1 else ''} {_names(names)} "
                f"{'are' if len(names) > 1 else 'is'} constant")
        panel["alpha"]["not_a_test"] = void
        panel["verdict"] = "undefined"   # its decision line is outcomes.alpha_rule's, as every panel's
        if len(constant) == len(matrix) and panel["icc_2_1"]["value"] is not None:
            panel["icc_2_1"]["note"] = ("every judge is constant: the items do not vary, so ICC(2,1) says "
                                        "nothing of agreement")


def arm_c(data: StudyData) -> dict:
    from workbench.metrics.calibration import judge_panel_agreement
    from workbench.metrics.correlation import spearman_rho

    o = data.options
    items, matrix = score_matrix(data)
    panel = judge_panel_agreement(matrix, alpha_threshold=o["alpha_threshold"], strong_threshold=o["strong_alpha"],
                                  n_bins=o["strata_bins"]).to_dict()
    _explain_degenerate(panel, data.judges, matrix)
    panel["disagreement_by_judge_score_bin"] = panel.pop("disagreement_by_bin")
    panel["disagreement_by_p_bin"] = disagreement_by_p_bin(data, items, matrix)
    p_of = {i.id: i.p for i in data.interactions}
    xs, ys = [], []
    for col, item in enumerate(items):
        vals = [matrix[j][col] for j in matrix if matrix[j][col] is not None]
        if vals and item in p_of:
            xs.append(p_of[item])
            ys.append(sum(vals) / len(vals))
    panel["proxy_vs_judges"] = spearman_rho(xs, ys).to_dict() if len(xs) >= 3 else {
        "value": None, "n": len(xs), "undefined_reason": "fewer than 3 interactions with a judge score",
        "method": "Spearman rho between p and the judges' mean score"}
    rho = panel["proxy_vs_judges"]
    if rho["value"] is not None or len(xs) < 3:
        return panel
    if len(set(ys)) == 1:
        constant = constant_judges(matrix)
        rho["undefined_reason"] = ("the judges' mean score is constant"
                                   + (": every judge is constant" if len(constant) == len(matrix) else "")
                                   + "; a constant has no ranks to correlate")
    elif len(set(xs)) == 1:
        rho["undefined_reason"] = "p is constant over the judged interactions; a constant has no ranks to correlate"
    return panel


def arm_b(data: StudyData) -> dict:
    per_judge = {}
    for j in data.judges:
        rows = [r for r in data.judge_rows if r["judge"] == j["name"]]
        per_judge[j["name"]] = {"model": j["model"], "finished": len(rows),
                                "scored": sum(1 for r in rows if r.get("score") is not None),
                                "judge_errors": sum(1 for r in rows if r.get("judge_error")),
                                "prompt_refused": sum(1 for r in rows if r.get("prompt_refused"))}
    accepted = sum(1 for i in data.interactions if i.accepted)
    return {"sample_size_preregistered": data.options["sample_size"], "sampled": len(data.sampled),
            "accepted_interactions": accepted, "runs": data.run_status, "per_judge": per_judge,
            "judge_errors": sum(v["judge_errors"] for v in per_judge.values()),
            "prompt_refused": sum(v["prompt_refused"] for v in per_judge.values())}


def study_results(db: sqlite_utils.Database, study_id: str, data: StudyData | None = None) -> dict:
    """The whole metrics document: outcome first, then the items, Arms A, B and C, and the pre-registration."""
    data = data or load(db, study_id)
    o = data.options
    a, b, c = arm_a(data), arm_b(data), arm_c(data)
    inputs = Inputs(ece=a["calibration"]["ece"]["value"], alpha=c["alpha"]["value"],
                    rho=c["proxy_vs_judges"]["value"], ece_threshold=o["ece_threshold"],
                    alpha_threshold=o["alpha_threshold"], strong_alpha=o["strong_alpha"],
                    rho_threshold=o["proxy_judge_rho"], alpha_void=c["alpha"].get("not_a_test"),
                    caveats=tuple(d["consequence"] for d in c["degenerate"] if d["kind"] == "one_model"))
    outcome = decide(inputs)
    # Arm C's line applies the rule to α and names the outcome `decide` reached, never one of its own (the
    # statistics core's line calls α ≥ 0.7 "the strong result" whatever ECE and ρ say)
    c["decision"] = alpha_rule(inputs, outcome)
    imports = import_history(db, study_id)
    return {
        "study_id": study_id, "protocol": "calibration", "outcome": outcome,
        "items": {"interactions": len(data.interactions), "accepted": b["accepted_interactions"],
                  "imports": [{k: v for k, v in imp.items() if k != "problems"} for imp in imports]},
        "arm_a": a, "arm_b": b, "arm_c": c,
        "sample_sizes": sample_sizes(data, a, b),
        "preregistration": {**preregistration(data), "flags": preregistration_flags(o)},
    }


def scored_counts(data: StudyData) -> tuple[int, int]:
    """Sampled interactions with at least one judge score (Arm B's unit) and with two or more (Arm C's)."""
    per_item = [sum(1 for v in data.scores.get(i, {}).values() if v is not None) for i in data.sampled]
    return sum(1 for n in per_item if n >= 1), sum(1 for n in per_item if n >= 2)


def sample_sizes(data: StudyData, a: dict, b: dict) -> dict:
    """What each arm holds, counted from what was scored (never the settings, never what was only sampled), with
    the seed's minimums as warnings and an arm with nothing scored called undefined (issue 42)."""
    from workbench.protocols.calibration.section import SEED_MIN_PER_BIN, SEED_MIN_SAMPLE

    counts = [x["count"] for x in a["calibration"]["bins"]]
    filled = [n for n in counts if n]
    short = sum(1 for n in filled if n < SEED_MIN_PER_BIN)
    judged, by_two = scored_counts(data)
    failed = b["judge_errors"] + b["prompt_refused"]
    warnings = []
    if not a["n"]:
        warnings.append("Arm A: undefined: no interaction in the data")
    elif short:
        warnings.append(f"Arm A: {short} of the {len(filled)} non-empty reliability bin(s) hold fewer than the "
                        f"seed's {SEED_MIN_PER_BIN} interactions (smallest: {min(filled)})")
    if not judged:
        warnings.append(f"Arm B: undefined: no interaction was scored ({b['sampled']} sampled, {failed} judge "
                        "run(s) failed)")
    elif judged < SEED_MIN_SAMPLE:
        warnings.append(f"Arm B: {judged} interaction(s) judged, below the seed's {SEED_MIN_SAMPLE}")
    if judged < b["sample_size_preregistered"]:
        warnings.append(f"Arm B: {judged} interaction(s) judged of the {b['sample_size_preregistered']} "
                        f"pre-registered ({b['sampled']} sampled, {b['accepted_interactions']} accepted "
                        "interaction(s) in the data)")
    if not by_two:
        warnings.append("Arm C: undefined: no interaction was scored by two or more judges")
    elif by_two < SEED_MIN_SAMPLE:
        warnings.append(f"Arm C: {by_two} interaction(s) scored by two or more judges, below the seed's "
                        f"{SEED_MIN_SAMPLE} (Arm C is computed on Arm B's sample)")
    return {"arm_a": {"interactions": a["n"], "per_bin": counts, "non_empty_bins": len(filled),
                      "smallest_bin": min(filled) if filled else 0, "bins_below_seed": short,
                      "seed_min_per_bin": SEED_MIN_PER_BIN},
            "arm_b": {"judged": judged, "sampled": b["sampled"], "failed_judge_runs": failed,
                      "preregistered": b["sample_size_preregistered"], "accepted": b["accepted_interactions"],
                      "seed_min": SEED_MIN_SAMPLE},
            "arm_c": {"items_scored_by_two_or_more": by_two, "seed_min": SEED_MIN_SAMPLE},
            "warnings": warnings}


def preregistration_flags(o: dict) -> list[str]:
    """Pre-registered values that depart from the seed or weaken it, each said in the report."""
    from workbench.protocols.calibration.section import SEED_ALPHA_THRESHOLD, SEED_EXCLUDED, SEED_STRONG_ALPHA

    flags = []
    if (o["alpha_threshold"], o["strong_alpha"]) != (SEED_ALPHA_THRESHOLD, SEED_STRONG_ALPHA):
        flags.append(f"α thresholds {o['alpha_threshold']:g} / {o['strong_alpha']:g} differ from the seed's "
                     f"{SEED_ALPHA_THRESHOLD:g} / {SEED_STRONG_ALPHA:g} (escalate below / strong at or above)")
    if not o["excluded_fields"]:
        flags.append("no excluded fields: the judges' prompts are not checked for the proxy's observables, the "
                     "seed's prompt discipline is off")
    else:
        missing = [f for f in SEED_EXCLUDED if f not in o["excluded_fields"]]
        if missing:
            flags.append(f"the seed's excluded field(s) {', '.join(missing)} are not excluded: the judges may see them")
    for key in ("n_bins", "strata_bins") if o.get("generator") is not None else ():   # the grid draws data only there
        n = o[key]
        edges = [q for q in o["p_grid"] if abs(q * n - round(q * n)) < 1e-9]
        empty = n - len({min(int(q * n + 1e-9), n - 1) for q in o["p_grid"]})
        if edges:
            flags.append(f"p grid value(s) {', '.join(f'{q:g}' for q in edges)} lie on an edge of the {n} "
                         f"`{key}` bins: which bin they fall in depends on rounding")
        if empty:
            flags.append(f"{empty} of the {n} `{key}` bins hold no p grid value: on generated data they stay empty")
    return flags


def preregistration(data: StudyData) -> dict:
    o = data.options
    keys = ("p_grid", "per_bin", "k", "k_sweep", "n_bins", "sample_size", "sample_seed", "strata_bins",
            "excluded_fields", "alpha_threshold", "strong_alpha", "ece_threshold", "proxy_judge_rho", "rubric",
            "rubric_sha256", "joined_schema", "schema_version")
    return {**{k: o[k] for k in keys}, "judges": [{"name": j["name"], "model": j["model"]} for j in data.judges]}
