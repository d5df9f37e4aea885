"""Crux equivalence: when two crux questions ask the same question (CR, seed 002 metric 5).

Two cruxes recur when they ask the same question, not when their words are close. Three methods, named in
the study file (`crux_equivalence`) and in the report:

- MATCHING (the offline default, issue 41, session 12): all-mpnet-base-v2 vectors, read with the repeats'
  structure: a debate asks a crux at most once, so a crux recurs when runs *match* it. Between every two runs,
  a question and its best match in the other run are joined when each is the other's best (mutual best) at
  cosine >= MATCH; joins are taken from the closest down, and one that would put two questions of one run in
  a crux is refused. A rewording then needs no absolute line, only to be its counterpart's nearest question
  (rewordings of the tuning sets sat at cosine 0.45-0.96, different questions of one debate at 0.50-0.65: no
  line parts them, the run structure does most of it). What it cannot decide is flagged (`hinges`): a question
  at mean cosine >= LOW to a crux of runs it is not in, or a member at mean cosine < HIGH to the rest of its
  crux, on whom CR moves by more than CR_SHIFT; and a recurring crux whose questions name opposite directions.
- EMBEDDING (the default of studies stored in session 11, which keep it): all-mpnet-base-v2 sentence vectors
  (a crux reworded across runs sits at cosine 0.66–0.96 under it, 0.49–0.64 under MiniLM) grouped by average-linkage
  clustering cut at a mean cosine of SAME (project's choice, set on tests/corpus/cruxes and checked on
  benchmarks/data-cruxes/held-out.toml). Average linkage, not single: a question near two cruxes does not
  chain them into one. It cannot tell questions apart that differ only in direction ("raise rates" and
  "cut rates" sit at cosine ~0.9): a cluster whose members name opposite directions is flagged
  (`direction_conflicts`), and the report says so. Nor can it decide questions at cosine BAND to SAME: a free
  rewording and two different questions on one subject both sit there; where CR hangs on them (it moves by
  more than CR_SHIFT at some cut of the tree from BAND to SAME), the reading is flagged (`undecided`).
- MODEL: every pair of questions of different runs at cosine >= CANDIDATE is put to the study's extractor
  model ("do these two questions ask the same thing?"), blind to run and condition (the prompt holds the two
  questions only, in a fixed order), through the gateway, whose replay cache answers a pair asked before; the
  reply constrained to SAME | DIFFERENT where the endpoint enforces a schema. The clusters are average linkage
  over the answers (same: 1, different or not a candidate: 0) cut at 0.5. A pair whose answer is unreadable
  counts as different and is counted (`unreadable`); unreadable answers, and a cluster the answers make of
  questions that name opposite directions, flag the reading. So does, since session 18 (`doubts`), a check
  that reads CR more than CR_SHIFT from an unflagged offline default, or that calls different what the offline
  default matches closely (one crux by MATCHING at cosine >= CLOSE, directions agreeing) where CR moves by more
  than CR_SHIFT if they were one question: the smallest model
  here that answers above chance (Qwen2.5-Coder-1.5B, benchmarks/crux_check_models.py) rarely says SAME
  wrongly but says DIFFERENT to many free rewordings, and read a crux reworded in all five runs of an unseen
  set as 0.33 where the offline default, unflagged, read 1.0.

Clusters are labels as `measures.crux_clusters` gives them (−1: a question no other restates).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

from workbench.protocols.faultline import direction

MATCHING, EMBEDDING, MODEL = "matching", "embedding", "model"
METHODS = (MATCHING, EMBEDDING, MODEL)
DEFAULT = MATCHING
CRUX_EMBEDDING = "all-mpnet-base-v2"   # workbench.metrics.embeddings.MPNET_MODEL
SAME = 0.65         # EMBEDDING: a cluster's questions have a mean cosine at or above this (project's choice)
BAND = 0.45         # EMBEDDING: cosines from BAND up to SAME are undecided (`undecided`; project's choice, set on
                    # the tuning sets: the lowest rewording of one question there sits near 0.45)
CR_SHIFT = 0.1      # ... and a CR that moves by more than this at any line in the band is flagged
MATCH = 0.45        # MATCHING: the least cosine of a mutual best match between two runs (project's choice, set on
                    # the tuning sets: every rewording of one crux there is its counterpart's best match at >= 0.45)
LOW, HIGH = 0.35, 0.65   # MATCHING: the undecided band a reading hinges on (`hinges`; LOW set on the tuning sets;
                         # HIGH the top of different questions of one debate there, 0.50-0.65: was 0.55 until round
                         # G3-08 left two such questions at 0.58 and 0.60 in a crux silently)
LINES = {MATCHING: MATCH, EMBEDDING: 0.65}   # each method's `crux_similarity` default
CANDIDATE = LOW     # MODEL: pairs of questions of different runs at or above this cosine are asked: the undecided
                    # band's bottom, so the check sees every near miss an offline reading hangs on (below: too far
                    # apart to be one question; two questions of one run are two cruxes: a debate asks a crux once)
CLOSE = 0.75        # MODEL: a match the check should not split (`doubts`; project's choice, set on the
                    # tests' labelled pairs: none labelled different sits at or above it with its directions agreeing)
CHECK_ROLE = "extractor"
CHECK_TURN = "crux-equivalence"

# The check's prompt and reply (the project's own, session 14): the instruction first and the two questions
# last, ending "Answer:", so that a small model's next words are the answer (SmolLM2-135M echoed "Question A:"
# when the questions came first); the reply constrained to {"answer": "SAME" | "DIFFERENT"} (CHECK_SCHEMA) where
# the endpoint enforces a schema (llama.cpp and llama-cpp-python by grammar), read as plain text otherwise.
CHECK_PROMPT = """Decide whether two questions ask the same thing, so that one answer settles both. Rewordings of \
one question are the same question. Questions about different things, or that differ in direction (for example \
"raise" against "cut", "rise" against "fall", "up" against "unchanged"), are different questions. Reply with one \
word: SAME or DIFFERENT.

