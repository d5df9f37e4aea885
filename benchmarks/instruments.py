"""How every instrument reads the corpus of realistic replies (issue 41).

    .venv/bin/python benchmarks/instruments.py [--corpus tests/corpus] [--json] [--show-misses]
        [--check-model openai/smollm2 --check-api-base http://127.0.0.1:8011/v1]

Prints, per instrument and per part of its corpus (the tuning set, and the held-out set: heldout-*.toml, never
used to tune), entries, layouts, read correctly, flagged, and misread without a flag (the number that must stay 0). The README's table is this output, with the date it was run. Then the crux
equivalence's targets on the held-out planted sets (benchmarks/data-cruxes/held-out.toml, which no test
reads), the model check's accuracy on the labelled pairs (tests/corpus/crux-pairs, benchmarks/data-cruxes/pairs)
for each --check-model (a running server; benchmarks/crux_check_models.py starts each local model's in turn),
and the cue audit's meaning check's precision and recall on its labelled set.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from workbench.instruments.accuracy import SILENT, measure  # noqa: E402
from workbench.instruments.corpus import HELD_OUT, TUNING, load  # noqa: E402
from workbench.instruments.registry import all_instruments  # noqa: E402


def results(corpus: Path) -> list[tuple[str, object]]:
    """(part, accuracy) per instrument, the tuning set then the held-out set (where the instrument has one)."""
    out = []
    for name, instrument in all_instruments().items():
        for part in (TUNING, HELD_OUT):
            entries = load(corpus, name, part)
            if entries or part == TUNING:
                out.append((part, measure(instrument, entries)))
    return out


def crux_held_out() -> list[str]:
    from workbench.protocols.faultline.instruments import read_cruxes

    lines = ["crux equivalence on the held-out planted sets (CR read; target in brackets)"]
    for entry in load(ROOT / "benchmarks", "data-cruxes"):
        doc = read_cruxes(entry.text, {})
        cr = "undefined" if doc["cr"] is None else f"{doc['cr']:.2f}"
        lines.append(f"  matching  {entry.id:<44} CR {cr} [{entry.truth['cr']:.1f} ± 0.1]"
                     + ("  FLAGGED: " + doc["reason"][:70] if doc["flagged"] else ""))
    return lines


def check_accuracy(model: str, api_base: str | None) -> str:
    """The model's SAME/DIFFERENT answers on the labelled pairs, through the gateway: the tests' pairs (every pair
    the check is asked on the tests' planted sets, the undecided band's near misses among them) and the pairs
    written outside the project (benchmarks/data-cruxes/pairs), each set on its own line."""
    from workbench.protocols.faultline import equivalence
    from workbench.protocols.faultline.instruments import _model_asker

    ask = _model_asker({"model": model, "api_base": api_base})
    lines = []
    for where, pairs in (("tests/corpus/crux-pairs", load(ROOT / "tests" / "corpus", "crux-pairs")),
                         ("benchmarks/data-cruxes/pairs", load(ROOT / "benchmarks" / "data-cruxes", "pairs"))):
        prompts = [equivalence.pair_prompt(*e.text.split("\n")) for e in pairs]
        answers = [equivalence.read_check(t) for t in ask(prompts)]
        right = sum(1 for e, a in zip(pairs, answers) if a is not None and a == e.truth["same"])
        unreadable = sum(1 for a in answers if a is None)
        same = [a for e, a in zip(pairs, answers) if e.truth["same"]]
        lines.append(f"  model check {model} on {where}: {right}/{len(pairs)} labelled pairs right "
                     f"({right / len(pairs):.0%}), {unreadable} unreadable; said SAME to "
                     f"{sum(1 for a in answers if a)} of {len(pairs)} (true same: {len(same)})")
    return "\n".join(lines)


def cue_precision_recall() -> str:
    from workbench.cue_audit.evaluation import labelled_precision_recall
    from workbench.cue_audit.meaning import CUE_MODEL, LINE
    from workbench.metrics.embeddings import Embedder

    embedder = Embedder(CUE_MODEL)
    lines = []
    for part in (TUNING, HELD_OUT):
        precision, recall = labelled_precision_recall(embedder, part=part)
        lines.append(f"cue audit meaning check ({CUE_MODEL}, line {LINE}) on tests/corpus/cues, {part}: "
                     f"precision {precision:.2f}, recall {recall:.2f}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=ROOT / "tests" / "corpus")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--show-misses", action="store_true", help="print every flagged or misread entry")
    parser.add_argument("--check-model", action="append", default=[],
                        help="a litellm model whose crux equivalence check is measured on the labelled pairs")
    parser.add_argument("--check-api-base", action="append", default=[], help="its server (one per --check-model)")
    args = parser.parse_args(argv)
    found = results(args.corpus)
    if args.json:
        print(json.dumps([{**a.row(), "part": part} for part, a in found], indent=2))
        return 0
    print(f"{'instrument':<16}{'part':<10}{'entries':>8}{'layouts':>8}{'correct':>9}{'flagged':>9}{'silent':>8}")
    for part, a in found:
        r = a.row()
        print(f"{r['instrument']:<16}{part:<10}{r['entries']:>8}{r['layouts']:>8}{r['correct']:>9}{r['flagged']:>9}"
              f"{r['silent']:>8}")
        if args.show_misses:
            for o in a.outcomes:
                if o.verdict != "correct":
                    print(f"    {o.verdict}: {o.entry.id} ({o.entry.layout}): {o.document}")
    print()
    print("\n".join(crux_held_out()))
    bases = args.check_api_base + [None] * (len(args.check_model) - len(args.check_api_base))
    for model, base in zip(args.check_model, bases):
        print(check_accuracy(model, base))
    print(cue_precision_recall())
    return 1 if any(a.count(SILENT) for _, a in found) else 0


if __name__ == "__main__":
    raise SystemExit(main())
