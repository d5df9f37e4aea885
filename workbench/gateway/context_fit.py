"""Does a prompt fit its model's context window? The one rule for the conditions' programs and the judges.

A `PromptSize` is the largest prompt one program (a condition's, or a judge's) sends one model, estimated
twice: with the text that grows as short as it can be (the replies a committee carries forward; the
response a judge scores, before any exists) and as long as `max_tokens` lets it grow. `misfits` holds each
against the model's window (`context_window.window_of`), plus the call's own `max_tokens`: the short one
not fitting refuses the study (or the judging), the long one only warns. The sizes come from
`workbench/runs/dry_run.py` (conditions) and `workbench/judges/context_fit.py` (judges); the checks from
`workbench/studies/context_check.py` (`study create`, `run`) and `workbench.judges.run` (`judge`). It lives
here, below both, so that neither stands on the other.
"""

from __future__ import annotations

from dataclasses import dataclass

from workbench.gateway.api import ModelSettings
from workbench.gateway.context_window import Window, fixes, window_of

# How a judge's prompt is made shorter (a condition's: `fixes`' default, fewer rounds or a shorter program).
JUDGE_SHORTER = "one criterion a call (`judge --per-criterion`, direct pipeline) or a shorter rubric"


@dataclass(frozen=True)
class PromptSize:
    """The largest prompt one condition (or one judge: `judge` set) sends one model."""

    settings: ModelSettings
    condition: str
    turn: str
    short_replies: int      # estimated prompt tokens with replies of a few tokens (a judge: responses as read)
    full_replies: int       # ... with every earlier reply as long as max_tokens
    judge: str = ""         # the judge whose prompt this is ("" for a condition's program)

    @property
    def endpoint(self) -> tuple[str, str]:
        return self.settings.model, self.settings.api_base or ""


@dataclass(frozen=True)
class Misfit:
    size: PromptSize
    window: Window
    refused: bool

    def message(self) -> str:
        s, mt = self.size.settings, self.size.settings.max_tokens
        where = f" at {s.api_base}" if s.api_base else ""
        prompt = self.size.short_replies if self.refused else self.size.full_replies
        judge = self.size.judge
        grows = "the responses it scores and its debate" if judge else "the replies"
        what = "cannot fit" if self.refused else f"may not fit once {grows} run to max_tokens"
        who = f"judge {judge}" if judge else f"condition {self.size.condition}"
        fix = fixes(s, prompt + mt, JUDGE_SHORTER) if judge else fixes(s, prompt + mt)
        return (f"{s.model}{where}: {who}'s largest prompt ({self.size.turn}) {what}: "
                f"about {prompt:,} prompt tokens + max_tokens {mt:,} = {prompt + mt:,}, more than the context "
                f"window of {self.window.text()}. Fix: {fix}")


def misfits(sizes: list[PromptSize], *, ask_server: bool = True) -> list[Misfit]:
    """Per endpoint and condition (or judge), its worst prompt against the window: refused, or a warning."""
    groups: dict[tuple, list[PromptSize]] = {}
    for size in sizes:
        groups.setdefault((size.endpoint, size.condition, size.judge), []).append(size)
    out = []
    windows: dict[tuple[str, str], Window | None] = {}
    for (endpoint, _, _), group in groups.items():
        # each prompt with its own reply's room: a step with a larger max_tokens (a belief graph) may need most
        shortest = max(group, key=lambda z: z.short_replies + z.settings.max_tokens)
        longest = max(group, key=lambda z: z.full_replies + z.settings.max_tokens)
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
