"""Arm C's decision rule and the seed's four outcomes, stated for one result.

Seed 004 names four outcomes. Their tests, as this project applies them (the
words "judges agree" and "well calibrated" get numbers the seed leaves open;
both are pre-registered in `[calibration]` and are the project's own):

1. strong — p well calibrated (ECE at the pre-registered k ≤ `ece_threshold`)
   and judges agree (α ≥ `strong_alpha`, 0.7 in the seed) and the proxy and
   the judges agree (Spearman ρ between p and the judges' mean ≥ `proxy_judge_rho`);
2. poorly calibrated — ECE > `ece_threshold` and judges agree (α ≥ `strong_alpha`);
3. judges disagree — α < `alpha_threshold` (0.5 in the seed): escalate;
4. proxy and judges disagree — well calibrated, judges agree, but ρ(p, judges)
   < `proxy_judge_rho`.

With `alpha_threshold` ≤ α < `strong_alpha` none of the four holds: the seed
names no outcome for that band, and the report says so.

A panel with a constant judge (zero variance) decides nothing through α: α is
still computed and shown, but it is undefined as a test of disagreement
(`alpha_void` says why), so every outcome that rests on α is undecided and the
summary says so instead of "the judges disagree" (the project's choice, issue
25). Judges that are one model are a caveat printed with whatever outcome holds.

One statement of the outcome: `decide`'s summary is the sentence the report's Outcome section, `metrics`,
`calibration export` and the TUI's results panel print; the four outcomes are listed by name and test with
a mark (`outcome_lines`), and Arm C's decision line (`alpha_rule`) names the outcome `decide` reached, so no
place calls it "the strong result" unless it holds.
"""

from __future__ import annotations

from dataclasses import dataclass

# Each outcome's name, and what must hold for it: named, never asserted (a list of the four must not read as
# four findings; only `decide`'s summary says which one the study reached).
NAMES = {
    "strong": "the strong result",
    "poorly_calibrated": "p poorly calibrated, judges agree",
    "judges_disagree": "the judges disagree",
    "proxy_judges_disagree": "proxy and judges disagree",
}
CONDITIONS = {
    "strong": "ECE ≤ {ece} and α ≥ {strong} and ρ(p, judges) ≥ {rho}",
    "poorly_calibrated": "ECE > {ece} and α ≥ {strong}",
    "judges_disagree": "α < {threshold}: escalate",
    "proxy_judges_disagree": "ECE ≤ {ece} and α ≥ {strong} but ρ(p, judges) < {rho}",
}
MARKS = {True: "HOLDS", False: "does not hold", None: "undecided"}
MEANING = {
    "strong": "Adaptive study unblocked with confidence; p can be reported as a calibrated proxy and the judge "
              "ensemble serves as the un-gameable anchor.",
    "poorly_calibrated": "The framework still has a usable external anchor; report the calibration gap and "
                         "re-tune k. The adaptive study is still unblocked.",
    "judges_disagree": "The adaptive study cannot rely on one ensemble score: add a judge, switch to a stronger "
                       "model, or fall back to a smaller human-rated subsample.",
    "proxy_judges_disagree": "p and the external judges measure different things; interpret carefully — this "
                             "is where the proxy-gaming threat model lives.",
}
ORDER = ("strong", "poorly_calibrated", "judges_disagree", "proxy_judges_disagree")


@dataclass(frozen=True)
class Inputs:
    ece: float | None
    alpha: float | None
    rho: float | None           # Spearman between p and the judges' mean score
    ece_threshold: float
    alpha_threshold: float
    strong_alpha: float
    rho_threshold: float
    alpha_void: str | None = None   # why α is no test of disagreement (a constant judge), or None
    caveats: tuple[str, ...] = ()   # consequences printed with the outcome (judges that are one model)


