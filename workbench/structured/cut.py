"""A structured reply cut at max_tokens (finish reason "length") that did not parse: the one rule for what its
retry changes (issue 40).

The judges (`workbench/judges/calls.py`) and every structured step inside runs (`RunContext.mend_cut`: hindsight's
report-shape and perspective extractions and P1's topology extraction and comparison, faultline's belief graphs,
QBAF maps, crux cards, claims and stances, M11's stages, DQ-3, calibration's judge) ask such a reply again with `CUT_GROWTH` times its max_tokens, no more than the model's window leaves
after the prompt: the same request would only be cut again. Where no larger budget fits, a caller asks less per
call where its protocol allows (a judge: one criterion a call) or keeps the reply, counted as cut. The cut reply's
reading is recorded naming the change (`asked_again`), so `metrics`, the report and the run's counts say it.
"""

from __future__ import annotations

from dataclasses import replace

from workbench.structured.reading import Reading

# The retry of a cut reply has this many times the tokens, within the model's window (the project's choice: two
# doublings, from the default 1,024, reach a 4,096-token window's usual room).
CUT_GROWTH = 2
# Tokens kept free in the window besides the prompt and the reply (a chat template's few extra tokens).
WINDOW_MARGIN = 16
ASKED_AGAIN = "asked again with max_tokens"   # how a cut reply's recorded reading names its retry's change


def larger_budget(settings, prompt_tokens: int | None) -> int | None:
    """The max_tokens for the retry of a reply cut at `settings.max_tokens`: `CUT_GROWTH` times as many, no more
    than the model's window leaves after the prompt (when the window is known); None when that is no more
    than now, or when the call set no max_tokens."""
    from workbench.gateway.context_window import window_of

    current = int(settings.max_tokens or 0)
    if not current:  # no max_tokens asked: the server's own limit cut it, which a larger budget cannot name
        return None
    larger = max(current * CUT_GROWTH, current + 1)
    window = window_of(settings, ask_server=False)
    if window is not None and prompt_tokens:
        larger = min(larger, window.tokens - int(prompt_tokens) - WINDOW_MARGIN)
    return larger if larger > current else None


def asked_again(reading: Reading, before: int | None, after: int) -> Reading:
    """The cut reply's reading, naming the change its retry was asked with."""
    return replace(reading, detail=f"{reading.detail}; {ASKED_AGAIN} {after} (was {before})")


def within(max_tokens: int) -> str:
    """What the retry of a cut reply is told, after the reason its reply was refused."""
    return f"; your reply must be complete within {max_tokens} tokens: keep it short"
