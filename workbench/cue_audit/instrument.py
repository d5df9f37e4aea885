"""The cue audit as an instrument (workbench.instruments): `read cues FILE --rubric NAME` lists each sentence of
a prompt that cues a criterion of the rubric, by meaning (meaning.py) or by the criterion's key terms, and
flags a reading that sits within meaning.UNSURE of its line."""

from __future__ import annotations

from workbench.cue_audit import criteria_of, meaning
from workbench.cue_audit.terms import key_terms, sentences, stems_in
from workbench.instruments import Instrument, Option

_EMBEDDER: list = []


def _embedder():
    from workbench.metrics.embeddings import Embedder

    if not _EMBEDDER:
        _EMBEDDER.append(Embedder(meaning.CUE_MODEL))
    return _EMBEDDER[0]


def _rubric(name: str):
    from workbench.cases.library import shipped_rubrics
    from workbench.rubrics import parse_rubric
    from pathlib import Path

    if not name:
        raise ValueError("--rubric is required: a shipped rubric id or a rubric TOML file")
    if Path(name).is_file():
        return parse_rubric(Path(name).read_text(encoding="utf-8"), name)
    shipped = shipped_rubrics()
    if name not in shipped:
        raise ValueError(f"--rubric '{name}' is neither a rubric file nor a shipped rubric ({', '.join(shipped)})")
    return shipped[name]


def read_cues(text: str, options: dict) -> dict:
    """Each sentence's cues; the reading is flagged when a sentence has no sure cue and one of its scores sits
    near the line (meaning.unsure): a cue it may have missed, or one it found only just."""
    criteria = criteria_of([_rubric(options.get("rubric") or "")])
    found, unsure = [], []
    units = sentences(text)
    cue, procedure = meaning.scores(units, [c.references for c in criteria], _embedder())
    for i, sentence in enumerate(units):
        words, sure, near = stems_in(sentence), False, []
        for j, c in enumerate(criteria):
            score, proc = float(cue[i, j]), float(procedure[i])
            terms = [t for t, stem in key_terms(f"{c.name} {c.question}") if stem in words]
            if meaning.is_cue(score, proc) or terms:
                found.append({"criterion": c.id, "sentence": sentence, "similarity": round(score, 3),
                              "terms": terms})
                # A key term without a sure meaning is a shared word as often as a cue ("Frame your answer as
                # a memo", "the module's output"): listed, and the reading flagged, never taken as sure.
                if meaning.is_cue(score, proc) and not meaning.unsure(score, proc):
                    sure = True
                elif terms:
                    near.append(f"{c.id} (key term {', '.join(terms)}, meaning {score:.2f})")
            elif meaning.unsure(score, proc):
                near.append(f"{c.id} ({score:.2f})")
        if not sure and (near or any(f["sentence"] == sentence for f in found)):
            unsure.append(f"\"{sentence}\": " + ", ".join(near or ["only just a cue"]))
    return {"cues": found, "sentences": len(units), "flagged": bool(unsure),
            "reason": ("near the meaning line: " + "; ".join(unsure)) if unsure else ""}


def _describe(doc: dict) -> str:
    if not doc["cues"]:
        return f"no cue in {doc['sentences']} sentence(s)"
    return "\n".join(f"{c['criterion']}: \"{c['sentence']}\" (similarity {c['similarity']:.2f}"
                     + (f"; terms {', '.join(c['terms'])}" if c["terms"] else "") + ")" for c in doc["cues"])


INSTRUMENTS = [
    Instrument(name="cues", title="the cue audit: which rubric criteria a prompt's sentences cue",
               read=read_cues,
               agrees=lambda doc, truth: (set(truth["criteria"]) <= {c["criterion"] for c in doc["cues"]}
                                         and bool(doc["cues"]) == bool(truth["criteria"])),
               describe=_describe,
               options=(Option("--rubric", "the rubric whose criteria are looked for (a shipped id or a file)"),),
               input_help="a prompt's text", example="prompt.txt --rubric glenda-crock"),
]