Question A: {a}
Question B: {b}
Answer:"""
CHECK_TOKENS = 24   # `read cruxes`: room for the constrained reply (~8 tokens) or a one-word answer and a few more
CHECK_SCHEMA = {"name": "crux_equivalence",
                "schema": {"type": "object", "required": ["answer"],
                           "properties": {"answer": {"type": "string", "enum": ["SAME", "DIFFERENT"]}}}}


def direction_conflicts(questions: list[str], labels) -> list[tuple[str, str]]:
    """A pair of each cluster whose questions' direction words differ (`direction.py`: opposite, or undecided)."""
    found = []
    for label in sorted({int(x) for x in labels} - {-1}):
        members = [(q, direction.read(q)) for q, x in zip(questions, labels) if int(x) == label]
        pair = next(((qa, qb) for i, (qa, da) in enumerate(members) for qb, db in members[i + 1:]
                     if direction.opposite(da, db) or direction.undecided(da, db)), None)
        if pair:
            found.append(pair)
    return found


def average_linkage(similarity, line: float, min_size: int = 2):
    """Labels of average-linkage clusters of a similarity matrix cut at mean similarity `line`; a question
    in a cluster smaller than `min_size` is −1 (noise, as HDBSCAN labels it)."""
    import numpy as np

    if len(similarity) < 2:
        return np.full(len(similarity), -1)
    return _cut(_tree(similarity), line, min_size)


def _tree(similarity):
    """SciPy's average-linkage tree over distance 1 − similarity (symmetrised, clipped at 0)."""
    import numpy as np
    from scipy.cluster.hierarchy import linkage
    from scipy.spatial.distance import squareform

    distance = np.clip(1.0 - np.asarray(similarity, dtype=float), 0.0, None)
    np.fill_diagonal(distance, 0.0)
    return linkage(squareform((distance + distance.T) / 2, checks=False), method="average")


def _cut(tree, line: float, min_size: int):
    import numpy as np
    from scipy.cluster.hierarchy import fcluster

    raw = fcluster(tree, t=1.0 - line + 1e-9, criterion="distance")
    out, next_label = np.full(len(raw), -1), 0
    for value in sorted(set(raw.tolist())):
        idx = np.flatnonzero(raw == value)
        if len(idx) >= max(2, min_size):
            out[idx] = next_label
            next_label += 1
    return out


