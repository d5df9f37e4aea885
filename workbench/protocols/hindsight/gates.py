"""The gates `study create` enforces on a hindsight study's cases (seed 000 §III–IV).

For every historical case:

* probe     a contamination probe of the current scenario text on the study's own
            model must exist and must not have recognized the case or predicted part
            of its outcome (`recognized` and `partial` both block, §III step 3);
* cutoff    a strategy-A case's decision must fall after the model's training cutoff,
            `[hindsight] training_cutoff` (no table of model cutoffs ships: the study
            states the one it relies on, and that is pre-registered with it);
* leak      the scenario must not carry outcome facts: a date after the decision date,
            or a sentence that repeats most of an outcome sentence's content words.

A gate can be passed only by a recorded, reasoned override in the study file,
`[[hindsight.overrides]] case = "..." gate = "probe" reason = "..."`, frozen with
the definition and printed in the report.

The corpus rule (§IV: N ≥ 6, at least 2 cases in each of the three recommended
domains) refuses a study with `study_kind = "confirmatory"`, and is a warning
for a pilot study (the default).
"""

from __future__ import annotations

import re
from collections import Counter
from datetime import date

GATES = ("probe", "cutoff", "leak")
STUDY_KINDS = ("pilot", "confirmatory")
CORPUS_DOMAINS = ("organizational", "infrastructure", "policy")
MIN_CASES, MIN_PER_DOMAIN = 6, 2
# A scenario sentence leaks when it holds this share of an outcome sentence's content words (4 at least).
LEAK_SHARE, LEAK_MIN_WORDS = 0.7, 4
MIN_REASON_WORDS = 5

_MONTHS = {m: i for i, m in enumerate(("january", "february", "march", "april", "may", "june", "july", "august",
                                       "september", "october", "november", "december"), start=1)}
_DATE = re.compile(r"\b(?:(" + "|".join(_MONTHS) + r")\s+)?((?:19|20)\d\d)(?:-(\d\d)(?:-(\d\d))?)?\b", re.IGNORECASE)
_STOP = set("""a an the and or but if then than that this these those of to in on at by for with from as is are was
were be been being it its into over under about after before during their there they them we our you your he she
his her not no so such can could would should may might will shall has have had do does did also more most less
which who whom what when where why how all any each other some""".split())


