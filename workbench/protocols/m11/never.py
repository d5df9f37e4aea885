"""NEVER categories (seed 003 §4.2): attribute kinds that are never hard constraints.

The seed names five categories with examples; which words place an attribute
in one is the project's own list (README, "Project choices"). A constraint the
item's expected answer lists is never counted as a violation, so a true
constraint that happens to contain a listed word (a cable's "USB-C connector")
is safe.
"""

from __future__ import annotations

import re

NEVER_CATEGORIES: dict[str, tuple[str, ...]] = {
    "technology version": (
        r"\b(?:bluetooth|wi-?fi|usb|hdmi|thunderbolt|nfc|lte)\s*v?\d+(?:\.\d+)?\b", r"\bversion\b",
        r"\bgen(?:eration)?\s*\d\b", r"\b[45]g\b"),
    "durability": (
        r"water[\s-]?(?:proof|resistant|resistance)", r"\bip[x\d]\d\b", r"rust[\s-]?(?:proof|resistant)",
        r"shock[\s-]?(?:proof|resistant|absorbing)", r"scratch[\s-]?(?:proof|resistant)",
        r"weather[\s-]?(?:proof|resistant)", r"stain[\s-]?(?:proof|resistant)", r"drop[\s-]?(?:proof|tested)",
        r"tear[\s-]?resistant", r"\bdurab(?:le|ility)\b", r"\blong[\s-]?lasting\b"),
    "performance spec": (
        r"\d+\s*(?:hr|hrs|hour|hours)\b", r"\bbattery\b", r"\bmah\b", r"\d+\s*(?:lbs?|kg)\s*/\s*day",
        r"\d+\s*(?:w|watts?)\b", r"\brpm\b", r"\bmbps\b", r"\bfps\b", r"\bfast[\s-]charg", r"\bsuction\b"),
    "material": (
        r"stainless\s+steel", r"\bsilicone\b", r"\bplastic\b", r"\bleather\b", r"\bcotton\b", r"\bwool\b",
        r"\balumin(?:um|ium)\b", r"\bbamboo\b", r"\bglass\b", r"\bceramic\b", r"\bnylon\b", r"\bpolyester\b",
        r"\bwood(?:en)?\b", r"\bcopper\b", r"\bcanvas\b", r"\brubber\b", r"\bfoam\b", r"\bcarbon fib"),
    "quality marker": (
        r"\bpremium\b", r"\bsturdy\b", r"\bhigh[\s-]quality\b", r"\bluxury\b", r"\bheavy[\s-]duty\b",
        r"\bdeluxe\b", r"\bsuperior\b", r"\bprofessional[\s-]grade\b", r"\bdeep bass\b", r"\bcrisp\b",
        r"\bergonomic\b", r"\bsleek\b", r"\bsoft\b", r"\bcomfortable\b"),
}
_COMPILED = {cat: [re.compile(p, re.IGNORECASE) for p in pats] for cat, pats in NEVER_CATEGORIES.items()}


def category_of(attribute: str) -> str | None:
    """The NEVER category an attribute falls in, or None."""
    for category, patterns in _COMPILED.items():
        if any(p.search(attribute or "") for p in patterns):
            return category
    return None


def _norm(text: str) -> str:
    return " ".join(str(text).lower().split())


def violations(constraints: list[str], expected: list[str] | None = None) -> list[dict]:
    """[{constraint, category}] for every listed constraint in a NEVER category and not expected."""
    allowed = {_norm(e) for e in expected or []}
    out = []
    for c in constraints:
        if _norm(c) in allowed:
            continue
        category = category_of(c)
        if category:
            out.append({"constraint": c, "category": category})
    return out
