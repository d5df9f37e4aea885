"""Is the "identified event" of a probe only the case restated? (issue 25)

A small model asked "can you identify the real-world event?" often restates the scenario, and a lenient
classifier then accepts the restatement as the identified event: the case's own title came back as "the
real event" and the case was flagged as recognized. An identified event whose embedding is as close to the
case's title, its scenario or one of the scenario's sentences as PARAPHRASE_THRESHOLD is a paraphrase of
the case, not an identification.

A name-only restatement slips under any embedding threshold: SmolLM2 "identified" the event as
"Glenda-Crock", the two names its scenario uses (similarity 0.51). So an identified event whose every word is
one of the case's own (its title and scenario, small words aside) is a restatement too: naming what the
scenario names shows no knowledge of the real event. Both rules are the project's choice.

The threshold is the project's choice, measured with the bundled MiniLM (all-MiniLM-L6-v2): restatements of
a case's title scored 0.82-1.00 against it, real events in the same domain (another company's move
upmarket, named) 0.38-0.53. 0.75 sits between them, nearer the restatements: a named event is rarely
that close to a scenario written to hide it.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass

from workbench.cases import Case

PARAPHRASE_THRESHOLD = 0.75
SMALL_WORDS = frozenset("a an and as at by for from in into is it its of on or the to with".split())


@dataclass
class Paraphrase:
    similarity: float   # the highest cosine similarity found
    of: str             # "title" | "scenario" | "a scenario sentence"
    text: str           # the case text it is closest to
    threshold: float = PARAPHRASE_THRESHOLD
    case_words: tuple[str, ...] = ()  # the identified event's words, when every one is the case's own

    @property
    def restates(self) -> bool:
        return self.similarity >= self.threshold or bool(self.case_words)

    def describe(self) -> str:
        if self.case_words and self.similarity < self.threshold:
            return (f"the identified event only repeats the case's own words ({', '.join(self.case_words)}): a "
                    "restatement of the case, not an identification")
        return (f"the identified event restates the case's {self.of} (similarity {self.similarity:.2f} ≥ "
                f"{self.threshold:.2f}): a paraphrase of the case, not an identification")

    def to_dict(self) -> dict:
        return dict(asdict(self), restates=self.restates)


def _sentences(text: str) -> list[str]:
    parts = re.split(r"(?<=[.!?;])\s+|\n\s*[-*]\s+|\n{2,}", text or "")
    return [" ".join(p.split()) for p in parts if len(p.split()) >= 4]


def _words(text: str) -> list[str]:
    return [w for w in re.findall(r"[^\W\d_]+", (text or "").casefold()) if w not in SMALL_WORDS]


def only_case_words(identified: str, case: Case) -> tuple[str, ...]:
    """The identified event's words when each of them is in the case's title or scenario (else ())."""
    words = list(dict.fromkeys(_words(identified)))
    own = set(_words(case.title)) | set(_words(case.scenario))
    return tuple(words) if words and all(w in own for w in words) else ()


def closest_case_text(identified: str, case: Case, embedder) -> Paraphrase | None:
    """How close `identified` comes to the case's own title and scenario (None: nothing to compare)."""
    from workbench.metrics.embeddings import cosine_similarity

    identified = " ".join((identified or "").split())
    if not identified:
        return None
    targets = [("title", case.title.strip())] if case.title.strip() else []
    if case.scenario.strip():
        targets.append(("scenario", " ".join(case.scenario.split())))
        targets += [("a scenario sentence", s) for s in _sentences(case.scenario)]
    if not targets:
        return None
    vectors = embedder.embed([identified] + [t for _, t in targets])
    scored = [(cosine_similarity(vectors[0], vectors[i + 1]), of, text) for i, (of, text) in enumerate(targets)]
    similarity, of, text = max(scored, key=lambda s: s[0])
    return Paraphrase(similarity=round(float(similarity), 4), of=of, text=text,
                      case_words=only_case_words(identified, case))


def default_embedder(db):
    """The project's embedder (the bundled MiniLM), its vectors cached in the store."""
    from store.embeddings import StoreEmbeddingCache
    from workbench.metrics.embeddings import Embedder

    return Embedder(cache=StoreEmbeddingCache(db))