def matching(similarity, runs: list[str], line: float = MATCH, min_size: int = 2, apart=None):
    """Labels (−1: asked once) of the cruxes the runs match: mutual best matches between every two runs at cosine
    >= `line`, joined from the closest down, never two questions of one run in a crux, nor two questions
    `apart` (True: the direction stage parts them). A question whose best match in a run is a question it is
    apart from has no match there: that run asked the other direction, not this question in other words (its
    next best would be a different question on the same subject); a crux of fewer than `min_size` questions is
    noise."""
    import numpy as np

    sim = np.asarray(similarity, dtype=float)
    n = len(runs)
    apart = np.zeros((n, n), dtype=bool) if apart is None else np.asarray(apart, dtype=bool)
    of = {r: [i for i in range(n) if runs[i] == r] for r in dict.fromkeys(runs)}
    edges = []
    names = list(of)
    for x, a in enumerate(names):
        for b in names[x + 1:]:
            for i in of[a]:
                j = max(of[b], key=lambda k: sim[i, k])
                if max(of[a], key=lambda k: sim[k, j]) == i and sim[i, j] >= line and not apart[i, j]:
                    edges.append((-sim[i, j], i, j))
    members = {i: [i] for i in range(n)}
    home = list(range(n))
    for _, i, j in sorted(edges):
        a, b = home[i], home[j]
        if a == b or {runs[k] for k in members[a]} & {runs[k] for k in members[b]} \
                or apart[np.ix_(members[a], members[b])].any():
            continue
        for k in members[b]:
            home[k] = a
        members[a] += members.pop(b)
    return _labelled(list(members.values()), n, min_size)


def _labelled(groups, n: int, min_size: int):
    import numpy as np

    out, label = np.full(n, -1), 0
    for group in sorted((sorted(g) for g in groups), key=lambda g: g[0]):
        if len(group) >= max(2, min_size):
            out[group] = label
            label += 1
    return out


def hinges(similarity, labels, runs: list[str], questions: list[str], min_size: int = 2, apart=None) -> str:
    """Why a MATCHING reading is not to be trusted, or "". It hangs on questions the embedding cannot decide when
    CR moves by more than CR_SHIFT (a) if one question at mean cosine >= LOW to a crux of runs it is not in
    joined that crux (a free rewording sits that low), or (b) if every member at mean cosine < HIGH to the rest
    of its crux left it (a different question on the crux's subject sits that high); or when (c) a crux asked
    in 3 or more runs joins questions of opposite directions (raise / cut sit at cosine ~0.9)."""
    import numpy as np

    from workbench.protocols.faultline.measures import CR_MIN_RUNS, crux_recurrence

    sim = np.asarray(similarity, dtype=float)
    labels = np.asarray(labels)
    cr = lambda lab: crux_recurrence(sim, runs, min_cluster_size=min_size, labels=lab).value  # noqa: E731
    at = cr(labels)
    if at is None:
        return ""
    groups = {g: list(np.flatnonzero(labels == g)) for g in sorted(set(labels.tolist()) - {-1})}
    for g, ids in groups.items():
        if len({runs[i] for i in ids}) >= CR_MIN_RUNS:
            pair = direction_conflicts([questions[i] for i in ids], [0] * len(ids))
            if pair:
                return ("a crux asked in several runs joins questions whose direction words differ and the "
                        "direction stage cannot part (e.g. " + " / ".join(f'"{q}"' for q in pair[0])
                        + "); read it with the model's check")
    for g, ids in groups.items():
        asked = {runs[i] for i in ids}
        for q in range(len(runs)):
            near = sim[q, ids].mean()
            if runs[q] in asked or near < LOW or (apart is not None and apart[q, ids].any()):
                continue
            moved = labels.copy()
            moved[q] = g
            moved = _relabelled(moved, min_size)
            if abs(cr(moved) - at) > CR_SHIFT:
                return (f'CR is {at:.2f}, {cr(moved):.2f} if "{questions[q]}" (mean cosine {near:.2f}) asks the same '
                        f'question as "{questions[ids[0]]}": a free rewording sits that low, and a different question '
                        "on one subject too; read it with the model's check")
    apart = labels.copy()
    loose = []
    for g, ids in groups.items():
        for i in ids:
            if sim[i, [j for j in ids if j != i]].mean() < HIGH:
                apart[i] = -1
                loose.append(i)
    apart = _relabelled(apart, min_size)
    if loose and abs(cr(apart) - at) > CR_SHIFT:
        return (f'CR is {at:.2f}, {cr(apart):.2f} if the questions at mean cosine below {HIGH} to their crux ask '
                f'other questions (e.g. "{questions[loose[0]]}"): a different question on one subject sits that high, '
                "and a free rewording too; read it with the model's check")
    return ""


