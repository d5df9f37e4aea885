"""B3's perspectives by a copy-only extraction, for a reply whose layout the parser cannot read (issue 30).

Where the model decodes by schema, one more logged call (like the report-shape
extraction, extraction.py) is asked to copy each perspective's sentences out of
the reply; the schema lists the reply's own passages, so a server that decodes
by schema can only copy. Every copied sentence must then be found in the reply
(whitespace aside): one that is not refuses the whole split, as do fewer than
two perspectives. A refused or unreadable split leaves the reply unsplit
(flagged, never one perspective); one cut at max_tokens is asked once more with
more room (`extraction.copy_turn`). Counted under "perspective split".
"""

from __future__ import annotations

import re

from workbench.protocols.hindsight.architectures.lines import Section
from workbench.structured.passages import passages

STEP = "perspective split"


def split_schema(source: str) -> dict:
    found = passages(source)
    sentence = {"type": "string", "enum": found} if found else {"type": "string"}
    return {"name": "perspective_split", "schema": {
        "type": "object", "required": ["perspectives"],
        "properties": {"perspectives": {"type": "array", "minItems": 2, "maxItems": 8,
                                        "items": {"type": "array", "minItems": 1, "maxItems": 12,
                                                  "items": sentence}}}}}


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text or "").strip()


def read_split(source: str, reply: str) -> list[list[str]]:
    """The perspectives (each a list of copied sentences) of a split reply; InvalidReply says why not."""
    from workbench.judges.parse import InvalidReply, extract_json
    from workbench.structured.reading import RefusedReply

    data = extract_json(reply)
    groups = data.get("perspectives")
    if not isinstance(groups, list) or not all(isinstance(g, list) and all(isinstance(s, str) for s in g)
                                               for g in groups):
        raise InvalidReply("'perspectives' is not a list of lists of sentences")
    groups = [[s.strip() for s in g if s.strip()] for g in groups]
    groups = [g for g in groups if g]
    if len(groups) < 2:
        raise InvalidReply(f"{len(groups)} perspective(s) copied: a split needs two or more")
    haystack = _norm(source)
    added = [s for g in groups for s in g if _norm(s) not in haystack]
    if added:
        raise RefusedReply(f"{len(added)} sentence(s) are not in the response: the split may only copy")
    # a sentence is one perspective's: the same sentences copied into every group split nothing (a small real
    # model did exactly this with a prose reply: tests/fixtures/real_replies/b3-split-copies-the-same-sentences)
    owners: dict[str, int] = {}
    for g in groups:
        for s in {_norm(s) for s in g}:
            owners[s] = owners.get(s, 0) + 1
    shared = sum(1 for n in owners.values() if n > 1)
    if shared:
        raise RefusedReply(f"{shared} sentence(s) copied into more than one perspective: a split gives each "
                           "sentence to one perspective")
    return groups


async def split_by_extraction(ctx, text: str) -> tuple[list[Section], str]:
    """(sections, "") from the extraction, or ([], why not). Makes the call only where the model decodes by
    schema (the caller asks `worth_asking` first)."""
    from workbench.protocols.hindsight.architectures.extraction import copy_turn, extraction_settings
    from workbench.protocols.hindsight.architectures.prompts import EXTRACT_SYSTEM, SPLIT
    from workbench.runs.context import system, user

    _, _, reading = await copy_turn(ctx, "split", STEP, lambda r: read_split(text, r),
                                    [system(EXTRACT_SYSTEM), user(SPLIT.format(output=text.strip()))],
                                    phase="split", label="Extraction: copy each perspective's sentences",
                                    settings=extraction_settings(ctx.settings, text), schema=split_schema(text))
    if not reading.ok:
        return [], reading.detail
    return [Section(i, "", " ".join(g)) for i, g in enumerate(reading.value, start=1)], ""


def worth_asking(ctx) -> bool:
    """The split is asked only of a model that decodes by schema: elsewhere it could write its own text."""
    from workbench.gateway import decodes_by_schema

    return decodes_by_schema(ctx.settings)
