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

# A heading line: optional markdown decoration (#, *, _, >), the word, a colon possibly inside the bold.
_HEADING = re.compile(
    r"^[ \t>#*_]*(RECOMMENDATION|REASONING|RISKS|CONFIDENCE)[ \t*_]*:[ \t*_]*(.*)$",
    re.IGNORECASE | re.MULTILINE,
)
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")


def parse_report(text: str) -> dict:
    """The four report fields from a final text; `missing` lists the headings not found.

    The last RECOMMENDATION heading starts the report (earlier ones may be quoted
    drafts); the other headings are read after it.
    """
    matches = list(_HEADING.finditer(text or ""))
    starts = [i for i, m in enumerate(matches) if m.group(1).lower() == "recommendation"]
    report: dict = {"recommendation": "", "reasoning": "", "risks": [], "confidence": "", "missing": []}
    if not starts:
        report["missing"] = list(REPORT_KEYS)
        return report
    tail = matches[starts[-1]:]
    found: dict[str, str] = {}
    for i, m in enumerate(tail):
        key = m.group(1).lower()
        if key in found:  # a repeated heading ends the report
            break
        end = tail[i + 1].start() if i + 1 < len(tail) else len(text)
        body = (m.group(2) + text[m.end():end]).strip()
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
    lines = [ln for ln in body.splitlines() if ln.strip()]
    bullets = [_BULLET.sub("", ln).strip() for ln in lines if _BULLET.match(ln)]
    if bullets:
        return [_clean(b) for b in bullets if _clean(b)]
    return [_clean(ln) for ln in lines if _clean(ln)]


def _clean(value: str) -> str:
    return value.strip().strip("*_").strip()
