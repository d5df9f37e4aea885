"""The passages a schema's enum lists compile into a server's grammar (the llama-cpp-python grammar bug of
session 10): none holds a double quote, a backslash or a control character, and each is still a copy."""

from __future__ import annotations

import json
import re

from workbench.structured.passages import MIN_QUOTE, passages

# A chair's summary as SmolLM2 wrote one: quoted words, a path with a backslash, a tab.
CHAIR = ('The committee agreed to "pause the rollout" until the audit ends.\n'
         'Risk: the vendor\'s log at C:\\ops\\audit was never read.\tIt may hold the answer.\n'
         '"Quoted from the start" and the rest of the line.')


def literal_as_llama_cpp_python_writes_it(value: str) -> str:
    """llama-cpp-python 0.3.36's `SchemaConverter._generate_constant_rule`: json.dumps, then only CR, LF and
    `"` escaped for the grammar (its `_format_literal`)."""
    dumped = json.dumps(value)
    return '"' + re.sub(r'[\r\n"]', lambda m: {"\r": "\\r", "\n": "\\n", '"': '\\"'}[m.group(0)], dumped) + '"'


def grammar_literal_closes_at_its_end(literal: str) -> bool:
    """GBNF reads a backslash as escaping the next character: the literal's only unescaped quote is its last."""
    i = 1
    while i < len(literal):
        if literal[i] == "\\":
            i += 2
            continue
        if literal[i] == '"':
            return i == len(literal) - 1
        i += 1
    return False


def test_a_quoted_passage_breaks_the_converters_literal_and_passages_never_hold_one():
    assert not grammar_literal_closes_at_its_end(literal_as_llama_cpp_python_writes_it('said "wait" now'))
    found = passages(CHAIR)
    assert found and all(grammar_literal_closes_at_its_end(literal_as_llama_cpp_python_writes_it(p)) for p in found)
    assert not any(re.search(r'["\\\x00-\x1f]', p) for p in found)


def test_each_piece_is_still_a_copy_of_the_text_and_long_enough():
    found = passages(CHAIR)
    flat = " ".join(CHAIR.split())
    assert all(p in flat and len(p) >= MIN_QUOTE for p in found)
    # cut at the quotes, the backslashes and the tab: the words between them stay quotable
    assert {"pause the rollout", "until the audit ends.", "The committee agreed to", "audit was never read.",
            "It may hold the answer.", "Quoted from the start"} <= set(found)
