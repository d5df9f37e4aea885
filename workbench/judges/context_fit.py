"""Does each judge's prompt fit its model's context window? Measured like the conditions' prompts.

A judge's prompt is the rubric, the case (scenario, outcome, transposition) and the response it scores, built
by the judge's own prompt functions and estimated at four characters a token (the gateway's estimate). The
adversarial pipeline's later stages also carry what the earlier ones replied: the Defender the Critic's
weaknesses, the Judge their debate, the MetaJudge the debate and the Judge's scores (each reply at most the
judge's `max_tokens`). As for the conditions (`workbench/gateway/context_fit.py`), each size is taken twice:
"short", the replies of the earlier stages left out, and "full", each as long as `max_tokens`.

- At `study create`, before any response exists (`sizes_before_runs`), the response is the unknown: short
  is the prompt with no response (it can never fit: refused), full with a response as long as the study
  model's `max_tokens`, the longest a condition's final reply can be (it may not fit: warned of).
- At `judge`, before the first call (`refuse_unfit`), the responses are known: short is the prompt with each
  item's own response (refused when it cannot fit, the judge, the model and the window named), full adds
  the adversarial debate at `max_tokens` (warned of).

A judge whose model has no known window (the offline models; a server that reports none) is not measured.
(The project's own choice: the seeds set no such check.)
"""

from __future__ import annotations

from dataclasses import replace

import sqlite_utils

from workbench.blinding.context import BlindingError, StudyContext, load_study
from workbench.gateway.context_fit import PromptSize, misfits
from workbench.gateway.context_window import window_of
from workbench.gateway.limits import estimate_tokens
from workbench.judges.adversarial import JUDGE_SYSTEM, _critic_messages, _defender_messages, _meta_messages
from workbench.judges.calls import JudgeItem, JudgeSpec
from workbench.judges.prompt import evaluator_messages
from workbench.judges.schema import REPLY_TOKENS_PER_CRITERION
from workbench.rubrics import Rubric


def _stages(spec: JudgeSpec, item: JudgeItem, rubric: Rubric, per_criterion: bool) -> list[tuple[list, int]]:
    """(messages, earlier replies it carries) of each call the judge makes on this item and rubric."""
    def scored(part: Rubric, **kw) -> list[dict]:
        return evaluator_messages(scenario=item.scenario, outcome=item.outcome, response=item.response, rubric=part,
                                  transposition=item.transposition, **kw)

    if spec.pipeline != "adversarial":
        parts = [rubric] if not per_criterion else [replace(rubric, criteria=[c]) for c in rubric.criteria]
        return [(scored(part), 0) for part in parts]
    return [(_critic_messages(item, rubric, [], None), 0),
            (_defender_messages(item, rubric, [], [], None), 1),
            (scored(rubric, extra_blocks=[("DEBATE", "")], system=JUDGE_SYSTEM), 2),
            (_meta_messages(item, rubric, "", {}, None), 3)]


def prompt_size(spec: JudgeSpec, item: JudgeItem, rubric: Rubric, *, per_criterion: bool = False,
                response_tokens: int = 0, where: str = "") -> PromptSize:
    """The judge's largest prompt on this item and rubric; `response_tokens` more of response than the
    item's own (a stand-in for responses not written yet)."""
    stages = [(estimate_tokens(messages, 0) + response_tokens, carried) for messages, carried in
              _stages(spec, item, rubric, per_criterion)]
    short = max(tokens for tokens, _ in stages)
    full = max(tokens + carried * spec.max_tokens for tokens, carried in stages)
    return PromptSize(spec.settings(), "", f"judge/{rubric.id}{where}", short, full, judge=spec.name)


def measured(specs: list[JudgeSpec]) -> list[JudgeSpec]:
    """The judges whose model has a known window: the only ones worth measuring."""
    return [s for s in specs if window_of(s.settings()) is not None]


