"""The JSON schema of a judge's reply, sent with the request so that a server that decodes by schema
(llama.cpp, vLLM, the big APIs) can only return a reply of this shape (issue 19).

The quote is the response's own text, apart from the rubric: its schema lists the passages of the response
the judge saw (its sentences and lines), so a schema-constrained judge can only quote the response, never
the rubric or the case. A server that ignores schemas still gets the prompt's wording and the parser's
check (`parse.quote_found`), exactly as before.
"""

from __future__ import annotations

import re

from workbench.rubrics import Rubric
from workbench.structured.passages import MAX_PASSAGE, MIN_QUOTE, passages

MAX_JUSTIFICATION = 600    # characters: a justification that cannot run past max_tokens and cut the JSON
# Tokens one criterion's part of a reply takes as the prompt asks for it: its key, score and JSON (20), a short
# quote (30) and the one-sentence justification (40). `study create` warns of a judge whose max_tokens is below
# criteria x this (issue 40: a 200-token judge cut two of six three-criterion replies). The project's choice.
REPLY_TOKENS_PER_CRITERION = 90


def verdict_schema(rubric: Rubric, response: str) -> dict:
    """{"name", "schema"} for `CallRequest.response_schema`: one object per criterion id, each with its
    score in the criterion's range, a quote from the response, and a short justification."""
    quote: dict = {"type": "string", "minLength": MIN_QUOTE, "maxLength": MAX_PASSAGE}
    found = passages(response)
    if found:
        quote = {"type": "string", "enum": found}
    criteria = {
        c.id: {"type": "object",
               "properties": {"score": {"type": "integer", "enum": list(range(int(c.min), int(c.max) + 1))},
                              "quote": quote,
                              "justification": {"type": "string", "minLength": 1, "maxLength": MAX_JUSTIFICATION}},
               "required": ["score", "quote", "justification"]}
        for c in rubric.criteria}
    return {"name": f"verdict_{re.sub(r'[^A-Za-z0-9_]', '_', rubric.id)}",
            "schema": {"type": "object", "properties": criteria, "required": list(criteria)}}
