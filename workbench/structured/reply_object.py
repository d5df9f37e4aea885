"""The one JSON object a structured reply holds, read as a careful human reads it (issue 41).

`judges.parse.extract_json` takes the first object it finds. Real replies are untidier: a model writes a draft
object and then a corrected one, echoes the prompt's example before its answer, quotes with single quotes (a
Python dict) or leaves a trailing comma. `reply_object` reads every object written at the top level of the
reply: one object (or the same object twice) is the answer; two different ones are refused (`InvalidReply`,
so the step asks again and counts the reply), never read by their order. Single quotes, Python's
True/False/None, trailing commas and // comments are mended and the mend noted (`repaired`); anything else that is not
JSON stays unread.
"""

from __future__ import annotations

import ast
import json
import re

from workbench.structured.reading import InvalidReply, repaired

_QUOTED = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)
_JSON_WORDS = {"true": "True", "false": "False", "null": "None"}


def _span(text: str, start: int) -> int | None:
    """The end (exclusive) of the brace-balanced span opening at `start`, strings in either quote skipped;
    None if it never closes (a reply cut off)."""
    depth, quote, escaped = 0, "", False
    for i in range(start, len(text)):
        ch = text[i]
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = ""
        elif ch in "\"'" and (ch == '"' or not text[i - 1].isalnum()):   # an apostrophe inside a word is no quote
            quote = ch
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return i + 1
    return None


def _outside_strings(text: str, fix) -> str:
    """`fix` applied to the parts of `text` outside quoted strings."""
    out, at = [], 0
    for m in _QUOTED.finditer(text):
        out += [fix(text[at:m.start()]), m.group(0)]
        at = m.end()
    return "".join(out + [fix(text[at:])])


def _mended(span: str) -> tuple[object, str] | None:
    """The object a near-JSON span means, and the mend, or None."""
    bare = _outside_strings(span, lambda s: _COMMENT.sub("", s))
    no_commas = _outside_strings(bare, lambda s: _TRAILING_COMMA.sub(r"\1", s))
    if no_commas != span:
        try:
            return json.loads(no_commas), ("comments in the JSON removed" if bare != span
                                           else "trailing commas in the JSON removed")
        except ValueError:
            pass
    python = _outside_strings(no_commas, lambda s: re.sub(r"\b(true|false|null)\b", lambda m: _JSON_WORDS[m.group(1)], s))
    try:
        return ast.literal_eval(python), "the JSON was written with single quotes (a Python dict)"
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None


def top_level_objects(text: str) -> list[tuple[dict, str]]:
    """Every object written at the top level of `text`, in order, each with the mend it needed ("" if none).
    A brace that opens no readable object (prose, a placeholder, a cut reply) hides what follows it only
    up to where its braces close."""
    found, at = [], text.find("{")
    decoder = json.JSONDecoder()
    while at >= 0:
        end = _span(text, at)
        try:
            obj, used = decoder.raw_decode(text, at)
            mend = ""
            end = used
        except ValueError:
            got = _mended(text[at:end]) if end else None
            obj, mend = got if got else (None, "")
        if isinstance(obj, dict):
            found.append((obj, mend))
        if end is None:
            break
        at = text.find("{", end)
    return found


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def reply_object(text: str) -> dict:
    """The JSON object the reply answers with; InvalidReply when there is none or two that differ."""
    if not text or not text.strip():
        raise InvalidReply("the reply was empty")
    whole = text.strip().removeprefix("```json").removeprefix("```").removesuffix("```").strip()
    if whole.startswith("[") and _is_json(whole):
        raise InvalidReply("the reply is a JSON list, not the JSON object asked for")
    found = top_level_objects(text)
    if not found:
        raise InvalidReply("the reply contained no valid JSON object")
    distinct = []
    for obj, _ in found:
        if obj not in distinct:
            distinct.append(obj)
    if len(distinct) > 1:
        raise InvalidReply(f"the reply holds {len(distinct)} different JSON objects; reply with one")
    obj, mend = found[0]
    if mend:
        repaired(mend)
    if len(found) > 1:
        repaired("the same JSON object was written twice")
    elif text.strip() != text[text.find("{"):].strip() or not text.strip().endswith("}"):
        repaired("the JSON object had other text around it")
    return obj


def rekeyed(raw: dict, canonical, what: str, twice: str) -> dict:
    """`raw` with each key read as `canonical(key)` (a careful reader's respelling: case, spacing, a near id),
    each respelling named as a repair; two keys that read as one are refused with `twice` (formatted with the
    name: which one is meant is not clear)."""
    out: dict = {}
    for k, v in raw.items():
        name = canonical(k)
        if name in out:
            raise InvalidReply(twice.format(name))
        if name != k:
            repaired(f"{what} {k!r} read as '{name}'")
        out[name] = v
    return out