def _relabelled(labels, min_size: int):
    """Labels with a crux left below `min_size` questions made noise."""
    import numpy as np

    labels = np.asarray(labels)
    groups = [list(np.flatnonzero(labels == g)) for g in sorted(set(labels.tolist()) - {-1})]
    return _labelled(groups, len(labels), min_size)


def read_check(text: str) -> bool | None:
    """SAME → True, DIFFERENT (or "not the same") → False; None when the reply says both, or neither, or gives
    its answer only in words the prompt itself uses (never guessed). Read in order: the constrained reply's
    `answer`; SAME or DIFFERENT written in capitals, as the prompt asks; else the reply's first word (same,
    different, yes, no). Lower-case "same" past the first word is not read: the instruction says "ask the same
    thing", so a reply echoing it would read SAME."""
    text = re.sub(r"\bnot\s+(?:the\s+)?same\b", "DIFFERENT", text or "", flags=re.IGNORECASE)
    answer = re.search(r'"answer"\s*:\s*"([^"]*)"', text)
    if answer:
        return {"SAME": True, "DIFFERENT": False}.get(answer.group(1).strip().upper())
    said = set(re.findall(r"\b(SAME|DIFFERENT)\b", text))
    if len(said) == 1:
        return said == {"SAME"}
    if said:
        return None
    first = re.search(r"[A-Za-z]+", re.sub(r"^\W*answer\W*", "", text.strip(), flags=re.IGNORECASE))
    return {"SAME": True, "YES": True, "DIFFERENT": False, "NO": False}.get(first.group(0).upper()) if first else None


def pair_prompt(a: str, b: str) -> str:
    """The check's prompt: the two questions only, in sorted order (the same pair is one prompt, whichever
    run asked it first), so nothing tells the model a run, a condition or a model name."""
    first, second = sorted((a.strip(), b.strip()))
    return CHECK_PROMPT.format(a=first, b=second)


@dataclass
class Equivalence:
    labels: list[int]
    method: str                      # the method in words, for the report
    flagged: bool = False
    reason: str = ""
    asked: int = 0                   # MODEL: candidate pairs put to the model
    unreadable: int = 0              # MODEL: answers that were neither SAME nor DIFFERENT
    conflicts: list[tuple[str, str]] = field(default_factory=list)


def by_embedding(questions: list[str], vectors, same: float = SAME, model: str = CRUX_EMBEDDING,
                 min_size: int = 2, runs: list[str] | None = None) -> Equivalence:
    """`runs` (each question's run), when given, lets the reading say when CR hangs on the questions the
    embedding cannot decide (`undecided`)."""
    import numpy as np

    v = np.asarray(vectors, dtype=float)
    similarity = v @ v.T if len(questions) else np.zeros((0, 0))
    labels = average_linkage(similarity, same, min_size) if len(questions) else np.array([], dtype=int)
    conflicts = direction_conflicts(questions, labels)
    why = ("a cluster joins questions that differ in direction (e.g. " + " / ".join(f'"{q}"' for q in conflicts[0])
           + "): embeddings cannot separate raise from cut; read it with the model's check") if conflicts else ""
    if not why and runs is not None and len(questions):
        why = undecided(similarity, labels, runs, same, min_size)
    return Equivalence([int(x) for x in labels], f"{model} cosine, average linkage at mean cosine >= {same}",
                       bool(why), why, conflicts=conflicts)


def by_matching(questions: list[str], vectors, runs: list[str], line: float = MATCH,
                model: str = CRUX_EMBEDDING, min_size: int = 2) -> Equivalence:
    import numpy as np

    v = np.asarray(vectors, dtype=float)
    similarity = v @ v.T if len(questions) else np.zeros((0, 0))
    parted = direction.apart(questions)
    labels = matching(similarity, runs, line, min_size, parted) if len(questions) else np.array([], dtype=int)
    why = hinges(similarity, labels, runs, questions, min_size, parted) if len(questions) else ""
    return Equivalence([int(x) for x in labels], f"{model} cosine, mutual best matches across runs at cosine >= "
                       f"{line}, one question a run in a crux, questions of opposite directions apart (direction "
                       "stage)", bool(why), why,
                       conflicts=direction_conflicts(questions, labels))