def sizes_before_runs(db: sqlite_utils.Database, study_id: str) -> list[PromptSize]:
    """`study create`'s sizes: every judge on every case and rubric, before any response exists."""
    from workbench.protocol.registry import protocol_of

    study = load_study(db, study_id)
    if protocol_of(study.definition).judges_are_runs:  # their calls are runs: the dry run measures them
        return []
    seed = (study.definition.get("model") or {}).get("seed")
    specs = measured([JudgeSpec.from_definition(j, seed) for j in study.judges])
    if not specs:
        return []
    longest = int((study.definition.get("model") or {}).get("max_tokens") or 1024)
    out = []
    for case_id in list(study.cases) or [""]:
        case = study.cases.get(case_id)
        item = JudgeItem(id="", scenario=case.scenario if case else "", response="",
                         outcome=(case.outcome if case else "") if study.shows_outcome else None,
                         transposition=case.transposition.for_evaluators() if case and study.shows_outcome else None)
        try:
            rubrics = study.rubrics_for_case(case_id)
        except BlindingError:  # a rubric not found: `judge` says so
            continue
        where = f", case '{case_id}'" if case_id else ""
        for spec in specs:
            for rubric in rubrics:
                empty = prompt_size(spec, item, rubric, where=where)
                full = prompt_size(spec, item, rubric, response_tokens=longest, where=where)
                out.append(PromptSize(empty.settings, "", empty.turn, empty.short_replies, full.full_replies,
                                      judge=spec.name))
    return out


def short_budgets(db: sqlite_utils.Database, study_id: str) -> list[str]:
    """`study create`'s warnings: a judge whose `max_tokens` is below what a rubric's whole reply needs
    (its criteria x `REPLY_TOKENS_PER_CRITERION`), whose replies would be cut at max_tokens."""
    from workbench.gateway.api import OFFLINE_MODELS
    from workbench.protocol.registry import protocol_of

    study = load_study(db, study_id)
    if protocol_of(study.definition).judges_are_runs:  # a score and a reason: no rubric reply
        return []
    rubrics: dict[str, Rubric] = {}
    for case_id in list(study.cases) or [""]:
        try:
            rubrics.update((r.id, r) for r in study.rubrics_for_case(case_id))
        except BlindingError:  # a rubric not found: `judge` says so
            continue
    out = []
    for judge in study.judges:
        spec = JudgeSpec.from_definition(judge)
        if spec.model in OFFLINE_MODELS:
            continue
        for rubric in rubrics.values():
            need = len(rubric.criteria) * REPLY_TOKENS_PER_CRITERION
            if spec.max_tokens < need:
                out.append(f"judge '{spec.name}': max_tokens {spec.max_tokens} is below what rubric '{rubric.id}' "
                           f"needs for its reply ({len(rubric.criteria)} criteria x about "
                           f"{REPLY_TOKENS_PER_CRITERION} tokens each, a quote and a one-sentence justification: "
                           f"{need}); its replies may be cut at max_tokens: raise the judge's max_tokens to {need} "
                           "or more, or judge one criterion a call (`judge --per-criterion`)")
    return out


def refuse_unfit(study: StudyContext, specs: list[JudgeSpec], items: list[tuple[JudgeItem, str, bool]],
                 error: type[Exception], *, per_criterion: bool = False, say=None) -> None:
    """`judge`'s check before its first call, on the responses themselves: a judge whose prompt cannot fit
    its model's window raises `error` naming it; one whose debate may outgrow the window is `say`-d."""
    specs = measured(specs)
    if not specs:
        return
    sizes = []
    for item, case_id, _pilot in items:
        for rubric in study.rubrics_for_case(case_id):
            for spec in specs:
                sizes.append(prompt_size(spec, item, rubric, per_criterion=per_criterion, where=f", item '{item.id}'"))
    found = misfits(sizes)
    refused = [m.message() for m in found if m.refused]
    if refused:
        raise error(f"study '{study.id}' cannot be judged: " + "; ".join(refused))
    for misfit in found:
        (say or (lambda message: None))(f"warning: {misfit.message()}")
