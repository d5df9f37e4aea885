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
the floor. (The project's own choice: the seeds set no such check.)
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Callable

import sqlite_utils

from workbench.gateway.api import ModelSettings
from workbench.gateway.context_window import Window, fixes, window_of
from workbench.gateway.limits import estimate_tokens
from workbench.problems import Problem, key_lines, line_of


@dataclass(frozen=True)
class PromptSize:
    """The largest prompt one condition sends one model, measured by a dry run (or an item alone)."""

    settings: ModelSettings
    condition: str
    turn: str
    short_replies: int      # estimated prompt tokens with replies of a few tokens
    full_replies: int       # ... with every earlier reply as long as max_tokens

    @property
    def endpoint(self) -> tuple[str, str]:
        return self.settings.model, self.settings.api_base or ""


Measure = Callable[[sqlite_utils.Database, str, dict], list[PromptSize]]


@dataclass(frozen=True)
class Misfit:
    size: PromptSize
    window: Window
    refused: bool

    def message(self) -> str:
        s, mt = self.size.settings, self.size.settings.max_tokens
        where = f" at {s.api_base}" if s.api_base else ""
        prompt = self.size.short_replies if self.refused else self.size.full_replies
        what = ("cannot fit" if self.refused else "may not fit once the replies run to max_tokens")
        return (f"{s.model}{where}: condition {self.size.condition}'s largest prompt ({self.size.turn}) {what}: "
                f"about {prompt:,} prompt tokens + max_tokens {mt:,} = {prompt + mt:,}, more than the context "
                f"window of {self.window.text()}. Fix: {fixes(s, prompt + mt)}")


def misfits(sizes: list[PromptSize], *, ask_server: bool = True) -> list[Misfit]:
    """Per endpoint and condition, its worst prompt against the window: refused, or a warning."""
    groups: dict[tuple, list[PromptSize]] = {}
    for size in sizes:
        groups.setdefault((size.endpoint, size.condition), []).append(size)
    out = []
    windows: dict[tuple[str, str], Window | None] = {}
    for (endpoint, _), group in groups.items():
        shortest, longest = max(group, key=lambda z: z.short_replies), max(group, key=lambda z: z.full_replies)
        if endpoint not in windows:
            windows[endpoint] = window_of(longest.settings, ask_server=ask_server)
        window = windows[endpoint]
        if window is None:
            continue
        if shortest.short_replies + shortest.settings.max_tokens > window.tokens:
            out.append(Misfit(shortest, window, True))
        elif longest.full_replies + longest.settings.max_tokens > window.tokens:
            out.append(Misfit(longest, window, False))
    return out


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
    """What does not fit, measured by `measure` (the dry run) or, without one, by the items alone. Nothing
    is measured when no model of the study has a known window (the offline models)."""
    if not has_window(definition):
        return []
    return misfits((measure or item_sizes)(db, study_id, definition))


def has_window(definition: dict) -> bool:
    """Whether any model of the study has a known window: else there is nothing to check (the offline models)."""
    return any(window_of(s) for s in model_tables(definition))


def context_problems(db: sqlite_utils.Database, study_id: str, definition: dict, name: str, text: str | None,
                     measure: Measure | None = None) -> tuple[list[Problem], list[str]]:
    """`study create`'s check: (problems that refuse the study, at the [model] line; warnings)."""
    found = study_fit(db, study_id, definition, measure)
    line = line_of(key_lines(text), "model") if text else 1
    problems = [Problem(name, line, "model", m.message()) for m in found if m.refused]
    return problems, [m.message() for m in found if not m.refused]
