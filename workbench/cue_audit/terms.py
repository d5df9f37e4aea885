"""Key terms of a rubric criterion and the words of a prompt, compared on light stems.

A criterion's key terms are the content words of its name and question: not a
stop word (scikit-learn's English list), not one of the words every rubric
question is made of (GENERIC: "response", "identify", ...), at least four
letters. Words are compared on a light stem (a few English suffixes dropped,
so "framing", "framed" and "frame" meet, as do "risk" and "risks"); the
project's choice, documented in the cue audit's README section.
"""

from __future__ import annotations

import re

# Words of the rubric questions' own frame (what every criterion asks of a response), not of their content.
GENERIC = frozenset("""
response responses respond identify identifies identified identifying explicitly explicit does did rather instead
notice notices actually analysis analyse analyses analyze analyzes situation decision decisions option options
action actions available recommendation recommend whether something present absent score scores criterion
point actual makes sets setting long term face value cast causing accepting possible breaks easier difficult
""".split())
_WORD = re.compile(r"[A-Za-z][A-Za-z'’]+")
_SUFFIXES = ("ations", "ation", "ings", "ing", "ions", "ion", "ies", "ied", "ed", "es", "s", "e", "y")
_PLACEHOLDER = re.compile(r"\{[^{}]*\}")


def _stop_words() -> frozenset[str]:
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return frozenset(ENGLISH_STOP_WORDS)


def stem(word: str) -> str:
    w = word.lower().replace("’", "'").split("'")[0]
    for suffix in _SUFFIXES:
        if w.endswith(suffix) and len(w) - len(suffix) >= 4:
            return w[: -len(suffix)]
    return w


def words(text: str) -> list[str]:
    """The words of a text, a template's {placeholders} left out (they are filled with the case, not the prompt)."""
    return _WORD.findall(_PLACEHOLDER.sub(" ", text or "").replace("-", " "))


def key_terms(text: str) -> list[tuple[str, str]]:
    """(term, stem) of a criterion's name and question, in order, without repeats."""
    stop = _stop_words()
    out: dict[str, str] = {}
    for w in words(text):
        lw = w.lower()
        if len(lw) < 4 or lw in stop or lw in GENERIC:
            continue
        out.setdefault(stem(lw), lw)
    return [(term, s) for s, term in out.items()]


def stems_in(text: str) -> set[str]:
    return {stem(w) for w in words(text)}


_FIELD = re.compile(r"^[^.!?{}]{0,60}:\s*$")   # "MOTION:", "The motion on the floor:" before what the case fills


def _without_fields(text: str) -> str:
    """The text less its fields: a label ending in a colon whose content is a {placeholder}, on its line or
    the next ("MOTION: {motion}"; "The main motion as moved:" then "{motion}" or "MOTION: {motion}"). The case fills those; the
    label is no sentence of the prompt."""
    lines = (text or "").splitlines()
    out = []
    for i, line in enumerate(lines):
        nxt = next((ln for ln in lines[i + 1:] if ln.strip()), "")
        label, _, rest = line.partition(":")
        if ":" in line and _PLACEHOLDER.fullmatch(rest.strip()) and _FIELD.match(label + ":"):
            continue
        nxt_label, _, nxt_rest = nxt.partition(":")
        is_field = ":" in nxt and _PLACEHOLDER.fullmatch(nxt_rest.strip()) and _FIELD.match(nxt_label + ":")
        if _FIELD.match(line) and (_PLACEHOLDER.fullmatch(nxt.strip()) or is_field):
            continue
        out.append(line)
    return "\n".join(out)


def sentences(text: str) -> list[str]:
    """A prompt's sentences (fields and placeholders left out): split after . ! ? and at line ends only, never
    at a colon, and none dropped for being short ("You call threats what they are: blackmail." is one
    sentence, and "Blackmail." another); a fragment without a letter (a bullet, a rule) is no sentence."""
    plain = _PLACEHOLDER.sub(" ", _without_fields(text))
    parts = re.split(r"(?<=[.!?])\s+|\n+", plain)
    return [p.strip(" \t-*•>#") for p in parts if re.search(r"[A-Za-z]", p)]
