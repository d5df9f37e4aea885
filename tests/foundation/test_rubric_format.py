"""Rubric files: bad input is named by file, line and field."""

from __future__ import annotations

import pytest

from workbench.cases import CaseError
from workbench.rubrics import parse_rubric

GOOD = '''id = "toy"
name = "Toy"
composite = "sum"

[[criteria]]
id = "a"
name = "A"
min = 0
max = 1
[[criteria.anchors]]
score = 0
text = "absent"
[[criteria.anchors]]
score = 1
text = "present"
'''


def problems(text):
    with pytest.raises(CaseError) as exc:
        parse_rubric(text, "toy.toml")
    return exc.value.problems


def test_good_rubric_loads_with_composite_max():
    rubric = parse_rubric(GOOD, "toy.toml")
    assert rubric.max_composite == 1 and len(rubric.hash) == 64


def test_unknown_key_and_composite_are_refused():
    found = problems(GOOD.replace('composite = "sum"', 'composite = "mean"\ninstruction = "x"'))
    fields = {(p.field, p.line) for p in found}
    assert ("composite", 3) in fields and ("instruction", 4) in fields


def test_missing_anchor_names_the_criterion_table():
    text = GOOD.replace('[[criteria.anchors]]\nscore = 1\ntext = "present"\n', "")
    (p,) = problems(text)
    assert p.field == "criteria[0]" and p.line == 5 and "one anchor per score" in p.message


def test_duplicate_criterion_ids():
    text = GOOD + GOOD[GOOD.index("[[criteria]]"):]
    assert any("used twice" in p.message for p in problems(text))


def test_no_composite_has_no_maximum():
    assert parse_rubric(GOOD.replace('"sum"', '"none"')).max_composite is None
