"""At `study create`: does each item's prompt fit its model's context window?

Each item's text (a hindsight case's scenario, another protocol's item as the
model is given it) is estimated at four characters a token (the gateway's own
estimate, no tokenizer download), and the study's `max_tokens` is added for the
reply. A model litellm's bundled map gives a window for is checked; the offline
models and models it does not know are not. What a committee adds to the
context as it deliberates cannot be known before the run, so this is a floor:
a prompt that fails it cannot work at all. (The project's own choice: the
seeds set no such check.)
"""

from __future__ import annotations

import json

import sqlite_utils

from workbench.gateway.limits import estimate_tokens
from workbench.gateway.model_info import context_window
from workbench.problems import Problem, key_lines, line_of


def context_problems(db: sqlite_utils.Database, study_id: str, definition: dict, name: str,
                     text: str | None) -> list[Problem]:
    """One problem per (model, item) whose prompt and reply budget exceed the model's window."""
    from workbench.protocol.registry import protocol_of
    from workbench.studies.items import run_item

    protocol = protocol_of(definition)
    models = [("model", definition.get("model") or {})]
    models += [(f"judges[{i}]", j) for i, j in enumerate(definition.get("judges") or [])]
    windows = {}
    for key, m in models:
        model = m.get("name") or m.get("model") or ""
        if model not in windows:
            windows[model] = context_window(model)
    if not any(windows.values()):
        return []
    lines = key_lines(text) if text else {}
    problems = []
    for plan in {p.item_id: p for p in protocol.planned_runs(db, study_id, definition)}.values():
        try:
            payload = run_item(db, protocol, study_id, plan.item_id)
        except KeyError:  # the run itself reports a missing item
            continue
        content = payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False, default=str)
        for key, m in models:
            model = m.get("name") or m.get("model") or ""
            window = windows.get(model)
            max_tokens = int(m.get("max_tokens") or (definition.get("model") or {}).get("max_tokens") or 0)
            needed = estimate_tokens([{"content": content}], max_tokens)
            if window and needed > window:
                problems.append(Problem(name, line_of(lines, key), key, (
                    f"item '{plan.item_id}' needs about {needed - max_tokens} prompt tokens plus max_tokens "
                    f"{max_tokens}, more than the {window}-token context window of {model}; shorten the item, "
                    "lower max_tokens or choose a model with a larger window")))
    return problems
