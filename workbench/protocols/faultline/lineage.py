"""What a faultline report presents as a result that a later study could pre-register (issue 42, lineage).

Seed 002 asks "which MAD variant wins?" and "does divergence improve quality?": a report with several debate
conditions names, through its ACC column, the architecture that did best, and its divergence table the level
that did best. A later study on the same topics that then runs that one debate condition (or only pairs of that
divergence) chose it after seeing the result. Both are read from ACC alone, as the report shows it (to three
decimals, a unique best only), so no embedding or model call is made here.
"""

from __future__ import annotations

from workbench.protocols.faultline.conditions import condition

DEBATE_CONDITION = "debate condition"
DIVERGENCE = "divergence"
RESULTS = {DEBATE_CONDITION: "every table and comparison of that condition, and the verdict on it",
           DIVERGENCE: "every result of its pairs' divergence level"}
SHOWN = 3   # ACC's digits in the report (report.fmt)


def _acc_docs(db, study_id: str, definition: dict) -> list[dict]:
    """One {condition, item, topic, divergence, metrics: {ACC}} per finished run, ACC as study_metrics reads it."""
    from store.items import list_items
    from store.outputs import get_output
    from store.runs import list_runs
    from workbench.protocols.faultline.analysis import _acc, baseline_metrics, coin_key, rules, without_undelivered
    from workbench.protocols.faultline.items import DEBATE, TOPIC

    tie = rules(definition["faultline"])["acc_tie"]
    topics = {i["id"]: i["payload"]["topic"] for i in list_items(db, study_id, kind=TOPIC)}
    debates = {i["id"]: i["payload"] for i in list_items(db, study_id, kind=DEBATE)}
    finished = [r for r in list_runs(db, study_id) if r["status"] in ("done", "done_with_errors")]
    docs = []
    for run in without_undelivered(db, finished, definition):
        output = get_output(db, run["id"])
        if output is None or "stances" not in (output.get("report") or {}):   # nothing a report could show
            continue
        report, coin = output["report"], coin_key(run["case_id"], run["condition"], run["replicate"])
        base = {"run_id": run["id"], "item": run["case_id"], "condition": run["condition"]}
        if condition(run["condition"]).is_debate and run["case_id"] in debates:
            payload = debates[run["case_id"]]
            closing = [s for s in report["stances"]["closing"].values() if s is not None]
            acc, _ = _acc(closing, payload["topic"]["verifiable"], tie, coin)
            docs.append({**base, "topic": payload["topic"]["id"], "pair": payload["pair"]["id"],
                         "divergence": payload["pair"]["divergence"], "metrics": {"ACC": acc}})
        elif run["case_id"] in topics:
            m = baseline_metrics(report, topics[run["case_id"]]["verifiable"], tie, coin)
            docs.append({**base, "topic": topics[run["case_id"]]["id"], "pair": None, "divergence": None,
                         "metrics": {"ACC": m["ACC"]}})
    return docs


def _unique_best(means: dict[str, float | None]) -> str | None:
    shown = {k: round(v, SHOWN) for k, v in means.items() if v is not None}
    if len(shown) < 2:
        return None
    top = max(shown.values())
    best = [k for k, v in shown.items() if v == top]
    return best[0] if len(best) == 1 else None


def reported_values(db, study_id: str, definition: dict) -> dict:
    from workbench.protocols.faultline.analysis import _mean

    docs = _acc_docs(db, study_id, definition)
    debate_conds = [c for c in definition.get("conditions") or [] if condition(c).is_debate]
    out = {}
    best = _unique_best({c: _mean(docs, c, "ACC")["value"] for c in debate_conds})
    if best:
        out[DEBATE_CONDITION] = best
    levels = {level: _mean([d for d in docs if d["divergence"] == level], None, "ACC")["value"]
              for level in ("low", "medium", "high") if any(d["divergence"] == level for d in docs)}
    if best := _unique_best(levels):
        out[DIVERGENCE] = best
    return out


def preregistered_values(definition: dict) -> dict:
    """The one debate condition a study runs, and the one divergence level its pairs share, when it has one."""
    from workbench.problems import CaseError
    from workbench.protocols.faultline.items import library_for

    out = {}
    debate_conds = [c for c in definition.get("conditions") or [] if c in _known() and condition(c).is_debate]
    if len(debate_conds) == 1:
        out[DEBATE_CONDITION] = debate_conds[0]
    section = definition.get("faultline") or {}
    try:
        pairs = library_for(section).pairs
    except CaseError:
        return out
    levels = {pairs[p]["divergence"] for p in section.get("pairs") or [] if p in pairs}
    if len(levels) == 1:
        out[DIVERGENCE] = levels.pop()
    return out


def _known() -> set[str]:
    from workbench.protocols.faultline.conditions import CONDITIONS

    return set(CONDITIONS)
