"""Rendered tables: final strings that the CLI prints as text, reports as Markdown and screens as DataTables.

A protocol's analysis turns its results into :class:`RenderedTable` objects whose cells are final
strings, so that every place that shows a number shows the same characters. Each table may carry
drill-down references per cell (`refs`) that a screen follows to the items and scores behind a number.

Number format: 2 decimals (3 for p-values and calibration errors), CI as "[low, high]"; an undefined
statistic prints "undefined" and its reason goes to the table's notes (:class:`Notes`); a mean without
CI prints "(no CI)" with the reason in the notes, or, under the minimum number of units for a bootstrap
CI (`descriptive.MIN_BOOTSTRAP_UNITS`), "(n too small: <the values>)".
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .descriptive import is_too_small
from .estimate import Estimate

FORCED_TAG = "[FORCED UNBLINDING]"  # every table of a study unblinded by force carries it
DASH = "-"


@dataclass(frozen=True)
class DrillRef:
    """Where a number came from: a kind and its arguments, which the protocol's drill-down reads."""

    kind: str
    args: tuple[Any, ...] = ()


@dataclass
class RenderedTable:
    id: str
    title: str
    columns: list[str]
    rows: list[list[str]]
    notes: list[str] = field(default_factory=list)
    refs: dict[tuple[int, int], DrillRef] = field(default_factory=dict)
    rule_before: set[int] = field(default_factory=set)

    def ref(self, row: int, col: int) -> DrillRef | None:
        """The cell's own reference, else the row's first (the row label leads to the whole row)."""
        if (row, col) in self.refs:
            return self.refs[(row, col)]
        for c in range(len(self.columns)):
            if (row, c) in self.refs:
                return self.refs[(row, c)]
        return None


def block_id(table_id: str, block: int) -> str:
    """A table repeated once per evaluator: the first (primary) block keeps its id (table1 ...), the next
    blocks' get -e2, -e3 ..."""
    return table_id if block == 0 else f"{table_id}-e{block + 1}"


def base_id(table_id: str) -> str:
    """table1-e2 -> table1: which table a block's table is (a screen files it by this)."""
    head, sep, tail = table_id.rpartition("-e")
    return head if sep and tail.isdigit() else table_id


# --- numbers -------------------------------------------------------------------------------------------

def fmt_num(x: float | None, digits: int = 2) -> str:
    if x is None:
        return DASH
    s = f"{x:.{digits}f}"
    if s.startswith("-") and float(s) == 0:
        s = s[1:]
    return s


def too_small_text(e: Estimate, digits: int = 2) -> str:
    """"n too small: 1.00, 2.00" (one sample), "n too small: 1.00, 2.00 vs 0.00" (two) or "n too small:
    differences 1.00, -1.00" (pairs): the values a CI would have been bootstrapped from."""
    def values(key: str) -> str:
        return ", ".join(fmt_num(v, digits) for v in e.details.get(key) or [])

    if "values_x" in e.details:
        return f"n too small: {values('values_x')} vs {values('values_y')}"
    if "differences" in e.details:
        return f"n too small: differences {values('differences')}"
    return f"n too small: {values('values')}" if e.details.get("values") else "n too small"


def fmt_ci(e: Estimate, digits: int = 2) -> str:
    if not e.defined:
        return DASH
    if not e.has_ci:
        return too_small_text(e, digits) if is_too_small(e.ci_undefined_reason) else DASH
    return f"[{fmt_num(e.ci_low, digits)}, {fmt_num(e.ci_high, digits)}]"


def fmt_est(e: Estimate | None, digits: int = 2, *, ci: bool = True) -> str:
    if e is None:
        return DASH
    if not e.defined:
        return "undefined"
    text = fmt_num(e.value, digits)
    if ci:
        if e.has_ci:
            text += f" {fmt_ci(e, digits)}"
        elif is_too_small(e.ci_undefined_reason):
            text += f" ({too_small_text(e, digits)})"
        else:
            text += " (no CI)"
    return text


def fmt_p(p: float | None) -> str:
    if p is None:
        return DASH
    return "<0.001" if p < 0.001 else f"{p:.3f}"


class Notes:
    """Collects the reasons behind "undefined" and "(no CI)" cells: one line per reason, naming every cell."""

    def __init__(self) -> None:
        self._by_reason: dict[str, list[str]] = {}

    def add(self, where: str, e: Estimate | None) -> None:
        if e is None:
            return
        if not e.defined:
            reason = f"undefined ({e.undefined_reason})"
        elif not e.has_ci and e.ci_undefined_reason:
            reason = f"no CI ({e.ci_undefined_reason})"
        else:
            return
        cells = self._by_reason.setdefault(reason, [])
        if where not in cells:
            cells.append(where)

    @property
    def lines(self) -> list[str]:
        return [f"{'; '.join(cells)}: {reason}" for reason, cells in self._by_reason.items()]


# --- output formats -----------------------------------------------------------------------------------

def _md_cell(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


def to_markdown(table: RenderedTable, *, heading: str = "###") -> str:
    lines = [f"{heading} {table.title}", ""]
    if table.rows:
        lines.append("| " + " | ".join(_md_cell(c) for c in table.columns) + " |")
        lines.append("|" + "|".join("---" for _ in table.columns) + "|")
        for i, row in enumerate(table.rows):
            if i in table.rule_before:
                lines.append("| " + " | ".join("" for _ in table.columns) + " |")
            lines.append("| " + " | ".join(_md_cell(c) for c in row) + " |")
    else:
        lines.append("_No data yet._")
    if table.notes:
        lines.append("")
        lines.extend(f"- {n}" for n in table.notes)
    return "\n".join(lines) + "\n"


def to_text(table: RenderedTable, *, max_width: int = 60) -> str:
    def clip(s: str) -> str:
        return s if len(s) <= max_width else s[:max_width - 1] + "~"

    rows = [[c if i == 0 else clip(c) for i, c in enumerate(r)] for r in table.rows]  # a row's label stays whole
    widths = [max([len(c)] + [len(r[i]) for r in rows]) for i, c in enumerate(table.columns)]
    line = "  ".join(c.ljust(w) for c, w in zip(table.columns, widths))
    out = [table.title, "=" * len(table.title), line, "-" * len(line)]
    for i, r in enumerate(rows):
        if i in table.rule_before:
            out.append("-" * len(line))
        out.append("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
    if not rows:
        out.append("(no data yet)")
    for n in table.notes:
        out.append(f"  * {n}")
    return "\n".join(out) + "\n"


def tables_text(tables: Iterable[RenderedTable]) -> str:
    return "\n".join(to_text(t) for t in tables)


def table_numbers(tables: Sequence[RenderedTable]) -> dict[str, list[list[str]]]:
    """table id -> its cells: what the equality test between report and screen compares."""
    return {t.id: [list(r) for r in t.rows] for t in tables}
