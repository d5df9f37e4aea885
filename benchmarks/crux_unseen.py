"""Crux recurrence's offline default on planted sets: the tuning set and the sets it has not seen (issue 41).

    .venv/bin/python benchmarks/crux_unseen.py [--json]

Prints CR as `read cruxes` reads each planted set of five runs, beside its planted value, for three groups:
the tuning sets (tests/corpus/cruxes and cruxes-tuning, which the tests read and the method was set on), the
held-out sets of session 10 (benchmarks/data-cruxes/held-out.toml) and the sets written in session 11 before any
score was looked at (benchmarks/data-cruxes/unseen/: the first file was measured before the method's last change,
the second only after it; the third before the run-structure methods were tried, and first scored as it stands)
and in session 12 outside the project (session-12-a.toml: round A, measured once before any change it informed; its
first figures are in its header; session-12-b.toml: round B, the final held-out figure, never tuned on). A set is met
when CR is within 0.1 of its planted value; a flagged set is one the default says it cannot separate. `--equivalence
embedding` reads them with session 11's average linkage instead of the default (matching across runs).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from workbench.instruments.corpus import load  # noqa: E402

GROUPS = (("tuning", ROOT / "tests" / "corpus", "cruxes"),
          ("tuning", ROOT / "tests" / "corpus", "cruxes-tuning"),
          ("held-out (session 10)", ROOT / "benchmarks", "data-cruxes"),
          ("unseen (session 11)", ROOT / "benchmarks" / "data-cruxes", "unseen"))
# the unseen sets by file, in the order they were written and how much of each was seen when the method changed
UNSEEN = {"session-11.toml": "unseen (session 11, first: seen before the BAND flag)",
          "session-11-second.toml": "unseen (session 11, second: seen after the BAND flag)",
          "session-11-third.toml": "unseen (session 11, third: written before the run-structure trials)",
          "session-12-a.toml": "unseen (session 12, round A: tuning after its first reading)",
          "session-12-b.toml": "held-out (session 12, round B: never tuned on)",
          "session-13-d.toml": "held-out (session 13, round D: read once in session 14)",
          "session-15-f3.toml": "held-out (session 15, round F3: read once on main, never tuned on)",
          "session-16-g3.toml": "unseen (session 16, round G3: read once on main and on s16-cx, then mended: HIGH 0.65)",
          "session-18-k3.toml": "held-out (session 18, round K3: read once on main, never tuned on)"}


def rows(method: str = "matching") -> list[dict]:
    from workbench.protocols.faultline.instruments import CR_TOLERANCE, read_cruxes

    out = []
    for group, root, folder in GROUPS:
        for entry in load(root, folder):
            doc = read_cruxes(entry.text, {"equivalence": method})
            met = doc["cr"] is not None and abs(doc["cr"] - entry.truth["cr"]) <= CR_TOLERANCE
            where = UNSEEN[Path(entry.file).name] if group.startswith("unseen") else group
            out.append({"group": where, "id": entry.id, "layout": entry.layout, "planted": entry.truth["cr"],
                        "cr": doc["cr"], "met": met, "flagged": doc["flagged"], "reason": doc["reason"]})
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--equivalence", default="matching", choices=("matching", "embedding"))
    args = parser.parse_args(argv)
    found = rows(args.equivalence)
    if args.json:
        print(json.dumps(found, indent=2))
        return 0
    for group in dict.fromkeys(r["group"] for r in found):
        mine = [r for r in found if r["group"] == group]
        print(f"{group}: {sum(r['met'] for r in mine)} of {len(mine)} sets within 0.1 of the planted CR, "
              f"{sum(r['flagged'] for r in mine)} flagged, "
              f"{sum(not r['met'] and not r['flagged'] for r in mine)} misread silently")
        for r in mine:
            cr = "undefined" if r["cr"] is None else f"{r['cr']:.2f}"
            mark = "ok " if r["met"] else ("FLAG" if r["flagged"] else "MISS")
            print(f"  {mark} {r['id']:<48} CR {cr:>9}  planted {r['planted']:.2f}"
                  + (f"  flagged: {r['reason'][:90]}" if r["flagged"] else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
