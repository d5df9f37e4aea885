"""The cue audit: which rubric criteria a condition's prompts cue that the baseline condition's do not (issue 30).

Seed 000 §V: "only the deliberative structure differs". A condition whose
prompts name what a rubric criterion rewards (a committee told to look for
tail risks, a role told to test the framing of the question) is instructed,
not structured, and the tables cannot tell the two apart. For every condition
of a study, the audit lists each criterion of the study's rubrics whose key
terms or meaning appear in that condition's prompts but not in the baseline
condition's (hindsight: B1):

- key terms: the content words of the criterion's name and question, less
  stop words and the words every rubric question uses (GENERIC), matched on
  light stems (`terms.py`), anywhere in the prompt text;
- meaning: a prompt sentence is a paraphrase of what the criterion rewards
  (`meaning.py`: all-mpnet-base-v2, cached in the store, against the
  criterion's question and anchors, and nearer them than prompt procedure)
  while no baseline sentence is.

Each finding names the prompt it comes from and that prompt's origin: "seed"
(the seed's own wording: a cue the seed itself puts there, reported, not the
project's doing), "structure" (the terms are in the seed's own description
of the condition, e.g. C3's scenarios) or "project" (the project's wording:
the cue a study should not carry unless it pre-registers it).

The audit is generic: a protocol supplies each condition's prompts through
`StudyProtocol.condition_prompts` and names its baseline (`cue_baseline`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from workbench.cue_audit import meaning
from workbench.cue_audit.terms import key_terms, sentences, stems_in

# Set on tests/corpus/cues (meaning.py): the project's choice; its precision and recall are in the README.
MEANING_THRESHOLD = meaning.LINE
ORIGINS = ("seed", "structure", "project")


@dataclass(frozen=True)
class Prompt:
    """One prompt text a condition sends; `origin` "seed" for the seed's own wording, else "project"."""

    name: str
    text: str
    origin: str = "project"


@dataclass(frozen=True)
class Criterion:
    rubric: str
    id: str
    name: str
    question: str
    anchors: tuple[str, ...] = ()   # the texts of its anchors above the lowest score (what it rewards)

    @property
    def references(self) -> list[str]:
        """Its question and anchors (meaning.references), and the labelled paraphrases of a shipped rubric's."""
        return meaning.references(self.question, list(self.anchors)) + meaning.exemplars(self.rubric, self.id)


@dataclass(frozen=True)
class Finding:
    condition: str
    rubric: str
    criterion: str
    criterion_name: str
    prompt: str
    origin: str              # seed | structure | project
    terms: tuple[str, ...] = ()
    sentence: str = ""       # the prompt sentence whose meaning is close to the criterion
    similarity: float | None = None

    def text(self) -> str:
        how = []
        if self.terms:
            how.append("terms " + ", ".join(f"'{t}'" for t in self.terms))
        if self.sentence:
            how.append(f"meaning (similarity {self.similarity:.2f}: \"{self.sentence}\")")
        return (f"{self.condition}: {self.rubric}/{self.criterion} ({self.criterion_name}) by {' and '.join(how)} "
                f"in {self.prompt} [{self.origin}]")


@dataclass
class CueAudit:
    baseline: str
    threshold: float
    conditions: list[str]
    findings: list[Finding] = field(default_factory=list)
    model: str = ""

    def by_origin(self, origin: str) -> list[Finding]:
        return [f for f in self.findings if f.origin == origin]

    @property
    def passes(self) -> bool:
        """No cue of the project's own wording: what remains, if anything, is the seed's."""
        return not self.by_origin("project")

    def to_dict(self) -> dict:
        return {"baseline": self.baseline, "threshold": self.threshold, "embedding_model": self.model,
                "conditions": list(self.conditions), "passes": self.passes,
                "findings": [asdict(f) for f in self.findings]}

    def lines(self) -> list[str]:
        return audit_lines(self.to_dict())


def audit_lines(doc: dict) -> list[str]:
    """The audit (its `to_dict()` document) in words, one line a finding: `study show` and the report."""
    model = doc.get("embedding_model") or "MiniLM"
    head = (f"cue audit   criteria cued by a condition's prompts but not by {doc['baseline']}'s (key terms; {model} "
            f"similarity >= {doc['threshold']:.2f}): ")
    findings = [Finding(**{**f, "terms": tuple(f["terms"])}) for f in doc["findings"]]
    if not findings:
        return [head + "none."]
    own = sum(1 for f in findings if f.origin == "project")
    verdict = "none by the project's wording" if not own else f"{own} by the project's wording"
    return [head + f"{len(findings)} finding(s), {verdict}."] + [f"  {f.text()}" for f in findings]


def criteria_of(rubrics) -> list[Criterion]:
    """The criteria of `rubrics` (workbench.rubrics.Rubric objects) in order."""
    return [Criterion(r.id, c.id, c.name, c.question or c.name,
                      tuple(a.text for a in sorted(c.anchors, key=lambda a: a.score)[1:]))
            for r in rubrics for c in r.criteria]


