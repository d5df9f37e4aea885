"""The one final-report instruction every condition ends with, and parsing its answer.

Every architecture appends `REPORT_INSTRUCTION` unchanged to the prompt of its
final step, so all seven conditions are asked for the same shape: a
recommendation, reasoning, risks and a confidence. `parse_report` reads that
shape back; a heading the model left out is reported as missing, never filled in.
"""

from __future__ import annotations

import re

REPORT_INSTRUCTION = """\
End your answer with a final report in exactly this layout: the four headings below, in this \
order, each at the start of its own line.

RECOMMENDATION: the course of action you recommend, in one or two sentences.
REASONING: why, in one short paragraph.
RISKS: the risks to prepare for, one per line, each line starting with "- ".
CONFIDENCE: low, medium or high, then one sentence on what would change your assessment."""

REPORT_KEYS = ("recommendation", "reasoning", "risks", "confidence")

# A heading line: optional markdown decoration (#, *, _, >), the word, a colon possibly inside the bold; or,
# without a colon, the word alone on a markdown heading line ("### Risks") or in bold ("**Risks**").
_HEADING = re.compile(
    r"^(?:[ \t>#*_]*(RECOMMENDATION|REASONING|RISKS|CONFIDENCE)[ \t*_]*:[ \t*_]*(.*)"
    r"|[ \t>]*(?:#{1,6}[ \t]+|\*\*|__)(RECOMMENDATION|REASONING|RISKS|CONFIDENCE)(?:\*\*|__)?[ \t]*)$",
    re.IGNORECASE | re.MULTILINE,
)
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
# "RISKS: none" in the words a reply uses for no risk at all: a reading of zero risks, not an empty heading
_NONE = re.compile(r"^(?:none|nil|n/?a|no(?:ne)?\s+(?:significant|major|notable|material|real)?\s*(?:risks?)?)"
                   r"(?:\s+(?:significant|identified|foreseen|expected|to report))?[.!]?$", re.IGNORECASE)
# an enumeration inside one line: "(a) …, (b) …" or "1) … 2) …"
_INLINE_MARK = re.compile(r"(?:^|[\s,;]+(?:and\s+)?)(?:\(([a-z]|\d+)\)|(\d+)\))\s+", re.IGNORECASE)
_TABLE_RULE = re.compile(r"^\s*\|?[\s:|-]+\|?\s*$")


def _headings(text: str) -> list[tuple[str, str, int, int]]:
    """(key in lower case, the rest of its line, start, end) of every heading line, in order."""
    return [((m.group(1) or m.group(3)).lower(), m.group(2) or "", m.start(), m.end())
            for m in _HEADING.finditer(text or "")]


def parse_report(text: str) -> dict:
    """The four report fields from a final text; `missing` lists the headings not found.

    The last RECOMMENDATION heading starts the report (earlier ones may be quoted
    drafts); the other headings are read after it.
    """
    matches = _headings(text)
    starts = [i for i, (key, _, _, _) in enumerate(matches) if key == "recommendation"]
    report: dict = {"recommendation": "", "reasoning": "", "risks": [], "confidence": "", "missing": []}
    if not starts:
        report["missing"] = list(REPORT_KEYS)
        return report
    tail = matches[starts[-1]:]
    found: dict[str, str] = {}
    for i, (key, rest, _, end_of_line) in enumerate(tail):
        if key in found:  # a repeated heading ends the report
            break
        end = tail[i + 1][2] if i + 1 < len(tail) else len(text)
        body = (rest + text[end_of_line:end]).strip()
        found[key] = body
    for key in REPORT_KEYS:
        if key not in found:
            report["missing"].append(key)
            continue
        if key == "risks":
            report["risks"] = _risk_lines(found[key])
        else:
            report[key] = _clean(found[key])
    return report


