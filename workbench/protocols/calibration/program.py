"""Arm B's run program: one judge scores one interaction's content artifact on [0, 1].

The prompt is built from the artifact alone and checked for excluded
observables before it is sent (`judge_prompt.check_prompt`); a refused prompt
makes no call and is recorded as `prompt_refused`. A reply that is not one JSON
object with a `score` in [0, 1] is told why and asked again, `judge_retries`
times, each retry titled as one in the transcript with the reason; if it still
fails, the run's report holds a `judge_error` with every raw reply, and no score.
A reply that did not parse because it was stopped at max_tokens is counted as cut
(not unparsed) and asked again as the same prompt with a larger max_tokens within
the judge's window (`RunContext.mend_cut`: the one rule of workbench/structured/cut.py);
with no room or attempt left it is not asked again unchanged, and stays a
judge_error whose reason says it was cut.
Every call goes through the gateway via `ctx.turn`, so it is logged, replayed
on resume and replayable with `--replay`.
"""

from __future__ import annotations

import hashlib
import math
from functools import lru_cache

from workbench.events import JUDGE_ERROR, JUDGE_SCORE, PROMPT_REFUSED
from workbench.judges.parse import InvalidReply, extract_json
from workbench.structured.cut import ASKED_AGAIN
from workbench.structured.reading import CUT, repaired
from workbench.protocols.calibration.judge_prompt import (PromptLeak, check_prompt, judge_messages,
                                                          retry_message)
from workbench.rubrics import Rubric
from workbench.runs.context import RunContext, RunOutput


class RubricChanged(Exception):
    """The rubric file no longer has the hash the study froze."""


@lru_cache(maxsize=8)
def _rubric_by_hash(rubric_id: str, sha: str) -> Rubric:
    from workbench.cases.library import shipped_rubrics

    rubric = shipped_rubrics().get(rubric_id)
    if rubric is None or rubric.hash != sha:
        raise RubricChanged(f"rubric '{rubric_id}' is not the version the study pre-registered "
                            f"(sha256 {sha[:12]}); restore it or create a new study")
    return rubric


STEP = "calibration judge"   # the name its replies are counted under (workbench/structured/counts.py)


def frozen_rubric(options: dict) -> Rubric:
    return _rubric_by_hash(options["rubric"], options["rubric_sha256"])


# The judge's reply as a JSON schema (sent where the model decodes by schema; the parser stays the check).
# Grammar-based decoders (llama.cpp) do not enforce a number's minimum and maximum, and a small model wrote
# 1.2; so the schema lists the scores 0.00 ... 1.00: the project's choice, a step of 0.01 on the seed's 0-1 scale.
SCORE_STEPS = [round(i / 100, 2) for i in range(101)]
REASON_CHARS = 300
SCORE_SCHEMA = {"name": "calibration_score", "schema": {
    "type": "object", "properties": {"score": {"type": "number", "enum": SCORE_STEPS},
                                     "reason": {"type": "string", "maxLength": REASON_CHARS}},
    "required": ["score", "reason"]}}
# A whole reply's tokens: the score's JSON and a reason of REASON_CHARS at about three characters a token (the
# rule of runs/truncation.room_to_copy). Below it a reply may be cut at max_tokens (issue 40).
REPLY_TOKENS = REASON_CHARS // 3 + 16


def short_budget(definition: dict) -> list[str]:
    """`study create`'s warning when `judge_max_tokens` is below what a judge's whole reply needs (the offline
    models answer whatever they are given)."""
    from workbench.gateway.api import OFFLINE_MODELS

    given = int(definition["calibration"]["judge_max_tokens"])
    if given >= REPLY_TOKENS or all(j.get("model") in OFFLINE_MODELS for j in definition.get("judges") or []):
        return []
    return [f"calibration.judge_max_tokens {given} is below what a judge's reply needs (a score and a reason of up "
            f"to {REASON_CHARS} characters: about {REPLY_TOKENS} tokens); its replies may be cut at max_tokens, each "
            f"then asked again with twice the room: raise judge_max_tokens to {REPLY_TOKENS} or more"]


def parse_score(text: str) -> tuple[float, str]:
    """(score, reason) from a reply; raises InvalidReply saying what is wrong."""
    obj = extract_json(text)
    score = obj.get("score")
    if isinstance(score, bool) or not isinstance(score, (int, float)):
        raise InvalidReply(f"'score' must be a number from 0 to 1, got {score!r}")
    if not math.isfinite(score) or not 0.0 <= score <= 1.0:
        raise InvalidReply(f"'score' must be between 0 and 1, got {score}")
    reason = obj.get("reason", "")
    if not isinstance(reason, str):
        repaired("the reason was not a string")
        reason = str(reason)
    return float(score), reason


async def judge_program(ctx: RunContext) -> RunOutput:
    options = ctx.options
    item = ctx.item
    base = {"judge": ctx.condition, "model": ctx.settings.model, "item_id": ctx.case_id,
            "run_id": item["run_id"], "interaction_id": item["interaction_id"],
            "rubric": options["rubric"], "rubric_sha256": options["rubric_sha256"]}
    messages = judge_messages(frozen_rubric(options), item["content"])
    try:
        check_prompt(messages, item.get("observables") or {}, options["excluded_fields"])
    except PromptLeak as exc:
        ctx.emit(PROMPT_REFUSED, agent=ctx.condition, field=exc.field, reason=str(exc))
        report = {**base, "score": None, "judge_error": False, "prompt_refused": True, "error": str(exc),
                  "raw": [], "attempts": 0}
        return RunOutput(f"prompt refused: {exc}", report)
    base["prompt_sha256"] = hashlib.sha256(repr(messages).encode("utf-8")).hexdigest()
    raws: list[str] = []
    error = ""
    asked, settings = messages, None   # what the next attempt sends; None: the judge's own settings
    for attempt in range(options["judge_retries"] + 1):
        turn = f"judge-{attempt}"
        text = await ctx.turn(turn, ctx.condition, asked, phase="judge", label=f"{ctx.condition} scores {ctx.case_id}",
                              role="judge", settings=settings, schema=SCORE_SCHEMA)
        raws.append(text)
        reading = ctx.read_reply(turn, STEP, parse_score, text)
        if not reading.ok:
            error = reading.detail
            if reading.outcome == CUT:
                # cut at max_tokens: the same prompt with more room (structured/cut.py), never the same request
                settings = ctx.mend_cut(turn, STEP, reading, settings) if attempt < options["judge_retries"] else None
                if settings is None:
                    break   # no attempt or no room left: asked again unchanged, it would only be cut again
                error += f"; {ASKED_AGAIN} {settings.max_tokens}"
                asked = messages
            else:
                asked = asked + [{"role": "assistant", "content": text}, retry_message(error)]
            if attempt < options["judge_retries"]:
                ctx.reject(turn, error)  # the next ask is titled as its retry, with the reason
            continue
        score, reason = reading.value
        ctx.emit(JUDGE_SCORE, agent=ctx.condition, score=score)
        report = {**base, "score": score, "reason": reason, "judge_error": False, "prompt_refused": False,
                  "raw": raws, "attempts": attempt + 1}
        return RunOutput(f"{ctx.condition}: {score:.3f} — {reason}", report)
    ctx.emit(JUDGE_ERROR, agent=ctx.condition, error=error)
    report = {**base, "score": None, "judge_error": True, "prompt_refused": False, "error": error, "raw": raws,
              "attempts": len(raws)}
    return RunOutput(f"{ctx.condition}: judge_error — {error}", report)
