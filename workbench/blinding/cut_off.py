"""What a rater reads at the end of a response that was cut off at max_tokens (workbench/runs/truncation.py).

The mark is the same for every condition and is added after scrubbing: it tells the rater where the text
stops, as the response itself would show, and nothing about where it came from.
"""

from __future__ import annotations

CUT_OFF_MARK = "[the response was cut off here]"


def with_mark(text: str) -> str:
    return f"{text.rstrip()}\n\n{CUT_OFF_MARK}"
