"""An overflow error: a prompt that does not fit the model's context window, and the window it names.

Read by the transport (which classifies the failure: never retried) and by `context_window.py` (which
learns the window from it: the error costs no generation).
"""

from __future__ import annotations

import re

# How servers name the window in an overflow error (OpenAI, llama-cpp-python, vLLM; llama.cpp's JSON error).
_WINDOW_PATTERNS = (
    re.compile(r"maximum context length is (\d+)"),
    re.compile(r"context window of (\d+)"),
    re.compile(r"context length of (\d+)", re.I),
    re.compile(r"\bn_ctx\"?\s*[:=]\s*(\d+)"),
    re.compile(r"context size \((\d+)\)"),
)
_OVERFLOW_WORDS = re.compile(r"context_length_exceeded|exceed[s]? (?:the )?(?:available )?context|"
                             r"maximum context length|context window|ContextWindowExceeded", re.I)


def window_in_message(message: str) -> int | None:
    """The window an overflow error names, or None."""
    for pattern in _WINDOW_PATTERNS:
        m = pattern.search(message or "")
        if m:
            return int(m.group(1))
    return None


def is_overflow(message: str) -> bool:
    return bool(_OVERFLOW_WORDS.search(message or ""))