def decide(x: Inputs) -> dict:
    """{"holds": id | None, "summary": str, "outcomes": [{id, title, meaning, holds, why}] with the holding one first}."""
    calibrated = None if x.ece is None else x.ece <= x.ece_threshold
    tested = x.alpha is not None and x.alpha_void is None   # α decides only when it tests disagreement
    agree = x.alpha >= x.strong_alpha if tested else None
    noisy = x.alpha < x.alpha_threshold if tested else None
    proxy_ok = None if x.rho is None else x.rho >= x.rho_threshold
    tests = {
        "strong": _all(calibrated, agree, proxy_ok),
        "poorly_calibrated": _all(None if calibrated is None else not calibrated, agree),
        "judges_disagree": noisy,
        "proxy_judges_disagree": _all(calibrated, agree, None if proxy_ok is None else not proxy_ok),
    }
    if noisy:  # the rule comes first: a noisy panel decides the outcome whatever the proxy does
        tests = {k: (k == "judges_disagree") for k in tests}
    alpha_fact = (f"α = {_fmt(x.alpha)} ({x.alpha_void})" if x.alpha_void else
                  f"α = {_fmt(x.alpha)} (escalate below {x.alpha_threshold:g}, strong at ≥ {x.strong_alpha:g})")
    facts = (f"ECE = {_fmt(x.ece)} (well calibrated if ≤ {x.ece_threshold:g}); {alpha_fact}; "
             f"ρ(p, judges) = {_fmt(x.rho)} (agree if ≥ {x.rho_threshold:g})")
    holds = next((k for k in ORDER if tests[k]), None)
    if holds is not None:
        summary = f"Outcome: {_title(holds, x)}. {MEANING[holds]}"
    elif x.alpha_void:
        summary = (f"No pre-registered outcome can be decided: {x.alpha_void}. A judge that gives every item "
                   "one score neither agrees nor disagrees with the others, so α (computed: "
                   f"{_fmt(x.alpha)}) does not test the panel; replace the constant judge and judge again.")
    elif x.alpha is not None and not noisy and not agree:
        summary = (f"No pre-registered outcome holds: α = {x.alpha:.3f} lies between the escalation threshold "
                   f"{x.alpha_threshold:g} and the strong-agreement threshold {x.strong_alpha:g}, a band seed 004 "
                   "names no outcome for. The rule does not require escalation; report α beside every "
                   "judge-anchored finding.")
    else:
        missing = [n for n, v in (("ECE", x.ece), ("α", x.alpha), ("ρ(p, judges)", x.rho)) if v is None]
        summary = (f"No outcome can be decided yet: {' and '.join(missing) or 'a statistic'} "
                   f"{'are' if len(missing) > 1 else 'is'} undefined.")
    if x.caveats:
        summary += " Caveat: " + "; ".join(x.caveats) + "."
    rows = [{"id": k, "title": _title(k, x), "meaning": MEANING[k], "holds": tests[k]} for k in ORDER]
    rows.sort(key=lambda r: r["id"] != holds)
    return {"holds": holds, "summary": summary, "facts": facts, "outcomes": rows}


def _all(*flags: bool | None) -> bool | None:
    if any(f is False for f in flags):
        return False
    return None if any(f is None for f in flags) else True


def _fmt(v: float | None) -> str:
    return "undefined" if v is None else f"{v:.3f}"


def _title(key: str, x: Inputs) -> str:
    """An outcome's name with its test in the study's pre-registered numbers: "the strong result (ECE ≤ 0.05 …)"."""
    test = CONDITIONS[key].format(ece=f"{x.ece_threshold:g}", strong=f"{x.strong_alpha:g}",
                                  threshold=f"{x.alpha_threshold:g}", rho=f"{x.rho_threshold:g}")
    return f"{NAMES[key]} ({test})"


def outcome_name(outcome: dict) -> str:
    """The outcome the study reached, in words: its name, or that none holds."""
    return NAMES[outcome["holds"]] if outcome.get("holds") else "no pre-registered outcome holds"


def outcome_lines(outcome: dict, bold=lambda s: f"**{s}**") -> list[str]:
    """The four outcomes, each with its test and its mark (HOLDS, does not hold, undecided), numbered in the
    seed's order: the report's and `metrics`' list and the TUI's Outcomes tab (`bold`: the markup)."""
    by_id = {o["id"]: o for o in outcome["outcomes"]}
    return [f"{n}. {bold(by_id[k]['title'])} — {MARKS[by_id[k]['holds']]}. {by_id[k]['meaning']}"
            for n, k in enumerate(ORDER, start=1)]


def alpha_rule(x: Inputs, outcome: dict) -> str:
    """Arm C's decision rule applied to α, in one line that names no outcome of its own: α decides the
    outcome alone only below the escalation threshold; otherwise it is one condition among three, and the
    line says which outcome the study reached (the Outcome section's, from the same `decide`)."""
    reached = f"the study's outcome: {outcome_name(outcome)}"
    if x.alpha_void:
        return (f"α = {_fmt(x.alpha)}, but {x.alpha_void}: a judge that gives every item one score neither agrees "
                "nor disagrees with the others, so the decision rule cannot be applied; replace the constant "
                f"judge (another model or temperature) and judge again; {reached}")
    if x.alpha is None:
        return f"α is undefined, so the decision rule cannot be applied; {reached}"
    if x.alpha < x.alpha_threshold:
        return (f"α = {x.alpha:.3f} < {x.alpha_threshold:g} (pre-registered): the judge ensemble is too noisy to "
                f"anchor — escalate (seed 004, Arm C decision rule); this decides it: {reached}")
    if x.alpha >= x.strong_alpha:
        return (f"α = {x.alpha:.3f} ≥ {x.strong_alpha:g}: the judges agree — one of the conditions the outcomes "
                f"name, beside ECE and ρ(p, judges); {reached}")
    return (f"{x.alpha_threshold:g} ≤ α = {x.alpha:.3f} < {x.strong_alpha:g}: the rule does not require escalation, "
            f"but the judges fall short of the α ≥ {x.strong_alpha:g} the outcomes ask for; {reached}")
