"""The judge's quote check as an instrument: is a judge's quote the response's own words?

`read quote FILE` takes a JSON object {"response": "...", "quote": "..."} and prints whether the check finds the
quote in the response (workbench.judges.parse.quote_found: case, typographic quotes and dashes, markdown emphasis
and spacing aside; pieces around an ellipsis in their order; at least MIN_QUOTE characters). A quote not found
is refused in judging and asked for again, so "found: false" is itself the flag.
"""

from __future__ import annotations

import json

from workbench.instruments.base import Instrument


def read_quote(text: str, options: dict) -> dict:
    from workbench.judges.parse import quote_found

    try:
        data = json.loads(text)
    except ValueError as e:
        raise ValueError(f"not JSON: {e}") from None
    if not isinstance(data, dict) or not all(isinstance(data.get(k), str) for k in ("response", "quote")):
        raise ValueError('a JSON object {"response": "...", "quote": "..."} is expected')
    found = quote_found(data["quote"], data["response"])
    return {"found": found, "flagged": not found,
            "reason": "" if found else "the quote is not the response's words: judging refuses it and asks again"}


INSTRUMENTS = [
    Instrument(name="quote", title="the judge's quote check (is the quote the response's own words?)",
               read=read_quote, agrees=lambda doc, truth: doc["found"] == truth["found"],
               describe=lambda doc: f"found: {'yes' if doc['found'] else 'no'}",
               input_help='JSON: {"response": "...", "quote": "..."}', example="quote.json", flag_can_agree=True),
]