def read(method: str, questions: list[str], vectors, runs: list[str], *, line: float | None = None,
         model: str = CRUX_EMBEDDING, min_size: int = 2, ask=None, checker: str = "model") -> Equivalence:
    """The clusters of one repeated debate's crux questions by `method` (the study's `crux_equivalence`)."""
    if method == MODEL:
        return by_model(questions, vectors, ask, checker, embedding=model, min_size=min_size, runs=runs)
    line = LINES[method] if line is None else line
    if method == MATCHING:
        return by_matching(questions, vectors, runs, line, model, min_size)
    return by_embedding(questions, vectors, line, model, min_size, runs=runs)


def undecided(similarity, labels, runs: list[str], same: float = SAME, min_size: int = 2) -> str:
    """Why CR read at `same` is not to be trusted, or "": CR moves by more than CR_SHIFT at some line from BAND
    up to `same` (every cut of the average-linkage tree in that band). A crux reworded freely and two different
    questions on one topic both sit there (the tuning sets: rewordings at 0.45-0.80, different questions of one
    debate at 0.50-0.62), so no line decides them; the model's check does. Every line, not the band's two ends:
    CR is not monotone in the line (a lower line can join a one-off question into a cluster as well as join a
    rewording), so two ends can agree while a line between them, or a line near the bottom, reads otherwise."""
    from workbench.protocols.faultline.measures import crux_recurrence

    if BAND >= same or len(similarity) < 2:
        return ""
    at_line = crux_recurrence(similarity, runs, min_cluster_size=min_size, labels=labels).value
    if at_line is None:
        return ""
    tree = _tree(similarity)
    heights = sorted({round(1.0 - h, 9) for h in tree[:, 2] if BAND <= 1.0 - h < same} | {BAND})
    readings = {line: crux_recurrence(similarity, runs, min_cluster_size=min_size,
                                      labels=_cut(tree, line, min_size)).value for line in heights}
    line, far = max(readings.items(), key=lambda kv: (abs(kv[1] - at_line), kv[0]))
    if abs(far - at_line) <= CR_SHIFT:
        return ""
    return (f"CR is {at_line:.2f} with clusters at mean cosine >= {same} but {far:.2f} at >= {line:.2f} (CR from "
            f"{min(readings.values()):.2f} to {max(readings.values()):.2f} over lines {BAND}-{same}): it hangs on "
            f"questions at cosine {BAND}-{same}, which may or may not ask the same question (a free rewording and "
            "two questions on one subject both sit there); read them with the model's check")


def by_model(questions: list[str], vectors, ask: Callable[[list[str]], list[str]], model_name: str,
             candidate: float = CANDIDATE, embedding: str = CRUX_EMBEDDING, min_size: int = 2,
             runs: list[str] | None = None) -> Equivalence:
    """`ask(prompts)` → one reply a prompt (the gateway's, or a test's mock). `runs` (each question's run), when
    given, leaves pairs of one run unasked and different."""
    import numpy as np

    v = np.asarray(vectors, dtype=float)
    n = len(questions)
    cos = v @ v.T if n else np.zeros((0, 0))
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)
             if cos[i, j] >= candidate and questions[i].strip() != questions[j].strip()
             and (runs is None or runs[i] != runs[j])]
    prompts = sorted({pair_prompt(questions[i], questions[j]) for i, j in pairs})
    answers = dict(zip(prompts, (read_check(t) for t in ask(prompts)))) if prompts else {}
    same = np.eye(n)
    for i in range(n):
        for j in range(i + 1, n):
            if questions[i].strip() == questions[j].strip():
                same[i, j] = same[j, i] = 1.0
    for i, j in pairs:
        same[i, j] = same[j, i] = 1.0 if answers[pair_prompt(questions[i], questions[j])] else 0.0
    unreadable = sum(1 for a in answers.values() if a is None)
    labels = average_linkage(same, 0.5, min_size)
    conflicts = direction_conflicts(questions, labels)
    doubted = doubts(questions, v, runs, same, labels, min_size) if runs and n else ""
    why = "; ".join(filter(None, (
        f"{unreadable} of {len(answers)} answers of the model were neither SAME nor DIFFERENT" if unreadable else "",
        # a small model may call raise and cut one question (SmolLM2-135M does): said, never taken as a recurrence
        ("the model's answers join questions that differ in direction (e.g. "
         + " / ".join(f'"{q}"' for q in conflicts[0]) + ")") if conflicts else "",
        doubted)))
    return Equivalence([int(x) for x in labels],
                       f"{model_name}'s check of every pair" + (" of different runs" if runs is not None else "")
                       + f" at {embedding} cosine >= {candidate}, average linkage over its answers",
                       bool(why), why, asked=len(answers), unreadable=unreadable, conflicts=conflicts)


