"""[m11]'s one-of settings: a value in the list is kept, another is refused at its key with the choices named."""

from __future__ import annotations

from workbench.protocols.m11.section import DEFAULTS, check_section


def checked(**keys) -> tuple[dict, list[tuple[str, str]]]:
    problems: list[tuple[str, str]] = []
    out = check_section({"m11": {"items": "outputs.jsonl", **keys}}, {}, lambda key, why: problems.append((key, why)))
    return out, problems


def test_a_listed_value_is_kept_and_another_is_refused_at_its_key():
    out, problems = checked(trend="all", injection="flag")
    assert (out["trend"], out["injection"], problems) == ("all", "flag", [])
    out, problems = checked(trend="every", injection="drop")
    assert (out.get("trend"), out.get("injection")) == (DEFAULTS.get("trend"), DEFAULTS.get("injection"))  # not taken
    assert [key for key, _ in problems] == ["m11.trend", "m11.injection"]
    assert '"same"' in problems[0][1] and '"exclude" or "flag"' in problems[1][1]
