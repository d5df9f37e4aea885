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
    """The risks of a RISKS body: one per top-level bullet (a nested bullet or a wrapped line is part of the
    risk above it), or one per line where nothing is bulleted."""
    lines = body.splitlines()
    bullets = [ln for ln in lines if _BULLET.match(ln)]
    if not bullets:
        return [_clean(ln) for ln in lines if _clean(ln)]
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


def risks_unsure(report: dict, text: str) -> str:
    """Why a report's risks may be misread ("" when they read cleanly): no RISKS heading, several risks run
    together on one line, or unbulleted lines that wrap one sentence."""
    if "risks" in report["missing"]:
        return "no RISKS: heading"
    risks = report["risks"]
    if not risks:
        return "the RISKS heading lists nothing"
    if len(risks) == 1 and len(re.split(r";\s+|\s+\d\)\s+|\s+\(\w\)\s+", risks[0])) > 1:
        return "several risks appear to run together on one line"
    body = _section_body(text, "RISKS")
    if body is not None and not any(_BULLET.match(ln) for ln in body.splitlines()) and len(risks) > 1 and any(
            r[:1].islower() or not r.rstrip().endswith((".", "!", "?", ")")) for r in risks[1:]):
        return "unbulleted lines that may wrap one risk over several lines"
    return ""


def _section_body(text: str, key: str) -> str | None:
    matches = list(_HEADING.finditer(text or ""))
    for i, m in enumerate(matches):
        if m.group(1).upper() == key:
            end = matches[i + 1].start() if i + 1 < len(matches) else len(text)
            return (m.group(2) + text[m.end():end]).strip()
    return None


def _indent(line: str) -> int:
    return len(line.expandtabs(4)) - len(line.expandtabs(4).lstrip())


def _clean(value: str) -> str:
    return value.strip().strip("*_").strip()
