"""Reading a judge's JSON reply, and refusing one that does not hold up.

A reply is valid when it contains one JSON object (bare or in a ``` fence)
with, for every criterion of the rubric, a whole-number `score` inside the
criterion's range and a non-empty `justification`, and a quote that appears
in the response: the `quote` field, or else a passage in quotation marks in
the justification. Quotes are compared case-insensitively with whitespace,
quotation marks and dashes normalised; an ellipsis may join several pieces,
each of which must appear. Anything else raises `InvalidReply` with the
reason, which the next attempt is told.

A reply that parses but whose quote is not in the response raises `QuoteRefused` (a `RefusedReply`: counted
as refused, not unparsed). Its reason says which text the quote must come from and, when the quote is found
in another text the judge was shown (the rubric, the scenario, the outcome), names that text: the corrective
retry is told "the quote must be copied from the RECOMMENDATION ...; it is text of the rubric".
"""

from __future__ import annotations

import json
import re

from workbench.rubrics import Rubric
from workbench.structured.passages import MIN_QUOTE
from workbench.structured.reading import InvalidReply, RefusedReply, repaired  # InvalidReply: every parser imports it from here


class QuoteRefused(RefusedReply):
    """The verdict parsed, but a criterion's quote is not in the response (issue 25 item 7)."""

    def __init__(self, message: str, *, criterion: str, quote: str, source: str | None):
        super().__init__(message)
        self.criterion, self.quote, self.source = criterion, quote, source


def extract_json(text: str) -> dict:
    """The first JSON object in a reply (fenced or bare). A reply that is not the object alone is repaired."""
    if not text or not text.strip():
        raise InvalidReply("the reply was empty")
    try:
        whole = json.loads(text)
    except ValueError:
        whole = None
    if isinstance(whole, dict):
        return whole
    fence = re.search(r"```(?:json)?\s*(\{.*?\})\s*```", text, re.DOTALL)
    candidates = [fence.group(1)] if fence else []
    start = text.find("{")
    if start >= 0:
        candidates.append(text[start:])
    decoder = json.JSONDecoder()
    for candidate in candidates:
        try:
            obj, _ = decoder.raw_decode(candidate)
        except ValueError:
            continue
        if isinstance(obj, dict):
            repaired("the JSON object was in a ``` fence" if fence and candidate == fence.group(1)
                     else "the JSON object had other text around it")
            return obj
    raise InvalidReply("the reply contained no valid JSON object")


def normalise(text: str) -> str:
    text = (text or "").lower()
    text = re.sub(r"[“”«»„\"]", "", text)
    text = re.sub(r"[‘’`]", "'", text)
    text = re.sub(r"[–—‐-]", "-", text)
    text = re.sub(r"[*_]", "", text)
    return " ".join(text.split())


def quote_found(quote: str, response: str) -> bool:
    """The quote is the response's words: normalised, and its pieces around an ellipsis found in their order
    (pieces found out of order would stitch a sentence the response never wrote)."""
    haystack = normalise(response)
    pieces = [normalise(p).strip(" .,;:'") for p in re.split(r"\.\.\.|…|\[\.\.\.\]", quote or "")]
    pieces = [p for p in pieces if p]
    if not pieces or sum(len(p) for p in pieces) < MIN_QUOTE:
        return False
    at = 0
    for p in pieces:
        at = haystack.find(p, at)
        if at < 0:
            return False
        at += len(p)
    return True


def quoted_passages(justification: str) -> list[str]:
    return [m for group in re.findall(r'"([^"]+)"|“([^”]+)”|\'([^\']{4,})\'', justification or "")
            for m in group if m]


def parse_score(value, lo: int, hi: int, where: str) -> int:
    if isinstance(value, str) and re.fullmatch(r"\s*-?\d+\s*", value):
        repaired(f"{where}: the score was a string")
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (
            isinstance(value, float) and not value.is_integer()):
        raise InvalidReply(f"{where}: score must be a whole number from {lo} to {hi}, got {value!r}")
    if not lo <= value <= hi:
        raise InvalidReply(f"{where}: score {int(value)} is outside {lo}-{hi}")
    return int(value)


def quote_refusal(criterion: str, candidates: list[str], elsewhere: dict[str, str] | None, *,
                  what: str = "quote") -> QuoteRefused:
    """Why a quote is refused: it must be the response's text, and where it came from if known. `criterion`
    names what holds the quote (a criterion, or an adversarial stage's "weakness W1"); `what`, its field."""
    quote = candidates[0] if candidates else ""
    if not quote:
        return QuoteRefused(f"{criterion}: the {what} is missing; it must be a passage copied word for word from "
                            "the RECOMMENDATION (the response)", criterion=criterion, quote="", source=None)
    source = next((name for name, text in (elsewhere or {}).items()
                   if any(quote_found(q, text) for q in candidates)), None)
    where = f"; it is text of the {source}, not of the response" if source else ""
    return QuoteRefused(f"{criterion}: the {what} must be copied from the RECOMMENDATION (the response); "
                        f"{quote[:80]!r} was not found there{where}", criterion=criterion, quote=quote, source=source)


def parse_verdict(text: str, rubric: Rubric, response: str, elsewhere: dict[str, str] | None = None
                  ) -> dict[str, dict]:
    """criterion id -> {score, justification, quote} (plus "_procedure" when given).

    `elsewhere`: the other texts the judge was shown, by name ("rubric", "scenario", "outcome"), so that a
    refused quote's reason can say where it was copied from."""
    obj = extract_json(text)
    if "scores" in obj and isinstance(obj["scores"], dict) and not any(c.id in obj for c in rubric.criteria):
        repaired('the criteria were under "scores"')
        obj = {**obj["scores"], **{k: v for k, v in obj.items() if k != "scores"}}
    out: dict[str, dict] = {}
    for c in rubric.criteria:
        entry = obj.get(c.id)
        if not isinstance(entry, dict):
            raise InvalidReply(f"criterion '{c.id}' is missing (expected an object with score, quote and "
                               "justification)")
        score = parse_score(entry.get("score"), c.min, c.max, c.id)
        justification = entry.get("justification")
        if not isinstance(justification, str) or not justification.strip():
            raise InvalidReply(f"{c.id}: the justification is missing")
        quote = entry.get("quote")
        candidates = [quote] if isinstance(quote, str) and quote.strip() else quoted_passages(justification)
        found = next((q for q in candidates if quote_found(q, response)), None)
        if found is None:
            raise quote_refusal(c.id, candidates, elsewhere)
        if found is not quote:
            repaired(f"{c.id}: the quote was taken from the justification")
        out[c.id] = {"score": score, "justification": justification.strip(), "quote": found}
    if isinstance(obj.get("procedure"), list):
        out["_procedure"] = {"notes": [str(x) for x in obj["procedure"]]}
    return out
