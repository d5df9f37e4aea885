"""B3 reader: markdown tables: a view per row under a perspective column, or per column under an attribute
corner.
"""

from __future__ import annotations

import re

from workbench.protocols.hindsight.architectures.lines import Section
from workbench.protocols.hindsight.architectures.perspectives.lists import led_as_views
from workbench.protocols.hindsight.architectures.perspectives.titles import (
    NOT_A_VIEW, STOP, clean_title, synth_title,
)


TABLE_ROW = re.compile(r"^[ \t]*\|(.*)\|[ \t]*$")
_TABLE_RULE = re.compile(r"^[ \t]*\|?[ \t:|\-]+\|?[ \t]*$")
_TABLE_HEAD = re.compile(r"^(?:perspective|viewpoint|view|lens|angle|stakeholder|standpoint|vantage|role|who|party|"
                         r"parties|actor|persona|voice|seat|discipline|function|team|department|expert|advisor|hat)s?\b",
                         re.IGNORECASE)


# a table's last row that sums the views: "Weighted total", "Total", "Average score"
_TOTAL = re.compile(r"(?:(?:weighted|grand|overall|net)[ \t]+)?(?:sub)?(?:total|sum|average|mean)(?:[ \t]+(?:score|"
                    r"rating|points))?", re.IGNORECASE)


def table_starts(lines: list[str]) -> list[tuple[int, str, str]]:
    """Rows of the first markdown table whose first column holds the perspectives."""
    for i in range(len(lines) - 1):
        head = TABLE_ROW.match(lines[i])
        if not (head and _TABLE_RULE.match(lines[i + 1]) and "-" in lines[i + 1]):
            continue
        header = [clean_title(c) for c in head.group(1).split("|")]
        # a row number's column before the perspective's (`| # | Perspective | ... |`) names nothing
        key = 1 if len(header) > 2 and re.fullmatch(r"#|no\.?|n[or]?|", header[0], re.IGNORECASE) \
            and _TABLE_HEAD.match(header[1]) else 0
        if not _TABLE_HEAD.match(header[key]):
            # a table of options or costs is not of perspectives; one with an empty or attribute corner whose lead-in
            # names views ("a side-by-side comparison of three perspectives") has a view per column
            return _table_columns(lines, i, header)
        out = []
        for j in range(i + 2, len(lines)):
            row = TABLE_ROW.match(lines[j])
            if not row:
                break
            cells = [c.strip() for c in row.group(1).split("|")][key:]
            title = clean_title(cells[0])
            if synth_title(title) or STOP.match(title) or _TOTAL.fullmatch(title.strip("*_ ")):
                continue  # (a row that adds the others up is no view)
            out.append((j, title, " ".join(c for c in cells[1:] if c)))
        return out
    return []


_CORNER = re.compile(r"(?:|aspect|dimension|criteri(?:on|a)|question|factor|attribute|topic|issue|concern|lens|"
                     r"perspective ?(?:→|->)?)", re.IGNORECASE)


def _table_columns(lines: list[str], i: int, header: list[str]) -> list[tuple[int, str, str]]:
    """The columns of a table as perspectives (title: its header; text: its cells), where its corner is empty or names
    an attribute, its lead-in names views, and no column is headed as an option, a cost or a risk."""
    titles = header[1:]
    if not (_CORNER.fullmatch(header[0]) and len(titles) >= 2 and led_as_views(lines, i)) \
            or any(not t or NOT_A_VIEW.fullmatch(t) for t in titles):
        return []
    rows = []
    for j in range(i + 2, len(lines)):
        row = TABLE_ROW.match(lines[j])
        if not row:
            break
        rows.append([c.strip() for c in row.group(1).split("|")])
    return [(i, title, " ".join(r[k + 1] for r in rows if len(r) > k + 1 and r[k + 1])) for k, title in enumerate(titles)]


def table_sections(lines: list[str], starts: list[tuple[int, str, str]]) -> list[Section]:
    return [Section(n, title, rest or title) for n, (_, title, rest) in enumerate(starts, start=1)]
