"""The run programs: one M11 pipeline run (Critic -> Defender -> Judge -> MetaJudge) or one binary call.

A run is one item x one pipeline run index (`likert`, replicates 0..runs-1) or
one binary verdict (`binary`). The InputFilter ran when the items were loaded.
Retry rules (seed 003 §2, the counts are the project's): a reply that does not
parse, or a Critic with fewer than three weaknesses, is asked once more with
the reason (a reply cut at max_tokens, with a larger max_tokens:
`RunContext.mend_cut`); a second failure ends the run as a counted error (status "error"
in its output), kept with the raw replies and excluded from the scores. A
MetaJudge sycophancy flag has the Judge score once more with the reason, and
the MetaJudge checks that verdict too; a flag that stays is recorded. Gateway
failures propagate: the run fails and is resumed from the call log.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Callable

from workbench.events import M11_ERROR, M11_RETRY, M11_STAGE
from workbench.protocols.m11 import replies, schemas
from workbench.protocols.m11.prompts import BINARY_TEMPERATURE, TEMPERATURES, messages
from workbench.protocols.m11.scoring import band
from workbench.runs.context import RunContext, RunOutput
from workbench.runs.truncation import CUT_NOTE
from workbench.structured.cut import within

PARSE_RETRIES = 1        # one more ask after an unusable reply
SYCOPHANCY_RETRIES = 1   # seed 003 §2: the MetaJudge recommends a retry
CALLS_PER_PIPELINE = 4   # critic, defender, judge, metajudge when nothing is retried
RETRY = ".retry"         # a stage's retry: its turn id is the first's with this and the retry's number after it

STAGE_EVENT = M11_STAGE


class StageFailed(Exception):
    def __init__(self, stage: str, reason: str, raw: list[str]):
        super().__init__(f"{stage}: {reason}")
        self.stage, self.reason, self.raw = stage, reason, raw


async def ask(ctx: RunContext, stage: str, build: Callable[[str | None], list[dict]], parse: Callable[[str], object],
              *, temperature: float, turn: str, retries: dict, label: str, schema: dict | None = None):
    """One stage: ask, parse, retry once with the reason; raises StageFailed after the last attempt.
    `schema`: the reply's JSON schema (`schemas.py`), sent with every attempt where the model decodes by schema."""
    settings = replace(ctx.settings, temperature=temperature)
    note, raw = None, []
    for attempt in range(1 + PARSE_RETRIES):
        turn_id = turn if attempt == 0 else f"{turn}{RETRY}{attempt}"
        text = await ctx.turn(turn_id, stage, build(note), phase=stage, label=label, settings=settings,
                              schema=schema)
        raw.append(text)
        reading = ctx.read_reply(turn_id, f"m11 {stage}", parse, text)
        if reading.ok:
            return reading.value
        note = reading.detail + (CUT_NOTE if ctx.was_cut(turn_id) else "")  # say why the JSON broke off
        if attempt < PARSE_RETRIES:
            mended = ctx.mend_cut(turn_id, f"m11 {stage}", reading, settings)  # cut: more room, not the same ask
            if mended is not None:
                settings, note = mended, note + within(mended.max_tokens)
            retries[stage] = retries.get(stage, 0) + 1
            ctx.emit(M11_RETRY, turn=turn_id, agent=stage, reason=note)
            ctx.reject(turn_id, note)  # the next ask is titled as its retry, with the reason
    raise StageFailed(stage, note or "no usable reply", raw)


