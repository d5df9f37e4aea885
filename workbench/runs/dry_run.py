"""A dry run of a study's programs, to measure their prompts before any call (issue 34).

Each condition's program runs once, on its largest item, through a real `RunContext` whose gateway sends
nothing: it notes every prompt's size and answers with a stand-in reply of a chosen length, shaped by the
protocol (`StudyProtocol.dry_run_reply`) so that its parsers read it as a reply that takes the program down its
longest path (a committee's seconded motions, amendments and every debate round). Run twice, with
replies of a few tokens and with replies as long as each call's max_tokens, it gives what
`workbench/studies/context_check.py` holds against the model's context window: the prompts themselves, and
the most a deliberation can carry forward. A program that still stops early on a stand-in it cannot parse has
measured what it reached (its retries, which append the reply and the reason, are measured too). A program that
reads what a step before its runs made (faultline's belief graphs, built before the freeze) is given it by
`StudyProtocol.dry_run_item`, made through the same stand-ins, so that step's prompts are measured too.
"""

from __future__ import annotations

import asyncio
import json

from workbench.events import NullSink
from workbench.gateway.api import CallRequest, CallResult
from workbench.gateway.limits import estimate_tokens
from workbench.runs.context import RunContext
from workbench.runs.settings import run_settings
from workbench.studies.context_check import PromptSize
from workbench.studies.items import run_item

SHORT_REPLY = 8         # tokens of a short stand-in reply
STAND_IN = "lorem ipsum dolor sit amet consectetur adipiscing elit "   # four characters a token, as estimated


class _MeasuringGateway:
    """Answers every call at once with a stand-in, noting the prompt it was sent."""

    def __init__(self, full: bool, shape=None) -> None:
        self.full = full
        self.shape = shape or (lambda request, padding: None)  # the protocol's stand-in around the padding
        self.prompts: list[tuple[CallRequest, int]] = []

    async def call(self, request: CallRequest, sink=None) -> CallResult:
        tokens = estimate_tokens(request.messages, 0)
        self.prompts.append((request, tokens))
        n = max(int(request.settings.max_tokens or 0), 1) if self.full else SHORT_REPLY
        padding = (STAND_IN * (4 * n // len(STAND_IN) + 1))[:4 * n]
        text = self.shape(request, padding) or padding
        return CallResult(text=text, finish_reason="stop", model=request.settings.model, input_tokens=tokens,
                          output_tokens=n)


def padding_pieces(padding: str, n: int) -> list[str]:
    """A stand-in's padding in `n` non-empty parts of about equal length: the free text of a structured stand-in
    with `n` fields (a graph's nodes, a critic's weaknesses), as long in all as the reply is measured to be."""
    step = max(len(padding) // n, 1)
    return [(padding[i * step:(i + 1) * step if i < n - 1 else None].strip() or "x") for i in range(n)]


def _largest_plans(db, protocol, study_id: str, definition: dict) -> list:
    """Per condition, the planned run on its largest item (by the item's text as the program gets it)."""
    best: dict[str, tuple[int, object]] = {}
    sizes: dict[str, int] = {}
    for plan in protocol.planned_runs(db, study_id, definition):
        if plan.item_id not in sizes:
            try:
                payload = run_item(db, protocol, study_id, plan.item_id)
            except KeyError:
                continue
            sizes[plan.item_id] = len(payload if isinstance(payload, str) else
                                      json.dumps(payload, ensure_ascii=False, default=str))
        if plan.condition not in best or sizes[plan.item_id] > best[plan.condition][0]:
            best[plan.condition] = (sizes[plan.item_id], plan)
    return [plan for _, plan in best.values()]


async def _measure(db, protocol, study_id: str, definition: dict, plan, full: bool) -> list[tuple]:
    gateway = _MeasuringGateway(full, protocol.dry_run_reply)
    ctx = RunContext(gateway=gateway, sink=NullSink(), settings=run_settings(protocol, definition, plan),
                     item=run_item(db, protocol, study_id, plan.item_id), options=protocol.run_options(definition),
                     study_id=study_id, run_id=None, case_id=plan.item_id, condition=plan.condition,
                     replicate=plan.replicate, draw=protocol.draw(plan), definition=definition)
    try:
        ctx.item = await protocol.dry_run_item(ctx)   # what a step before the runs would give it (belief graphs)
        await protocol.program(ctx)
    except Exception:  # a stand-in a parser refused, a check that needs a real reply: measured so far
        pass
    return gateway.prompts


def largest_prompts(db, study_id: str, definition: dict) -> list[PromptSize]:
    """Every call's prompt size of each condition's largest run, with short and with full replies."""
    return _run(measure_prompts(db, study_id, definition))


async def measure_prompts(db, study_id: str, definition: dict) -> list[PromptSize]:
    """`largest_prompts` on the running event loop (the runner's: the store stays on its thread)."""
    from workbench.protocol.registry import protocol_of

    protocol = protocol_of(definition)
    out = []
    for plan in _largest_plans(db, protocol, study_id, definition):
        short = await _measure(db, protocol, study_id, definition, plan, full=False)
        full = await _measure(db, protocol, study_id, definition, plan, full=True)
        full_by_turn = {(r.turn, r.agent, r.sample): t for r, t in full}
        for request, tokens in short:
            longest = full_by_turn.get((request.turn, request.agent, request.sample), tokens)
            where = f"{request.turn or 'a turn'}, item '{plan.item_id}'"
            out.append(PromptSize(request.settings, plan.condition, where, tokens, max(tokens, longest)))
        shorts = {(r.turn, r.agent, r.sample) for r, _ in short}
        out += [PromptSize(r.settings, plan.condition, r.turn or "a turn", 0, t)  # reached only with long replies
                for r, t in full if (r.turn, r.agent, r.sample) not in shorts]
    return out


def _run(coro):
    """The coroutine to its end: on this thread, or on a thread of its own when an event loop runs here."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    import concurrent.futures

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()
