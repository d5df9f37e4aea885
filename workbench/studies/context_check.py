"""At `study create` and `run`, before any call: does each program's largest prompt fit its model's window?

The window comes from the gateway (`workbench/gateway/context_window.py`: litellm's model info, the
server's own report, or llama-cpp-python's refusal of an oversized request). The prompts come from a dry
run of each condition's program on its largest item (`workbench/runs/dry_run.py`: the real prompts, the
replies stand-ins, nothing sent), estimated at four characters a token (the gateway's own estimate, no
tokenizer download), twice:

- with short replies (a few tokens each): the prompts themselves. If the largest of them plus `max_tokens`
  exceeds the window, the study cannot run as it is: `study create` and `run` refuse it.
- with replies as long as `max_tokens`: the most a committee can carry forward. If that exceeds the
  window, a long enough deliberation will not fit: both commands warn, naming what to change.

Without a dry run (a caller that passes no `measure`), each item's text alone is checked, the floor of
the floor. Each judge's prompt is checked the same way (`workbench/judges/context_fit.py`): the rubric and
the case with no response yet refuses, with a response as long as the study model's `max_tokens` warns;
`judge` checks it again on the responses themselves. Both rules live in `workbench/gateway/context_fit.py`.
(The project's own choice: the seeds set no such check.)
"""

from __future__ import annotations

import json
from typing import Callable

import sqlite_utils

from workbench.gateway.api import ModelSettings
from workbench.gateway.context_fit import Misfit, PromptSize, misfits  # noqa: F401  (the runner and dry run's)
from workbench.gateway.context_window import window_of
from workbench.gateway.limits import estimate_tokens
from workbench.problems import Problem, key_lines, line_of


Measure = Callable[[sqlite_utils.Database, str, dict], list[PromptSize]]


def model_tables(definition: dict) -> list[ModelSettings]:
    """The study's models as the gateway sees their endpoints: its [model] and each [[judges]] table."""
    m = definition.get("model") or {}
    out = [ModelSettings(model=m.get("name") or "", api_base=m.get("api_base") or None,
                         max_tokens=int(m.get("max_tokens") or 1024), api_key_env=m.get("api_key_env"))]
    for j in definition.get("judges") or []:
        out.append(ModelSettings(model=j.get("model") or "", api_base=j.get("api_base") or None,
                                 max_tokens=int(j.get("max_tokens") or 1024), api_key_env=j.get("api_key_env")))
    return out


def item_sizes(db: sqlite_utils.Database, study_id: str, definition: dict) -> list[PromptSize]:
    """Without a dry run: each item's text alone, for the study's model (the floor of the floor)."""
    from workbench.protocol.registry import protocol_of
    from workbench.studies.items import run_item

    protocol = protocol_of(definition)
    settings = model_tables(definition)[0]
    out = []
    for plan in {p.item_id: p for p in protocol.planned_runs(db, study_id, definition)}.values():
        try:
            payload = run_item(db, protocol, study_id, plan.item_id)
        except KeyError:  # the run itself reports a missing item
            continue
        content = payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False, default=str)
        tokens = estimate_tokens([{"content": content}], 0)
        out.append(PromptSize(settings, plan.condition, f"item '{plan.item_id}'", tokens, tokens))
    return out


def study_fit(db: sqlite_utils.Database, study_id: str, definition: dict, measure: Measure | None = None,
              ) -> list[Misfit]:
    """What does not fit, measured by `measure` (the dry run) or, without one, by the items alone, and each
    judge's prompt before any response exists (workbench/judges/context_fit.py). Nothing is measured when no
    model of the study has a known window (the offline models)."""
    from workbench.judges.context_fit import sizes_before_runs

    if not has_window(definition):
        return []
    return misfits((measure or item_sizes)(db, study_id, definition) + sizes_before_runs(db, study_id))


def has_window(definition: dict) -> bool:
    """Whether any model of the study has a known window: else there is nothing to check (the offline models)."""
    return any(window_of(s) for s in model_tables(definition))


def context_problems(db: sqlite_utils.Database, study_id: str, definition: dict, name: str, text: str | None,
                     measure: Measure | None = None) -> tuple[list[Problem], list[str]]:
    """`study create`'s check: (problems that refuse the study, at the [model] line or the judge's; warnings:
    what may not fit, a judge whose max_tokens is short of its rubrics' replies, and steps that ask for more
    tokens than the study's max_tokens)."""
    from workbench.judges.context_fit import short_budgets
    from workbench.protocol.registry import protocol_of

    found = study_fit(db, study_id, definition, measure)
    lines = key_lines(text) if text else {}
    problems = [Problem(name, line_of(lines, _key(definition, m)), _key(definition, m), m.message())
                for m in found if m.refused]
    return problems, ([m.message() for m in found if not m.refused] + short_budgets(db, study_id)
                      + protocol_of(definition).budget_warnings(definition))


def _key(definition: dict, misfit: Misfit) -> str:
    """The study file's key a misfit is reported at: the judge's model (`judges[i].model`), else [model]."""
    names = [j.get("name") for j in definition.get("judges") or []]
    return f"judges[{names.index(misfit.size.judge)}].model" if misfit.size.judge in names else "model"