def run_audit(prompts: dict[str, list[Prompt]], baseline: str, criteria: list[Criterion], embedder, *,
              threshold: float = MEANING_THRESHOLD, structure: dict[str, str] | None = None) -> CueAudit:
    """The audit over every condition's prompts. `structure`: the seed's own description of each condition,
    whose terms are the structure's, not a cue the project added. `embedder`: an Embedder (embed(texts))."""
    structure = structure or {}
    base_text = " ".join(p.text for p in prompts.get(baseline, []))
    base_stems = stems_in(base_text)
    terms = {(c.rubric, c.id): key_terms(f"{c.name} {c.question}") for c in criteria}

    # every prompt sentence of every condition against every criterion's references, embedded at once (cached);
    # a sentence's score for a criterion counts only where it is a cue by meaning (meaning.is_cue), else 0
    units = [(cond, p, s) for cond, ps in prompts.items() for p in ps for s in sentences(p.text)]
    sim = {}
    if units and criteria:
        cue, procedure = meaning.scores([s for _, _, s in units], [c.references for c in criteria], embedder)
        sim = {(i, j): float(cue[i, j]) if meaning.is_cue(cue[i, j], procedure[i], threshold) else 0.0
               for i in range(len(units)) for j in range(len(criteria))}
    base_best = {j: max((sim.get((i, j), 0.0) for i, (cond, _, _) in enumerate(units) if cond == baseline),
                        default=0.0) for j in range(len(criteria))}
    # criteria the seed's own description of a condition cues by meaning (C3's "scenario generation" and
    # anticipation): a meaning finding there is the structure's, as a key term in that description is
    seeded: set[tuple[str, int]] = set()
    described = [(cond, s) for cond, text in structure.items() for s in sentences(text)]
    if described and criteria:
        cue, procedure = meaning.scores([s for _, s in described], [c.references for c in criteria], embedder)
        seeded = {(cond, j) for i, (cond, _) in enumerate(described) for j in range(len(criteria))
                  if meaning.is_cue(cue[i, j], procedure[i], threshold)}

    of_prompt: dict[tuple[str, int], list[int]] = {}  # (condition, prompt) -> its sentences' rows in `units`
    for i, (cond, p, _) in enumerate(units):
        of_prompt.setdefault((cond, id(p)), []).append(i)
    findings: list[Finding] = []
    for cond, ps in prompts.items():
        if cond == baseline:
            continue
        seed_words = stems_in(structure.get(cond, ""))
        words_of = {id(p): stems_in(p.text) for p in ps}
        for j, c in enumerate(criteria):
            for p in ps:
                found = words_of[id(p)]
                hits = tuple(t for t, stem in terms[(c.rubric, c.id)] if stem in found and stem not in base_stems)
                close = [(sim.get((i, j), 0.0), units[i][2]) for i in of_prompt.get((cond, id(p)), [])]
                best = max(close, default=(0.0, ""))
                by_meaning = best[0] >= threshold and base_best[j] < threshold
                if not hits and not by_meaning:
                    continue
                origin = p.origin
                if origin == "project" and all(stem in seed_words for t, stem in terms[(c.rubric, c.id)] if t in hits) \
                        and (not by_meaning or (cond, j) in seeded):
                    origin = "structure"  # every cue is in the seed's own description of the condition
                findings.append(Finding(cond, c.rubric, c.id, c.name, p.name, origin, hits,
                                        best[1] if by_meaning else "", round(best[0], 3) if by_meaning else None))
    return CueAudit(baseline, threshold, list(prompts), findings, getattr(embedder, "model", ""))


def study_cue_audit(db, study_id: str) -> CueAudit | None:
    """The audit of one study (None when its protocol supplies no prompts): its protocol's prompts per
    condition, the rubrics the study is scored on (frozen, else the library's latest), embeddings cached in
    the store."""
    from store.embeddings import StoreEmbeddingCache
    from store.studies import get_study
    from workbench.metrics.embeddings import Embedder
    from workbench.protocol.registry import protocol_of

    study = get_study(db, study_id)
    if study is None:
        raise KeyError(f"no study '{study_id}' in the store")
    definition = study["definition"]
    protocol = protocol_of(definition)
    given = protocol.condition_prompts(definition)
    if not given or not protocol.cue_baseline:
        return None
    prompts = {cond: [Prompt(*p) for p in ps] for cond, ps in given.items()}
    rubric_ids = list(definition.get("rubrics") or [])
    rubric_ids += [r for r in protocol.extra_rubrics(db, definition) if r not in rubric_ids]
    return run_audit(prompts, protocol.cue_baseline, criteria_of(study_rubrics(db, study_id, rubric_ids)),
                     Embedder(meaning.CUE_MODEL, cache=StoreEmbeddingCache(db)), structure=protocol.condition_structure())


def study_rubrics(db, study_id: str, rubric_ids: list[str]) -> list:
    """The rubrics a study is scored on: the versions it froze, else the library's latest (a draft study)."""
    from store import blind as blind_rows
    from store import rubrics as rubric_rows
    from workbench.rubrics import parse_rubric

    frozen = {}
    for artefact in blind_rows.frozen_texts(db, study_id, "rubric"):
        rubric = parse_rubric(artefact["content"], f"frozen rubric {artefact['ref']}")
        frozen[rubric.id] = rubric
    out = []
    for rid in rubric_ids:
        if rid in frozen:
            out.append(frozen[rid])
            continue
        versions = rubric_rows.rubric_versions(db, rid)
        if versions:
            out.append(parse_rubric(versions[-1]["text"], f"rubric {rid}"))
    return out
