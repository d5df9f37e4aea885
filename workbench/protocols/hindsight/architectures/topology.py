"""P1 decision-landscape topology (seed 000 §VII Metric 3): Basin, Ridge or Plateau.

After a case's three P1 committees are done:

1. Extraction: for each run's final output, one model call asks for JSON
   `{"recommendation": ..., "claims": [up to 3]}`. A reply that is not that
   JSON is an extraction error, kept with its raw text, never guessed.
2. Comparison: one model call sees the three extractions, labelled A, B, C
   (claims A1..C3), and groups the runs whose recommendations are the same
   course of action and the claims that make the same point (JSON). An
   invalid grouping (a label missing from the run groups, twice, or unknown)
   is a comparison error, as is a reply that groups no claim at all where two
   or more runs share a recommendation (the pattern would rest on claims never
   compared). A claim the model left out of every claim group is taken as
   matching nothing.
3. Classification, a pure function of the two groupings:
   - three recommendation groups                      -> Plateau
   - two groups (2 agree, 1 diverges on recommendation) -> Ridge
   - one group: compare each run's claim signature (the set of claim groups
     its claims fall in):
       all three equal                                 -> Basin
       two equal, one different (diverges on a claim)  -> Ridge
       all three different                             -> Basin, with
         `claims_agree = false` in the detail (the recommendation is settled;
         no single run diverges, so there is no switching assumption)
   For a Ridge, the switching assumption is the divergent run's first claim
   that no convergent run makes; failing that, the first claim both
   convergent runs make that the divergent run lacks.
   Any extraction or comparison error -> Unclassified (errors in the detail).

The calls use the study's architecture model at temperature 0 and go through
the gateway, so a resumed or replayed study classifies from the same replies.
An extraction copies from a run's output, so its max_tokens is sized to that
output (`runs/truncation.room_to_copy`, the rule of every copying step), never
less than the study's. Each reply is counted (parsed, cut, unparsed) under its
step; one cut at max_tokens is asked once more with a larger max_tokens within
the window (`extraction.copy_turn`, the rule of workbench/structured/cut.py), and
one still cut is an error that says so.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import replace

from workbench.protocols.hindsight.architectures.base import RunContext, parallel, system, user
from workbench.protocols.hindsight.architectures.extraction import copy_turn
from workbench.protocols.hindsight.architectures.prompts import P1_COMPARE, P1_EXTRACT, P1_EXTRACT_SYSTEM
from workbench.runs.truncation import room_to_copy

LABELS = ("A", "B", "C")
EXPECTED_CALLS = 4  # three extractions and one comparison
# the names their replies are counted under (workbench/structured/counts.py)
EXTRACT_STEP, COMPARE_STEP = "P1 topology extraction", "P1 topology comparison"


def extract_json(text: str):
    """The JSON object in a reply (bare, or in a ``` fence); None if there is none that parses. A Python-style
    object (single quotes, True/None: small models write it) is read as the same literal, never evaluated."""
    if not text:
        return None
    fenced = re.search(r"```(?:json)?\s*(\{.*?\})\s*```", text, re.DOTALL)
    candidates = [fenced.group(1)] if fenced else []
    start, end = text.find("{"), text.rfind("}")
    if start != -1 and end > start:
        candidates.append(text[start:end + 1])
    for c in candidates:
        try:
            value = json.loads(c)
        except ValueError:
            try:
                value = ast.literal_eval(c)
            except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                continue
        if isinstance(value, dict):
            return value
    return None


def read_extraction(text: str) -> tuple[dict | None, str | None]:
    """({recommendation, claims}, None) or (None, error)."""
    data = extract_json(text)
    if data is None:
        return None, "the reply is not a JSON object"
    rec, claims = data.get("recommendation"), data.get("claims", [])
    if not isinstance(rec, str) or not rec.strip():
        return None, "no recommendation string in the JSON"
    if not isinstance(claims, list) or not all(isinstance(c, str) for c in claims):
        return None, "claims is not a list of strings"
    claims = [c.strip() for c in claims if c.strip()]
    out = {"recommendation": rec.strip(), "claims": claims[:3]}
    if len(claims) > 3:
        out["claims_dropped"] = claims[3:]
    return out, None


def read_comparison(text: str, claim_labels: list[str]) -> tuple[dict | None, str | None]:
    data = extract_json(text)
    if data is None:
        return None, "the reply is not a JSON object"
    rg, cg = data.get("recommendation_groups"), data.get("claim_groups", [])
    if not _groups_ok(rg):
        return None, "recommendation_groups is not a list of lists of labels"
    flat = [x for g in rg for x in g]
    if sorted(flat) != sorted(LABELS):
        return None, f"recommendation_groups must hold A, B and C exactly once each (got {flat})"
    if not _groups_ok(cg):
        return None, "claim_groups is not a list of lists of labels"
    if claim_labels and not any(cg) and len([g for g in rg if g]) < 3:
        # with a shared recommendation the pattern rests on the claims: none grouped is no comparison at all
        return None, "claim_groups is missing or empty: the claims were not compared"
    flat_claims = [x for g in cg for x in g]
    unknown = sorted(set(flat_claims) - set(claim_labels))
    if unknown:
        return None, f"claim_groups names unknown claims {unknown}"
    twice = sorted({x for x in flat_claims if flat_claims.count(x) > 1})
    if twice:
        return None, f"claim_groups lists {twice} more than once"
    groups = [list(g) for g in cg if g]
    unmatched = [c for c in claim_labels if c not in flat_claims]
    groups += [[c] for c in unmatched]
    return {"recommendation_groups": [list(g) for g in rg if g], "claim_groups": groups,
            "unmatched_claims": unmatched}, None


def _raising(read):
    """A `read_…` function (value, error) as a parser that raises InvalidReply, for `RunContext.read_reply`."""
    from workbench.structured.reading import InvalidReply

    def parse(text: str):
        value, error = read(text)
        if error is not None:
            raise InvalidReply(error)
        return value
    return parse


def _groups_ok(value) -> bool:
    return isinstance(value, list) and all(
        isinstance(g, list) and all(isinstance(x, str) for x in g) for g in value)


def classify(extractions: dict[str, dict], comparison: dict) -> dict:
    """Pattern, divergent run, switching assumption and convergent recommendation (pure)."""
    rec_groups = comparison["recommendation_groups"]
    group_of = {c: i for i, g in enumerate(comparison["claim_groups"]) for c in g}
    claims = {lab: [(f"{lab}{i}", text) for i, text in enumerate(extractions[lab]["claims"], start=1)]
              for lab in LABELS}
    sig = {lab: frozenset(group_of[c] for c, _ in claims[lab]) for lab in LABELS}
    out = {"pattern": None, "divergent": None, "switching_assumption": None, "convergent_recommendation": None,
           "claims_agree": None, "rule": ""}
    if len(rec_groups) == 3:
        out.update(pattern="Plateau", rule="all three runs reach different recommendations")
        return out
    if len(rec_groups) == 2:
        pair = next(g for g in rec_groups if len(g) == 2)
        divergent = next(g for g in rec_groups if len(g) == 1)[0]
        out.update(pattern="Ridge", divergent=divergent, claims_agree=sig[pair[0]] == sig[pair[1]],
                   rule=f"runs {pair[0]} and {pair[1]} agree; run {divergent} diverges on the recommendation")
    else:
        out["convergent_recommendation"] = extractions["A"]["recommendation"]
        if sig["A"] == sig["B"] == sig["C"]:
            out.update(pattern="Basin", claims_agree=True,
                       rule="all three runs reach the same recommendation with the same key claims")
            return out
        odd = [lab for lab in LABELS if sum(sig[lab] == sig[o] for o in LABELS if o != lab) == 0]
        if len(odd) == 1:
            out.update(pattern="Ridge", divergent=odd[0], claims_agree=False,
                       rule=f"all three reach the same recommendation; run {odd[0]} diverges on a key claim")
            pair = [lab for lab in LABELS if lab != odd[0]]
        else:
            out.update(pattern="Basin", claims_agree=False,
                       rule="all three reach the same recommendation; their key claims differ in every run")
            return out
    divergent = out["divergent"]
    out["convergent_recommendation"] = extractions[pair[0]]["recommendation"]
    convergent_groups = sig[pair[0]] | sig[pair[1]]
    only_divergent = [t for c, t in claims[divergent] if group_of[c] not in convergent_groups]
    shared_missing = [t for c, t in claims[pair[0]]
                      if group_of[c] in sig[pair[1]] and group_of[c] not in sig[divergent]]
    out["claims_only_in_divergent"] = only_divergent
    out["claims_missing_from_divergent"] = shared_missing
    if only_divergent:
        out["switching_assumption"] = only_divergent[0]
    elif shared_missing:
        out["switching_assumption"] = f"(absent from run {divergent}) {shared_missing[0]}"
    return out


async def classify_case(ctx: RunContext, runs: list[dict]) -> dict:
    """Extract, compare and classify three P1 runs of one case.

    `runs`: three dicts with run_id, replicate and text (the final output), in
    replicate order. `ctx` carries the gateway, sink, control and the study's
    model; its run_id is None (the topology belongs to the case, not to a run).
    Returns the topology row's fields; raises GatewayError if a call fails.
    """
    ctx = replace(ctx, settings=replace(ctx.settings, temperature=0.0))
    # P1 keeps its original turn ids; another condition's replicates get their own
    case = ctx.case_id if ctx.condition in (None, "P1") else f"{ctx.case_id}:{ctx.condition}"
    labelled = dict(zip(LABELS, runs))

    async def extract(label: str, run: dict) -> dict:
        output = run["text"].strip()
        # it copies the recommendation and claims out of the output: room for the output, as every copying step
        _, raw, reading = await copy_turn(
            ctx, f"topology:{case}:extract-{label}", EXTRACT_STEP, _raising(read_extraction),
            [system(P1_EXTRACT_SYSTEM), user(P1_EXTRACT.format(output=output))], phase="topology",
            label=f"Extract run {label}'s recommendation and claims", settings=room_to_copy(ctx.settings, output),
            schema=None, role="classifier")
        return {"label": label, "run_id": run["run_id"], "replicate": run["replicate"], "raw": raw,
                "error": None if reading.ok else reading.detail,
                **(reading.value if reading.ok else {"recommendation": None, "claims": []})}

    extracted = await parallel(*(extract(lab, r) for lab, r in labelled.items()))
    detail: dict = {"runs": extracted, "comparison": None}
    errors = [f"run {e['label']}: {e['error']}" for e in extracted if e["error"]]
    result = None
    if not errors:
        listing = "\n\n".join(
            f"RUN {e['label']}\nRecommendation: {e['recommendation']}\n" +
            "\n".join(f"Claim {e['label']}{i}: {c}" for i, c in enumerate(e["claims"], start=1))
            for e in extracted)
        claim_labels = [f"{e['label']}{i}" for e in extracted for i in range(1, len(e["claims"]) + 1)]
        _, raw, reading = await copy_turn(
            ctx, f"topology:{case}:compare", COMPARE_STEP, _raising(lambda r: read_comparison(r, claim_labels)),
            [system(P1_EXTRACT_SYSTEM), user(P1_COMPARE.format(runs=listing))], phase="topology",
            label="Compare the three runs", settings=None, schema=None, agent="comparator", role="classifier")
        comparison, error = (reading.value, None) if reading.ok else (None, reading.detail)
        detail["comparison"] = {"raw": raw, "error": error, **(comparison or {})}
        if error:
            errors.append(f"comparison: {error}")
        else:
            result = classify({e["label"]: e for e in extracted}, comparison)
    detail["errors"] = errors
    if result is None:
        row = {"pattern": "Unclassified", "switching_assumption": None, "convergent_recommendation": None}
    else:
        detail.update({k: v for k, v in result.items()
                       if k not in ("pattern", "switching_assumption", "convergent_recommendation")})
        row = {k: result[k] for k in ("pattern", "switching_assumption", "convergent_recommendation")}
        if result["divergent"]:
            detail["divergent_run_id"] = labelled[result["divergent"]]["run_id"]
    ctx.emit("topology", turn=f"topology:{case}", agent="topology", case_id=ctx.case_id,
             condition=ctx.condition or "P1",
             **row, errors=errors, rule=detail.get("rule", ""))
    return {**row, "detail": detail}
