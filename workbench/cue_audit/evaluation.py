"""The meaning check's precision and recall on the labelled sets (tests/corpus/cues/: the tuning set the line was
set on, labelled.toml, and the held-out set, heldout-*.toml, written apart and never used to set it), for the tests
that hold its floor and benchmarks/instruments.py: a cue sentence is recalled when it cues its own
criterion by meaning (meaning.is_cue, key terms left out); precision counts every sentence found cueing any
criterion of its rubric, neutral ones included."""

from __future__ import annotations

from pathlib import Path

from workbench.paths import PROJECT_ROOT

LABELLED = PROJECT_ROOT / "tests" / "corpus" / "cues"


def labelled_precision_recall(embedder, folder: Path = LABELLED, part: str | None = None) -> tuple[float, float]:
    """(precision, recall) on the labelled set, or one `part` of it (corpus.TUNING or corpus.HELD_OUT)."""
    from workbench.cases.library import shipped_rubrics
    from workbench.cue_audit import criteria_of, meaning
    from workbench.instruments.corpus import load

    rubrics = shipped_rubrics()
    by_rubric: dict[str, list] = {}
    for entry in load(folder.parent, folder.name, part):
        by_rubric.setdefault(entry.options["rubric"], []).append(entry)
    found_true = found_any = cues = recalled = 0
    for rubric, entries in by_rubric.items():   # one embedding call per rubric
        criteria = criteria_of([rubrics[rubric]])
        cue, procedure = meaning.scores([e.text for e in entries], [c.references for c in criteria], embedder)
        for i, entry in enumerate(entries):
            hits = {c.id for j, c in enumerate(criteria) if meaning.is_cue(cue[i, j], procedure[i])}
            want = set(entry.truth["criteria"])
            if want:
                cues += 1
                recalled += bool(want & hits)
            if hits:
                found_any += 1
                found_true += bool(want & hits)
    return (found_true / found_any if found_any else 1.0), (recalled / cues if cues else 0.0)
