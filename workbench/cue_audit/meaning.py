"""The cue audit's meaning check: is a prompt sentence a paraphrase of what a rubric criterion rewards?

A sentence is compared (all-mpnet-base-v2, cosine) with the criterion's *content*: its question and the texts
of its anchors above the lowest score, with the rubric's own frame ("Does the response identify that …",
"The response states that …") taken off, whole and clause by clause (a prompt sentence is short; a question
is long and says several things). Its cue score is the best of those. It cues the criterion when

- the cue score is at least LINE, and
- it is closer to the criterion than to every PROCEDURE sentence: what prompts are made of whatever their
  content (read the case, answer in turn, give reasons), as GENERIC is for the key terms. A sentence of
  procedure that happens to share a word with a criterion ("Describe who is affected by the decision") is
  nearer the procedure.

Both sides carry labelled examples (exemplars.toml, session 12): a criterion's side also holds paraphrases of
what it rewards in the words prompts use (the rubric's own text is abstract: "the choice set itself has been
constructed by the adversary" is far from a metaphor such as "whether the menu was set up to corner them"), and
the procedure side holds neutral sentences, among them the roles of a deliberation (argue the other side,
question the reasons, find common ground): the structure seed 000 §V lets conditions differ in, which a
sentence about arguing may resemble without naming a criterion. A sentence is so read by its nearest labelled
neighbour, at a line.

A reading within UNSURE of either line is flagged as unsure (the `cues` instrument says so). LINE and the
exemplars were set on tests/corpus/cues/labelled.toml and hand-s12*.toml (paraphrased cues and neutral prompt
sentences, none from a prompt the audit runs on): the project's choice; precision and recall on the held-out
sets (heldout-*.toml, never used to set them) are printed by benchmarks/instruments.py and in the README.
"""

from __future__ import annotations

import re
import tomllib
from functools import cache
from pathlib import Path

CUE_MODEL = "all-mpnet-base-v2"     # workbench.metrics.embeddings.MPNET_MODEL
LINE = 0.35
UNSURE = 0.1
PROCEDURE = (
    "Read the material and answer the question.", "Explain the reasoning behind your answer.",
    "Keep your reply short and clear.", "You are a participant in a meeting.",
    "Follow the procedure and speak in turn.", "Give your view on the matter before the group.",
    "Say who you are and what you think.", "Write your response in the format asked.",
    "Consider the people involved and the situation described.", "State your recommendation and support it.",
    "Vote on the motion when asked.", "Take part in the discussion politely.",
    # deliberation in general, which every criterion's paraphrase resembles by its verbs (round G, session 16:
    # "Weigh the ethical and practical consequences carefully." read as a compliance-trap cue)
    "Weigh the consequences of each option carefully.", "Consider the risks and trade-offs before you decide.",
)

_FRAME = re.compile(r"^(?:does|did|was|is|are)\s+the\s+(?:response|module|output)(?:'s)?\s+(?:\w+ly\s+)?"
                    r"(?:identify|notice|see|analy[sz]e|apply)?\s*(?:that|whether|,\s*as)?\s*", re.I)
_ANCHOR_FRAME = re.compile(r"\bthe response\b\s*(?:\w+ly\s+)?(?:states|points out|names|identifies)?\s*(?:that)?\s*",
                           re.I)
# the contrast a question draws, set off by a comma or a bracket ("…structure, rather than a \"difficult
# negotiation\"", "…(…) instead of accepting the frame"): what the criterion does NOT reward, never a reference of
# its own (inside a clause, "amplify rather than reduce risk", it is part of what is rewarded and stays)
_FOIL = re.compile(r"(?:,|\))\s*(?:rather than|instead of)\s+[^.;:?()]*", re.I)
_CLAUSE = re.compile(r"[.;:?]\s+|,\s+(?:and|so that|rather than|instead of|or)\s+|\s+[—-]\s+|[()]")


EXEMPLARS = Path(__file__).with_name("exemplars.toml")


@cache
def _exemplars() -> tuple[dict[tuple[str, str], tuple[str, ...]], tuple[str, ...]]:
    data = tomllib.loads(EXEMPLARS.read_text(encoding="utf-8"))
    cues: dict[tuple[str, str], list[str]] = {}
    for row in data.get("cue", []):
        cues.setdefault((row["rubric"], row["criterion"]), []).append(row["text"])
    return {k: tuple(v) for k, v in cues.items()}, tuple(row["text"] for row in data.get("neutral", []))


def exemplars(rubric: str, criterion: str) -> list[str]:
    """The labelled paraphrases of one criterion of a shipped rubric (none for another rubric's)."""
    return list(_exemplars()[0].get((rubric, criterion), ()))


def neutral() -> list[str]:
    """The procedure side: PROCEDURE and the labelled neutral sentences."""
    return [*PROCEDURE, *_exemplars()[1]]


def content(text: str) -> str:
    """A criterion's text without the rubric's frame around it."""
    return _ANCHOR_FRAME.sub("", _FRAME.sub("", text or "")).strip()


def references(question: str, anchors: list[str]) -> list[str]:
    """What a criterion rewards, as the texts a cue sentence is compared with: the question and each anchor
    above the lowest, whole and as clauses of at least three words."""
    out: list[str] = []
    for text in [question, *anchors]:
        whole = _FOIL.sub(lambda m: m.group(0)[0].strip(","), content(text))
        for part in [whole, *(p.strip(" .?,") for p in _CLAUSE.split(whole) if p)]:
            if len(part.split()) >= 3 and part not in out:
                out.append(part)
    return out


def scores(sentences: list[str], criteria: list[list[str]], embedder):
    """(cue: sentences × criteria best cosine to the criterion's references, procedure: each sentence's best
    cosine to the neutral side), embedded in one call (cached by the embedder)."""
    import numpy as np

    refs = [(j, r) for j, rs in enumerate(criteria) for r in rs]
    procedure = neutral()
    texts = [r for _, r in refs] + procedure + list(sentences)
    if not sentences:
        return np.zeros((0, len(criteria))), np.zeros(0)
    v = embedder.embed(texts)
    ref_v, proc_v, sent_v = v[:len(refs)], v[len(refs):len(refs) + len(procedure)], v[len(refs) + len(procedure):]
    sim = sent_v @ ref_v.T
    cue = np.full((len(sentences), len(criteria)), -1.0)
    for k, (j, _) in enumerate(refs):
        cue[:, j] = np.maximum(cue[:, j], sim[:, k])
    return cue, (sent_v @ proc_v.T).max(axis=1)


def is_cue(score: float, procedure: float, line: float = LINE) -> bool:
    return score >= line and score > procedure


def unsure(score: float, procedure: float, line: float = LINE) -> bool:
    """Within UNSURE of the line, or of the procedure sentences: the reading could go either way."""
    if is_cue(score, procedure, line):
        return score < line + UNSURE or score - procedure < UNSURE
    return score >= line - UNSURE and score > procedure - UNSURE
