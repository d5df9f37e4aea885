"""Seed 003 §8's key validation points, checked against the pipeline's scores where they apply.

- Zero-constraint products (expected answer empty): overall 4 or more when the
  output is empty, 2 or less when it lists constraints.
- One-constraint products (the seed's device-specific case, generalised to any
  expected answer of exactly one constraint): a missing or an extra constraint
  puts accuracy at 2-3.
- NEVER-category violations in the output: accuracy 1-2; several: 0-1.

"Score" in the first point is read as the overall score, the others name
accuracy (README, "Project choices"). A point is checked on the sample's
scores averaged over its runs; a sample without scores is "unscored".
"""

from __future__ import annotations


def _norm(text: str) -> str:
    return " ".join(str(text).lower().split())


def _point(point: str, rule: str, value, lo: float, hi: float) -> dict:
    ok = None if value is None else lo - 1e-9 <= value <= hi + 1e-9
    return {"point": point, "rule": rule, "observed": value, "ok": ok}


def key_points(item: dict, result: dict) -> list[dict]:
    expected, output = item.get("expected"), item["hard_constraints"]
    overall = result.get("overall")
    accuracy = (result.get("scores") or {}).get("accuracy")
    points = []
    if expected is not None and not expected:
        if not output:
            points.append(_point("zero-constraint product", "output empty: overall 4 or more", overall, 4, 5))
        else:
            points.append(_point("zero-constraint product", "output lists constraints: overall 2 or less",
                                 overall, 0, 2))
    if expected is not None and len(expected) == 1:
        want, got = _norm(expected[0]), {_norm(c) for c in output}
        if want not in got:
            points.append(_point("one-constraint product", "true constraint missing: accuracy 2-3", accuracy, 2, 3))
        elif len(got) > 1:
            points.append(_point("one-constraint product", "extra constraints: accuracy 2-3", accuracy, 2, 3))
    never = result.get("never_violations") or []
    if len(never) == 1:
        points.append(_point("NEVER category", f"1 violation ({never[0]['constraint']}): accuracy 1-2",
                             accuracy, 1, 2))
    elif len(never) > 1:
        points.append(_point("NEVER category", f"{len(never)} violations: accuracy 0-1", accuracy, 0, 1))
    return points
