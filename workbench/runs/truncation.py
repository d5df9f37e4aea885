"""A reply cut at max_tokens (the provider's finish_reason "length") and what a study makes of it; a reply
cut by the context window instead (`cut_by`) is marked apart and never continued.

The study's `[model] on_truncation` chooses (frozen with the study):

- "keep" (default): the cut reply stands, marked truncated on its turn, the run and, when the final output
  ends in it, the output (raters then read workbench/blinding/cut_off.py's mark at its end, as the response itself would show).
- "fail": the run fails, naming the turn and its max_tokens.
- "continue": the model is asked to go on from where it stopped, one logged turn per continuation (through
  the same `ctx.turn` path: resumable, replayable, counted), at most MAX_CONTINUATIONS times; the parts are
  joined. A reply still cut after the last continuation is kept, marked truncated.
"""

from __future__ import annotations

from workbench.gateway.api import GatewayError

LENGTH = "length"               # the finish reason of a reply cut at max_tokens
MAX_CONTINUATIONS = 3           # continuation turns per cut turn under on_truncation = "continue"
CUT_NOTE = " (the reply was cut off at max_tokens)"   # added to a parser's reason when its reply was cut
CONTINUE_PROMPT = ("Your previous reply was cut off by the length limit. Continue exactly where it stopped, "
                   "without repeating anything and without any preamble.")


def room_to_copy(settings, source: str, *, overhead: int = 256):
    """Settings for a step that copies text into its reply (a report's sentences, quotes from a transcript):
    room for the whole source (about three characters a token) plus the JSON around it, never less than the
    settings' own max_tokens. Without it such a step inherits a debate turn's 256 tokens and is cut mid-copy,
    and its parser can only say "not a JSON object"."""
    from dataclasses import replace

    return replace(settings, max_tokens=max(int(settings.max_tokens), len(source) // 3 + overhead))


class TruncatedReply(GatewayError):
    """A reply cut at max_tokens under on_truncation = "fail": the run fails with this message."""


def is_cut(finish_reason: str | None) -> bool:
    return finish_reason == LENGTH


WINDOW = "window"         # what cut a reply: the context window (the prompt left less room than max_tokens)
MAX_TOKENS = "max_tokens"  # ... or the study's max_tokens


def cut_by(finish_reason: str | None, output_tokens: int | None, max_tokens: int | None) -> str | None:
    """What cut a reply, or None if it was not cut. A server that stops at its context window reports the same
    "length" as one that stops at max_tokens (llama-cpp-python shrinks max_tokens to the room the prompt
    leaves); a cut reply with fewer tokens than max_tokens was cut by the window. Continuing it cannot help:
    the prompt only grows."""
    if not is_cut(finish_reason):
        return None
    if output_tokens is not None and max_tokens and output_tokens < max_tokens:
        return WINDOW
    return MAX_TOKENS


def window_cut_message(turn: str, agent: str, output_tokens: int | None, input_tokens: int | None,
                       max_tokens: int | None) -> str:
    return (f"the reply of {agent or 'a turn'} ({turn}) was cut by the model's context window after "
            f"{output_tokens} tokens ({input_tokens} prompt tokens left no room for max_tokens = {max_tokens}): "
            "start the server with a larger context (llama-cpp-python --n_ctx, llama.cpp -c), use fewer "
            "rounds or a smaller max_tokens")


def cut_message(turn: str, agent: str, max_tokens: int | None) -> str:
    limit = f"max_tokens = {max_tokens}" if max_tokens else "max_tokens"
    return (f"the reply of {agent or 'a turn'} ({turn}) was cut off at {limit} "
            f"(finish_reason \"length\"); the study's on_truncation = \"fail\"")


def output_truncated(text: str, cut_texts: list[str]) -> bool:
    """Whether a final output ends where a cut reply ended: the output's text finishes with the tail of a
    turn that stayed cut. Programs return text built from their turns' replies (the final answer, or a
    synthesis), so the end of a cut reply at the end of the output means the reader meets the cut."""
    end = text.rstrip()
    for cut in cut_texts:
        tail = cut.rstrip()[-200:]
        if tail and end.endswith(tail):
            return True
    return False