def content_words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9][a-z0-9'-]*", text.lower()) if w not in _STOP and len(w) > 2}


def sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+|\n+", text or "") if s.strip()]


def later_dates(scenario: str, decision_end: date) -> list[str]:
    """Dates the scenario mentions that begin after the decision date's last day."""
    out = []
    for m in _DATE.finditer(scenario or ""):
        month_name, year, month, day = m.groups()
        year = int(year)
        month = int(month) if month else (_MONTHS[month_name.lower()] if month_name else 1)
        try:
            start = date(year, month, int(day) if day else 1)
        except ValueError:
            continue
        if start > decision_end:
            out.append(m.group(0))
    return out


def leaked_sentences(scenario: str, outcome: str) -> list[tuple[str, str]]:
    """(scenario sentence, outcome sentence) pairs where the scenario repeats the outcome."""
    out = []
    outcome_sents = [(o, content_words(o)) for o in sentences(outcome)]
    for s in sentences(scenario):
        words = content_words(s)
        for o, ow in outcome_sents:
            if len(ow) >= LEAK_MIN_WORDS and len(words & ow) / len(ow) >= LEAK_SHARE:
                out.append((s, o))
                break
    return out


def study_probes(db, case_id: str, document: dict, model: str) -> list[dict]:
    """Probes of this case's current scenario on `model`, from the store and the case file, newest first."""
    from store.probes import probes_for_case
    from workbench.cases.model import text_hash

    scenario = (document.get("scenario") or "").strip()
    found = [{"verdict": r["verdict"], "date": r["asked_at"], "origin": "store"}
             for r in probes_for_case(db, case_id)
             if r["model"] == model and (r["prompt"] or "").startswith(scenario)]
    found += [{"verdict": p["verdict"], "date": p["date"], "origin": "case file"}
              for p in document.get("probes") or []
              if p.get("model") == model and (not p.get("scenario_hash") or p["scenario_hash"] == text_hash(scenario))]
    return sorted(found, key=lambda p: p["date"] or "", reverse=True)


def case_gate_problems(db, case_id: str, document: dict, definition: dict) -> dict[str, str]:
    """{gate: why the case fails it} for one historical case."""
    from workbench.cases.model import CONTAMINATED_VERDICTS
    from workbench.cases.validate import date_span

    model = (definition.get("model") or {}).get("name", "")
    fidelity = definition.get("hindsight") or {}
    out: dict[str, str] = {}
    probes = [p for p in study_probes(db, case_id, document, model) if p["verdict"] != "error"]
    if not probes:
        out["probe"] = (f"no contamination probe of its current scenario on the study's model {model} "
                        f"(`workbench --batch probe {case_id} --model {model}`)")
    elif probes[0]["verdict"] in CONTAMINATED_VERDICTS:
        what = "recognized the case" if probes[0]["verdict"] == "recognized" else "predicted part of the outcome"
        out["probe"] = (f"the probe on {model} ({probes[0]['date']}, {probes[0]['origin']}) {what} "
                        f"({probes[0]['verdict']}): transpose it (strategy B) or leave it out")
    decision = document.get("decision_date") or ""
    try:
        start, end = date_span(decision) if decision else (None, None)
    except ValueError:
        start = end = None
    if "A" in (document.get("strategies") or []):
        cutoff = fidelity.get("training_cutoff") or ""
        if not cutoff:
            out["cutoff"] = ("strategy A (post-cutoff) needs the model's training cutoff: set "
                             "[hindsight] training_cutoff = \"YYYY-MM\"")
        elif start is not None and start <= date_span(cutoff)[1]:
            out["cutoff"] = (f"strategy A: the decision date {decision} is not after the model's training cutoff "
                             f"{cutoff}, so the model may know the outcome")
    if end is not None:
        dates = later_dates(document.get("scenario") or "", end)
        leaks = leaked_sentences(document.get("scenario") or "", document.get("outcome") or "")
        why = []
        if dates:
            why.append(f"the scenario mentions {', '.join(sorted(set(dates)))}, after the decision date {decision}")
        if leaks:
            s, o = leaks[0]
            why.append(f"the scenario sentence \"{s[:80]}\" repeats the outcome record (\"{o[:80]}\")"
                       + (f" and {len(leaks) - 1} more" if len(leaks) > 1 else ""))
        if why:
            out["leak"] = "; ".join(why)
    return out


def check_overrides(c, raw: list) -> list[dict]:
    """`[[hindsight.overrides]]` entries: case, gate, reason (at least five words)."""
    out = []
    if not isinstance(raw, list):
        c.bad("hindsight.overrides", "must be a list of tables [[hindsight.overrides]]")
        return out
    for i, entry in enumerate(raw):
        where = "hindsight.overrides"
        if not isinstance(entry, dict):
            c.bad(where, f"entry {i + 1} must be a table with case, gate and reason")
            continue
        c.unknown(entry, ("case", "gate", "reason"), where)
        case, gate, reason = entry.get("case"), entry.get("gate"), entry.get("reason")
        if not isinstance(case, str) or not case:
            c.bad(where, f"entry {i + 1}: case must name a case of the study")
        if gate not in GATES:
            c.bad(where, f"entry {i + 1}: gate must be one of {', '.join(GATES)}")
        if not isinstance(reason, str) or len(reason.split()) < MIN_REASON_WORDS:
            c.bad(where, f"entry {i + 1}: an override needs its reason, in at least {MIN_REASON_WORDS} words")
        out.append({"case": case, "gate": gate, "reason": reason})
    return out


def corpus_problems(documents: list[dict]) -> list[str]:
    """Where the study's cases fall short of seed 000 §IV's corpus rule; [] when they meet it."""
    out = []
    if len(documents) < MIN_CASES:
        out.append(f"the corpus has {len(documents)} case(s); seed 000 §IV asks for at least {MIN_CASES}")
    per = Counter(d.get("domain") for d in documents)
    short = [f"{dom} {per.get(dom, 0)}" for dom in CORPUS_DOMAINS if per.get(dom, 0) < MIN_PER_DOMAIN]
    if short:
        out.append(f"at least {MIN_PER_DOMAIN} cases are needed in each of {', '.join(CORPUS_DOMAINS)} "
                   f"(has {', '.join(short)})")
    return out


def check_study_cases(db, definition: dict, c) -> None:
    """Refuse (through `c`) a study whose historical cases fail a gate not overridden, and a
    confirmatory study whose corpus falls short."""
    from store import cases as case_rows

    fidelity = definition.get("hindsight") or {}
    overridden = {(o["case"], o["gate"]) for o in fidelity.get("overrides", [])}
    documents = []
    for case_id in definition["cases"]:
        row = case_rows.get_case(db, case_id)
        if row is None or row["status"] != "ready":
            continue  # reported by check_cases
        documents.append(row["document"])
        if row["document"].get("type") != "historical":
            continue
        for gate, why in case_gate_problems(db, case_id, row["document"], definition).items():
            if (case_id, gate) not in overridden:
                c.bad("cases", f"case '{case_id}' fails the {gate} gate: {why}; or record an override "
                               f"[[hindsight.overrides]] case = \"{case_id}\" gate = \"{gate}\" reason = \"...\"")
    for o in fidelity.get("overrides", []):
        if o["case"] not in definition["cases"]:
            c.bad("hindsight.overrides", f"overrides case '{o['case']}', which the study does not name")
    if fidelity.get("study_kind") == "confirmatory":
        for why in corpus_problems(documents):
            c.bad("cases", f"a confirmatory study needs the full corpus: {why}")
