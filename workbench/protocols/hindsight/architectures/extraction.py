"""The report-shape extraction: every condition's output gets the common shape without the tool
altering the condition (seed 000 §V: each condition gets only the seed's prompts).

After a condition's final step, one more model call through the gateway (so it
is logged, replayed and resumed like any turn) is asked to *copy* the sentences
that state the recommendation, reasoning, risks and confidence. Each copied
sentence must then be found in the output itself (whitespace aside); one that is
not — a summary, a rewording, an invented risk — makes the whole extraction
refused: the report is left empty with the reason, never filled from the
reply. Raters and judges read the condition's own text, never the extraction.
A reply cut at max_tokens is asked once more with a larger max_tokens within the
window (`copy_turn`, by the rule of workbench/structured/cut.py).

Under `report_shape = "instruction"` (a pre-registered study option, the
project's earlier behaviour) there is no extraction call: the final step asks
for the four headings and `report.parse_report` reads them.
"""

from __future__ import annotations

import re

from workbench.protocols.hindsight.architectures.report import REPORT_INSTRUCTION, REPORT_KEYS, parse_report
from workbench.structured.passages import passages

SHAPES = ("extract", "instruction")
DEFAULT_SHAPE = "extract"
# A definition frozen before the option existed ran with the instruction: keep it that way on resume.
LEGACY_SHAPE = "instruction"
OPTION = "report_shape"  # the key run_options carries it under


def shape(options: dict) -> str:
    return options.get(OPTION, LEGACY_SHAPE)


def instruction(options: dict) -> str:
    """What a final step appends: nothing by default; the report instruction under "instruction"."""
    return f"\n\n{REPORT_INSTRUCTION}" if shape(options) == "instruction" else ""


def extra_calls(options: dict) -> int:
    return 1 if shape(options) == "extract" else 0


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text or "").strip()


def check_copied(source: str, extracted: dict) -> list[str]:
    """The extracted sentences that are not in `source` (whitespace-insensitive): [] when all are copies."""
    haystack = _norm(source)
    return [s for key in REPORT_KEYS for s in extracted.get(key, []) if _norm(s) not in haystack]


def extraction_schema(source: str) -> dict:
    """The reply's JSON schema: each field a list of sentences chosen from the output itself, so a model that
    decodes by schema can only copy (the check below still refuses anything that is not a copy)."""
    found = passages(source)
    sentence = {"type": "string", "enum": found} if found else {"type": "string"}
    return {"name": "report_shape", "schema": {
        "type": "object", "properties": {k: {"type": "array", "items": sentence, "maxItems": 8} for k in REPORT_KEYS},
        "required": list(REPORT_KEYS)}}


def extraction_settings(settings, source: str):
    """The extraction's own settings: temperature 0 and room to copy the whole output into JSON (about three
    characters a token, plus the JSON around it), never less than the condition's own max_tokens."""
    from dataclasses import replace

    from workbench.runs.truncation import room_to_copy

    return replace(room_to_copy(settings, source), temperature=0.0)


def read_reply(reply: str) -> tuple[dict | None, str]:
    """({field: [sentences]}, "") or (None, why the reply is unusable)."""
    from workbench.judges.parse import InvalidReply, extract_json
    from workbench.structured.reading import repaired

    try:
        data = extract_json(reply)
    except InvalidReply:
        return None, "the extraction reply is not a JSON object"
    out: dict[str, list[str]] = {}
    for key in REPORT_KEYS:
        value = data.get(key, [])
        if isinstance(value, str):
            repaired(f"'{key}' was one sentence, not a list")
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            return None, f"'{key}' is not a list of sentences"
        out[key] = [v.strip() for v in value if v.strip()]
        if len(out[key]) < len(value):
            repaired(f"'{key}' had empty sentences, dropped")
    unknown = sorted(set(data) - set(REPORT_KEYS))
    if unknown:
        return None, f"the reply has fields the extraction does not ask for: {', '.join(unknown)}"
    return out, ""