async def likert_program(ctx: RunContext) -> RunOutput:
    item, run_index = ctx.item, ctx.replicate
    retries: dict[str, int] = {}
    base = {"kind": "likert", "item_id": item["id"], "run_index": run_index}
    verdicts: list[dict] = []   # every Judge verdict in order: a sycophancy retry's first one is kept
    try:
        weaknesses = await ask(ctx, "critic", lambda note: messages("critic", item, note=note), replies.critic,
                               temperature=TEMPERATURES["critic"], turn="critic", retries=retries,
                               label=f"Critic, run {run_index + 1}", schema=schemas.critic_schema())
        ctx.emit(STAGE_EVENT, agent="critic", stage="critic", weaknesses=weaknesses)
        rebuttals = await ask(ctx, "defender",
                              lambda note: messages("defender", item, weaknesses=weaknesses, note=note),
                              lambda text: replies.defender(text, weaknesses), temperature=TEMPERATURES["defender"],
                              turn="defender", retries=retries, label=f"Defender, run {run_index + 1}",
                              schema=schemas.defender_schema(weaknesses))
        ctx.emit(STAGE_EVENT, agent="defender", stage="defender", rebuttals=rebuttals)
        judged, checks, reason = None, [], None
        for round_ in range(1 + SYCOPHANCY_RETRIES):
            suffix = "" if round_ == 0 else f".again{round_}"
            judged = await ask(ctx, "judge", lambda note, r=reason: messages(
                "judge", item, weaknesses=weaknesses, rebuttals=rebuttals, note=note, sycophancy=r),
                replies.judge, temperature=TEMPERATURES["judge"], turn="judge" + suffix, retries=retries,
                label=f"Judge, run {run_index + 1}", schema=schemas.judge_schema())
            ctx.emit(STAGE_EVENT, agent="judge", stage="judge", scores=judged["scores"], overall=judged["overall"],
                     summary=judged["summary"])
            verdicts.append({"round": round_ + 1, **{k: judged[k] for k in ("overall", "scores", "evidence",
                                                                              "summary")},
                             "band": band(judged["overall"])})
            try:
                check = await ask(ctx, "metajudge", lambda note, j=judged: messages(
                    "metajudge", item, weaknesses=weaknesses, rebuttals=rebuttals, judged=j, note=note),
                    replies.metajudge, temperature=TEMPERATURES["metajudge"], turn="metajudge" + suffix,
                    retries=retries, label=f"MetaJudge, run {run_index + 1}", schema=schemas.metajudge_schema())
            except StageFailed as exc:  # the check failed, not the verdict: keep it and say so
                checks.append({"error": exc.reason})
                break
            checks.append(check)
            verdicts[-1]["sycophantic"] = check["sycophantic"]
            ctx.emit(STAGE_EVENT, agent="metajudge", stage="metajudge", **check)
            if not check["sycophantic"] or round_ == SYCOPHANCY_RETRIES:
                break
            retries["sycophancy"] = retries.get("sycophancy", 0) + 1
            reason = check["reason"] or "the scores follow the debate's rhetoric, not the evidence"
    except StageFailed as exc:
        report = {**base, "status": "error", "failed_stage": exc.stage, "error": exc.reason, "raw": exc.raw,
                  "judge_verdicts": verdicts, "retries": retries}
        ctx.emit(M11_ERROR, agent=exc.stage, stage=exc.stage, error=exc.reason)
        return RunOutput(text=f"counted error: {exc.stage} gave no usable reply ({exc.reason})", report=report)
    result = {"overall": judged["overall"], "scores": judged["scores"], "summary": judged["summary"]}
    report = {**base, "status": "ok", **result, "band": band(judged["overall"]), "evidence": judged["evidence"],
              "debate": {"weaknesses": weaknesses, "rebuttals": rebuttals, "metajudge": checks},
              "judge_verdicts": verdicts,   # the last one is the run's verdict
              "sycophancy_unresolved": bool(checks and checks[-1].get("sycophantic")), "retries": retries}
    return RunOutput(text=json.dumps(result, ensure_ascii=False, indent=2), report=report)


async def binary_program(ctx: RunContext) -> RunOutput:
    item, retries = ctx.item, {}
    base = {"kind": "binary", "item_id": item["id"]}
    try:
        verdict = await ask(ctx, "binary", lambda note: messages("binary", item, note=note), replies.binary,
                            temperature=BINARY_TEMPERATURE, turn="binary", retries=retries, label="Binary judge",
                            schema=schemas.binary_schema())
    except StageFailed as exc:
        return RunOutput(text=f"counted error: binary judge gave no usable reply ({exc.reason})",
                         report={**base, "status": "error", "failed_stage": "binary", "error": exc.reason,
                                 "raw": exc.raw, "retries": retries})
    ctx.emit(STAGE_EVENT, agent="binary", stage="binary", **verdict)
    return RunOutput(text=json.dumps(verdict, ensure_ascii=False), report={**base, "status": "ok", **verdict,
                                                                          "retries": retries})
