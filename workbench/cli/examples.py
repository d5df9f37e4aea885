"""Help that teaches (issue 15): each batch command's --help ends with one or two examples to copy.

`examples(...)` gives the `add_parser` keywords: the epilog and a formatter that wraps the description
as argparse always does but prints the examples line for line.
"""

from __future__ import annotations

import argparse


class ExamplesFormatter(argparse.HelpFormatter):
    """Wraps descriptions; leaves an epilog that starts with "example" exactly as written."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if text.startswith("example"):
            return text
        return super()._fill_text(text, width, indent)


def examples(*commands: str) -> dict:
    """`add_parser(..., **examples("workbench --batch …", …))`."""
    head = "example:" if len(commands) == 1 else "examples:"
    return {"epilog": "\n".join([head, *(f"  {c}" for c in commands)]), "formatter_class": ExamplesFormatter}