def doubts(questions: list[str], vectors, runs: list[str], same, labels, min_size: int = 2) -> str:
    """Why the check's clusters (`labels`, from the answers in `same`) are not to be taken, or "", against one
    offline reading (MATCHING) of the same questions: (a) that reading is unflagged and its CR differs from the
    check's by more than CR_SHIFT; (b) the check calls different questions it matches closely (one crux, cosine
    >= CLOSE, directions agreeing), and CR moves by more than CR_SHIFT if those were one question. A small model
    may call free rewordings different (Qwen2.5-Coder-1.5B did, on cruxes reworded across every run of unseen
    sets)."""
    import numpy as np

    from workbench.protocols.faultline.measures import crux_recurrence

    v = np.asarray(vectors, dtype=float)
    sim = v @ v.T
    cr = lambda lab: crux_recurrence(sim, runs, min_cluster_size=min_size, labels=lab).value  # noqa: E731
    checked = cr(labels)
    if checked is None:
        return ""
    offline = by_matching(questions, v, runs, min_size=min_size)
    sure = cr(offline.labels)
    if not offline.flagged and sure is not None and abs(checked - sure) > CR_SHIFT:
        return (f"the model's check reads CR {checked:.2f} where the offline default, sure of these questions, reads "
                f"{sure:.2f}: a small model may call free rewordings different, or join different questions")
    reads = [direction.read(q) for q in questions]
    close = [(i, j) for i in range(len(questions)) for j in range(i + 1, len(questions))
             if offline.labels[i] == offline.labels[j] != -1 and sim[i, j] >= CLOSE and same[i, j] < 1
             and not direction.opposite(reads[i], reads[j]) and not direction.undecided(reads[i], reads[j])]
    if not close:
        return ""
    joined = np.array(same, dtype=float)
    for i, j in close:
        joined[i, j] = joined[j, i] = 1.0
    if_joined = cr(average_linkage(joined, 0.5, min_size))
    if if_joined is None or abs(checked - if_joined) <= CR_SHIFT:
        return ""
    i, j = close[0]
    return (f'CR is {checked:.2f} by the check, {if_joined:.2f} if the {len(close)} close match(es) it calls different '
            f'are one question (e.g. "{questions[i]}" / "{questions[j]}", cosine {sim[i, j]:.2f}): a small model may '
            "call free rewordings different")


def gateway_asker(db, db_path, settings, study_id: str | None) -> Callable[[list[str]], list[str]]:
    """Ask through the gateway (logged, priced, replayed: a pair asked before in the study is not paid
    twice). Each prompt's turn is named by its hash only."""
    import asyncio
    import hashlib

    from workbench.gateway import CallRequest, build_gateway

    gateway = build_gateway(db, db_path)

    async def one(prompt: str) -> str:
        turn = f"{CHECK_TURN}:{hashlib.sha256(prompt.encode()).hexdigest()[:16]}"
        request = CallRequest(messages=[{"role": "user", "content": prompt}], settings=settings, role=CHECK_ROLE,
                              study_id=study_id, turn=turn, agent="crux-checker", response_schema=CHECK_SCHEMA)
        return (await gateway.call(request, None)).text

    async def every(prompts: list[str]) -> list[str]:
        return [await one(p) for p in prompts]

    return lambda prompts: asyncio.run(every(prompts))