def _risk_lines(body: str) -> list[str]:
    """The risks of a RISKS body: one per top-level bullet (a nested bullet or a wrapped line is part of the
    risk above it), one per row of a markdown table (its first cell), one per item of an enumeration inside a
    line ("(a) …, (b) …"), or one per line where nothing is bulleted; none where the body says there is none."""
    if _NONE.match(_clean(body)):
        return []
    lines = body.splitlines()
    rows = [ln for ln in lines if ln.strip().startswith("|")]
    if len(rows) >= 3 and _TABLE_RULE.match(rows[1]):
        cells = [[c.strip() for c in row.strip().strip("|").split("|")] for row in rows[2:]]
        return [_clean(c[0]) for c in cells if c and _clean(c[0])]
    bullets = [ln for ln in lines if _BULLET.match(ln)]
    if not bullets:
        return [item for ln in lines for item in _inline_items(_clean(ln))]
    top = min(_indent(ln) for ln in bullets)
    risks: list[str] = []
    joined = True  # a line right under a risk (no blank line between) or indented belongs to it
    for ln in lines:
        if not ln.strip():
            joined = False
            continue
        if _BULLET.match(ln) and _indent(ln) == top:
            risks.append(_BULLET.sub("", ln).strip())
            joined = True
        elif risks and (joined or _indent(ln) > top):
            risks[-1] += " " + _BULLET.sub("", ln).strip()
    return [_clean(r) for r in risks if _clean(r)]


def _inline_items(line: str) -> list[str]:
    """A line's items where it enumerates them with (a), (b) … or 1), 2) … from its start, or lists three or
    more with semicolons (two parts may be one risk and its consequence: left whole, and flagged); else the
    line."""
    marks = list(_INLINE_MARK.finditer(line))
    parts = [p.strip(" .") for p in line.split(";")]
    if len(marks) < 2 or marks[0].start() != 0:
        if len(parts) >= 3 and all(parts) and not any(re.search(r"[.!?]\s", p) for p in parts):
            return [_clean(p) for p in parts]
        return [line] if line else []
    ends = [m.start() for m in marks[1:]] + [len(line)]
    return [_clean(line[m.end():end].strip(" ,;.")) for m, end in zip(marks, ends) if line[m.end():end].strip()]


def risks_unsure(report: dict, text: str) -> str:
    """Why a report's risks may be misread ("" when they read cleanly): no RISKS heading, an empty one, several
    risks run together on one line (semicolons, or several sentences: one risk or several?), or unbulleted
    lines that wrap one sentence."""
    if "risks" in report["missing"]:
        return "no RISKS: heading"
    risks = report["risks"]
    body = _section_body(text, "risks") or ""
    if not risks:
        return "" if _NONE.match(_clean(body)) else "the RISKS heading lists nothing"
    if len(risks) == 1 and len(re.split(r";\s+|\s+\d\)\s+|\s+\(\w\)\s+", risks[0])) > 1:
        return "several risks appear to run together on one line"
    if len(risks) == 1 and len(re.split(r"(?<=[.!?])\s+(?=[A-Z])", risks[0])) > 1:
        return "several sentences under RISKS on one line: one risk or several"
    if len(risks) == 1 and _NEGATED.search(risks[0]):
        return "the one risk line may say there is none"
    if len(risks) == 1 and risks[0].count(", ") >= 2 and re.search(r",? (?:and|or) ", risks[0]):
        return "several risks may be listed in one sentence"
    if any(_BULLET.match(ln) for ln in body.splitlines()) and _prose_beside_bullets(body):
        return "prose beside the bulleted risks: a risk may stand outside the list"
    table = body.lstrip().startswith("|")
    lines = [ln for ln in body.splitlines() if ln.strip()]
    if not table and len(lines) > 1 and not any(_BULLET.match(ln) for ln in body.splitlines()) and len(risks) > 1 and any(
            r[:1].islower() or not r.rstrip().endswith((".", "!", "?", ")")) for r in risks[1:]):
        return "unbulleted lines that may wrap one risk over several lines"
    return ""


# "I don't foresee any major risks", "no real risk here", "there are no risks worth naming"
_NEGATED = re.compile(r"(?:\b(?:no|not|never|without|nothing)\b|n't\b).{0,40}\b(?:risks?|downsides?|dangers?)\b", re.IGNORECASE)


def _prose_beside_bullets(body: str) -> bool:
    """A paragraph of its own beside a bulleted list (not the list's lead-in ending with a colon): the list
    reading would drop it."""
    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", body) if p.strip()]
    return any(not any(_BULLET.match(ln) for ln in p.splitlines()) and not p.rstrip().endswith(":")
               for p in paragraphs)


def _section_body(text: str, key: str) -> str | None:
    matches = _headings(text)
    for i, (found, rest, _, end_of_line) in enumerate(matches):
        if found == key:
            end = matches[i + 1][2] if i + 1 < len(matches) else len(text)
            return (rest + text[end_of_line:end]).strip()
    return None


def _indent(line: str) -> int:
    return len(line.expandtabs(4)) - len(line.expandtabs(4).lstrip())


def _clean(value: str) -> str:
    return value.strip().strip("*_").strip()
