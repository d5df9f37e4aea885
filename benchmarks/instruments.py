"""How every instrument reads the corpus of realistic replies (issue 41).

    .venv/bin/python benchmarks/instruments.py [--corpus tests/corpus] [--json] [--show-misses]

Prints, per instrument: entries, layouts, read correctly, flagged, and misread without a flag (the
number that must stay 0). The README's table is this output, with the date it was run.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from workbench.instruments.accuracy import SILENT, measure  # noqa: E402
from workbench.instruments.corpus import load  # noqa: E402
from workbench.instruments.registry import all_instruments  # noqa: E402


def results(corpus: Path) -> list:
    return [measure(instrument, load(corpus, name)) for name, instrument in all_instruments().items()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=ROOT / "tests" / "corpus")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--show-misses", action="store_true", help="print every flagged or misread entry")
    args = parser.parse_args(argv)
    found = results(args.corpus)
    if args.json:
        print(json.dumps([a.row() for a in found], indent=2))
        return 0
    print(f"{'instrument':<16}{'entries':>8}{'layouts':>8}{'correct':>9}{'flagged':>9}{'silent':>8}")
    for a in found:
        r = a.row()
        print(f"{r['instrument']:<16}{r['entries']:>8}{r['layouts']:>8}{r['correct']:>9}{r['flagged']:>9}"
              f"{r['silent']:>8}")
        if args.show_misses:
            for o in a.outcomes:
                if o.verdict != "correct":
                    print(f"    {o.verdict}: {o.entry.id} ({o.entry.layout}): {o.document}")
    return 1 if any(a.count(SILENT) for a in found) else 0


if __name__ == "__main__":
    raise SystemExit(main())