def _parse_or_refuse(reply: str) -> dict:
    from workbench.judges.parse import InvalidReply

    extracted, problem = read_reply(reply)
    if extracted is None:
        raise InvalidReply(problem)
    return extracted


def shaped_report(source: str, reply: str) -> dict:
    """The report from an extraction reply, or an empty one that says why it was refused."""
    extracted, problem = read_reply(reply)
    empty = {"recommendation": "", "reasoning": "", "risks": [], "confidence": "", "missing": list(REPORT_KEYS)}
    if extracted is None:
        return {**empty, "extraction": {"shape": "extract", "status": "unparsed", "reason": problem}}
    added = check_copied(source, extracted)
    if added:
        return {**empty, "extraction": {
            "shape": "extract", "status": "refused", "added": added,
            "reason": f"{len(added)} extracted sentence(s) are not in the output: the extraction may only copy"}}
    report = {"recommendation": " ".join(extracted["recommendation"]),
              "reasoning": " ".join(extracted["reasoning"]),
              "risks": list(extracted["risks"]),
              "confidence": " ".join(extracted["confidence"]),
              "missing": [k for k in REPORT_KEYS if not extracted[k]]}
    n = sum(len(v) for v in extracted.values())
    return {**report, "extraction": {"shape": "extract", "status": "ok", "sentences": n}}


async def copy_turn(ctx, turn: str, step: str, parse, messages: list[dict], *, phase: str, label: str, settings,
                    schema: dict | None, agent: str = "extractor", role: str = "extraction"):
    """One structured call (a copy-only extraction, P1's topology steps), its reply read by `parse` and counted
    under `step` (parsed, repaired, refused, cut, unparsed); a reply cut at max_tokens is asked once more, the same
    request with a larger max_tokens within the window (`RunContext.mend_cut`). Returns (the kept reply's turn id,
    reply, reading)."""
    reply = await ctx.turn(turn, agent, messages, phase=phase, label=label, role=role, settings=settings,
                           schema=schema)
    reading = ctx.read_reply(turn, step, parse, reply)
    mended = ctx.mend_cut(turn, step, reading, settings)
    if mended is None:
        return turn, reply, reading
    ctx.reject(turn, f"{reading.detail}; asked again with max_tokens {mended.max_tokens}")
    retry = f"{turn}:retry"
    reply = await ctx.turn(retry, agent, messages, phase=phase, label=label, role=role, settings=mended,
                           schema=schema)
    return retry, reply, ctx.read_reply(retry, step, parse, reply)


async def finish(ctx, text: str):
    """The condition's FinalOutput: its own text, and the report in the common shape."""
    from workbench.protocols.hindsight.architectures.prompts import EXTRACT, EXTRACT_SYSTEM
    from workbench.runs.context import RunOutput as FinalOutput
    from workbench.runs.context import system, user

    if shape(ctx.options) == "instruction":
        from workbench.protocols.hindsight.architectures.report import risks_unsure

        report = parse_report(text)
        unsure = risks_unsure(report, text) if "risks" not in report["missing"] else ""
        return FinalOutput(text=text, report={**report, "extraction": {
            "shape": "instruction", **({"risks_unsure": unsure} if unsure else {})}})
    turn, reply, _ = await copy_turn(ctx, "extract", "report extraction", _parse_or_refuse,
                                     [system(EXTRACT_SYSTEM), user(EXTRACT.format(output=text.strip()))],
                                     phase="extract", label="Extraction: copy the report sentences",
                                     settings=extraction_settings(ctx.settings, text), schema=extraction_schema(text))
    report = shaped_report(text, reply)
    if report["extraction"]["status"] == "unparsed" and ctx.was_cut(turn):  # say why the JSON broke off
        from workbench.runs.truncation import CUT_NOTE

        report["extraction"]["reason"] += CUT_NOTE
    ctx.emit("extraction", turn="extract", agent="extractor", **report["extraction"])
    return FinalOutput(text=text, report=report)
