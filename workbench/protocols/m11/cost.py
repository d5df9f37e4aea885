"""Cost (seed 003 §9): an estimate before the run, the actual cost after.

Estimate: for each planned call, input tokens from the prompt the stage will
send (characters / 4, the project's approximation: no tokenizer download) plus
the replies of the earlier stages it carries, and an assumed reply length per
stage (`ASSUMED_REPLY_TOKENS`, the project's figures); priced with litellm's
bundled cost map for the study's model. The mock model costs nothing; a model
the map does not know has an undefined cost, said so. Actual: the cost the
gateway recorded on each run (summed per sample and per study).
"""

from __future__ import annotations

from workbench.protocols.m11.prompts import messages

CHARS_PER_TOKEN = 4
ASSUMED_REPLY_TOKENS = {"critic": 350, "defender": 300, "judge": 350, "metajudge": 60, "binary": 60}
SEED_TABLE = {"tokens_per_sample_3_runs": 18000, "cost_per_sample_3_runs_gpt_4o_mini": 0.009,
              "cost_100_samples_full": 0.90, "cost_100_samples_single_run": 0.30}


def tokens(msgs: list[dict]) -> int:
    return -(-sum(len(m["content"]) for m in msgs) // CHARS_PER_TOKEN)


def call_tokens(item: dict) -> dict[str, tuple[int, int]]:
    """stage -> (input tokens, output tokens) of one call, nothing retried."""
    out = ASSUMED_REPLY_TOKENS
    return {
        "critic": (tokens(messages("critic", item)), out["critic"]),
        "defender": (tokens(messages("defender", item)) + out["critic"], out["defender"]),
        "judge": (tokens(messages("judge", item)) + out["critic"] + out["defender"], out["judge"]),
        "metajudge": (tokens(messages("metajudge", item)) + out["critic"] + out["defender"] + out["judge"],
                      out["metajudge"]),
        "binary": (tokens(messages("binary", item)), out["binary"]),
    }


def prices(model: str) -> tuple[float, float] | None:
    """(input, output) USD per token from litellm's bundled map; (0, 0) for mock; None if unknown."""
    if model == "mock":
        return 0.0, 0.0
    from workbench.gateway.transport import litellm_module

    cost_map = litellm_module().model_cost
    for name in (model, model.split("/", 1)[-1]):
        entry = cost_map.get(name)
        if entry and "input_cost_per_token" in entry:
            return float(entry["input_cost_per_token"]), float(entry.get("output_cost_per_token") or 0.0)
    return None


def estimate(definition: dict, items: list[dict]) -> dict:
    options = definition.get("m11") or {}
    runs = options.get("runs", 3)
    limit = options.get("limit") or 0
    items = items[:limit] if limit else items
    conditions = definition.get("conditions") or ["likert", "binary"]
    model = definition["model"]["name"]
    stages = {s: [0, 0, 0] for s in ASSUMED_REPLY_TOKENS}  # calls, input, output
    for item in items:
        per = call_tokens(item)
        for stage, (tin, tout) in per.items():
            n = (1 if "binary" in conditions else 0) if stage == "binary" else (runs if "likert" in conditions else 0)
            stages[stage][0] += n
            stages[stage][1] += n * tin
            stages[stage][2] += n * tout
    total_in = sum(v[1] for v in stages.values())
    total_out = sum(v[2] for v in stages.values())
    price = prices(model)
    cost = None if price is None else total_in * price[0] + total_out * price[1]
    return {"model": model, "samples": len(items), "runs": runs, "calls": sum(v[0] for v in stages.values()),
            "by_stage": {s: {"calls": v[0], "input_tokens": v[1], "output_tokens": v[2]} for s, v in stages.items()},
            "input_tokens": total_in, "output_tokens": total_out,
            "price_per_token": None if price is None else {"input": price[0], "output": price[1]},
            "cost": None if cost is None else round(cost, 6),
            "cost_per_sample": None if cost is None or not items else round(cost / len(items), 6),
            "undefined_reason": None if price is not None else f"litellm's cost map has no price for '{model}'",
            "seed_reference": SEED_TABLE}


def actual(results: list[dict]) -> dict:
    per = [{"item": r["id"], "cost": round(r["cost"]["cost"], 6), "cost_unknown": r["cost"]["cost_unknown"]}
           for r in results]
    total = sum(p["cost"] for p in per)
    unknown = any(p["cost_unknown"] for p in per)
    from workbench.studies.costs import cost_text

    return {"per_sample": per, "total": round(total, 6), "cost_unknown": unknown,
            "mean_per_sample": round(total / len(per), 6) if per else None,
            "text": cost_text(total, unknown),   # "unknown" when no call had a price, never $0.0000
            "note": "partial: some calls had no known price" if unknown and total else None}
