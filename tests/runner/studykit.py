"""Shared by the studies, architectures and runner tests: fixture cases, a store, study files,
a real gateway, and a scripted model for the loopback server.

The scripted model answers each step of each architecture from the request
alone (a pure function of the messages), so two runs against it, or a run
killed and resumed, see identical replies.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import textwrap
from pathlib import Path

from store import open_store
from workbench.gateway import GatewayConfig, build_gateway
from workbench.gateway.retry import RetryPolicy

CASE_TEMPLATE = textwrap.dedent('''\
    +++
    id = "{id}"
    title = "{title}"
    type = "constructed"
    domain = "policy"
    status = "{status}"
    strategies = []
    decision_date = ""
    complexity = "high"
    concern_domain = "policy"
    rubric = "{rubric}"
    source = "runner test fixture"

    [criteria]
    clear_decision_point = true
    outcome_visible = true
    knowledge_boundary = true
    causal_record = true
    manageable_contamination = true
    +++

    ## Scenario

    {scenario}

    ## Outcome

    {outcome}
    ''')

CASES = {
    "toll-bridge": dict(
        title="Toll bridge ultimatum", rubric="glenda-crock",
        scenario="A regional transit agency runs the only toll bridge to an island. A freight cartel threatens "
                 "a blockade of the ferry alternative unless the agency exempts cartel trucks from tolls. What "
                 "should the agency do?",
        outcome="Agencies that conceded faced escalating demands within a year."),
    "reservoir-gate": dict(
        title="Reservoir gate automation", rubric="",
        scenario="A water utility plans to automate all forty reservoir gates from one control system over "
                 "three weeks. What risks should it prepare for?",
        outcome="A single bad configuration push opened every gate at once."),
}
DRAFT = dict(title="Unfinished case", rubric="", scenario="Placeholder scenario for a draft.", outcome="")

REPORT = ("RECOMMENDATION: Resist the demands and disclose the threat.\n"
          "REASONING: Conceding sets a precedent that invites further demands.\n"
          "RISKS:\n- A funding campaign against the organization\n- Regulatory action\n"
          "CONFIDENCE: medium, a credible sign the threat is empty would change it.")

FAST_RETRY = RetryPolicy(max_attempts=3, base_delay=0.02, max_delay=0.1, max_total=10.0)


def write_cases(directory: Path, ids=tuple(CASES), draft: bool = False) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    for case_id in ids:
        c = CASES[case_id]
        (directory / f"{case_id}.md").write_text(
            CASE_TEMPLATE.format(id=case_id, status="ready", **c), encoding="utf-8")
    if draft:
        (directory / "unfinished.md").write_text(
            CASE_TEMPLATE.format(id="unfinished", status="draft", **DRAFT), encoding="utf-8")
    return directory


def make_store(tmp_path: Path, *, draft: bool = False):
    """A file store with the shipped rubrics and the fixture cases imported. Returns (db, db_path, cases_dir)."""
    from workbench.cases.library import import_cases, import_rubrics

    cases_dir = write_cases(tmp_path / "cases", draft=draft)
    db_path = tmp_path / "store.db"
    db = open_store(db_path)
    import_rubrics(db)
    import_cases(db, [cases_dir])
    return db, db_path, cases_dir


def study_text(name: str = "test-study", *, cases=("toll-bridge",), conditions=("B1",), model: str = "openai/test",
               api_base: str = "", extra: str = "", replicates: int = 1, seed: int | None = 7) -> str:
    seed_line = f"seed = {seed}\n" if seed is not None else ""
    return (f'name = "{name}"\nprotocol = "hindsight"\ncases = {json.dumps(list(cases))}\n'
            f"conditions = {json.dumps(list(conditions))}\nreplicates = {replicates}\n"
            f'raters = ["rater-a", "rater-b"]\n\n[model]\nname = "{model}"\napi_base = "{api_base}"\n'
            f"temperature = 0.7\n{seed_line}max_tokens = 256\ntimeout = 20\n\n"
            f'[[judges]]\nname = "judge-a"\nmodel = "mock"\n\n{extra}')


def create(db, text: str) -> str:
    from workbench.studies import create_study

    return create_study(db, text=text, name="test.toml")["study_id"]


def gateway(db, db_path, **config):
    config.setdefault("retry", FAST_RETRY)
    config.setdefault("stall_timeout", 5.0)
    g = build_gateway(db, db_path, config=GatewayConfig(**config))
    g._rng = random.Random(7)
    return g


# --- the scripted model --------------------------------------------------------------------------

def _parts(body: dict) -> tuple[str, str, str]:
    msgs = body.get("messages") or []
    sys = next((m["content"] for m in msgs if m.get("role") == "system"), "")
    last = next((m["content"] for m in reversed(msgs) if m.get("role") == "user"), "")
    # the seed is part of the draw, as it is for a model that honours seeds
    tag = hashlib.sha256(json.dumps([msgs, body.get("seed")], sort_keys=True).encode()).hexdigest()[:8]
    return sys, last, tag


def role_of(system_text: str) -> str:
    m = re.match(r"You are the (.+?) on a committee", system_text)
    return m.group(1) if m else ""


def scripted(body: dict) -> str:
    """One reply for every step of every architecture; deterministic in the request."""
    sys, last, tag = _parts(body)
    role = role_of(sys)
    if "Give 3-5 genuinely different perspectives" in last:
        return (f"PERSPECTIVE 1: Operators\nKeep the service running ({tag}).\n\n"
                "PERSPECTIVE 2: Regulators\nThe law forbids selective exemptions.\n\n"
                "PERSPECTIVE 3: The public\nTrust depends on not yielding to threats.\n\n"
                f"SYNTHESIS\nAll three point to resisting.\n\n{REPORT}")
    if "Frame the decision" in last or "Set out the decision" in last:
        return f"FRAMING {tag}: decide whether to comply, resist or negotiate."
    m = re.match(r"You are adviser (\d+) of", sys)
    if m:
        return f"Adviser {m.group(1)} recommends resisting (answer {tag})."
    if "Synthesize the panel's answers" in last:
        return f"The panel mostly agrees ({tag}).\n\n{REPORT}"
    if "generate" in last and "divergent scenarios" in last:
        return "\n\n".join(f"SCENARIO {i}: Path {i}\nHow path {i} unfolds ({tag})." for i in range(1, 5))
    if "As chair, open the meeting" in last:
        return f"The question before us: comply, resist or negotiate? ({tag})"
    if "Give your opening statement" in last:
        return f"Opening statement of the {role} ({tag})."
    if "move a main motion" in last:
        return "MOTION: Resist the demands and disclose the threat publicly.\nThis protects our independence."
    if "Do you second the" in last:  # the main motion or an amendment
        return "SECOND: yes\nThe committee should debate it."
    if "Debate, round" in last:
        speech = f"Debate speech of the {role} ({tag})."
        if role == "Devil's advocate" and "round 1 of" in last:
            speech += "\nAMENDMENT: disclose only after a legal review"
        return speech
    if "puts amendment" in last:
        return "VOTE: aye\nA legal review is prudent."
    if "restate the main motion as amended" in last:
        return "MOTION: Resist the demands and disclose the threat publicly after a legal review."
    if "puts the main motion to a vote" in last:
        if role == "Devil's advocate":
            return "VOTE: nay\nThe committee underrates the shutdown risk."
        if role == "Mediator":
            return "I have doubts either way and will not say."
        return "VOTE: aye\nIt keeps us out of the compliance trap."
    if "write the committee's resolution" in last:
        return f"RESOLVED that the organization resists ({tag}).\n\n{REPORT}"
    if "the sentences of the response that state" in last:  # the report-shape extraction: copy, never add
        from workbench.protocols.hindsight.architectures.report import parse_report

        rep = parse_report(last.split("<<<RESPONSE\n", 1)[1].split("\nRESPONSE>>>", 1)[0])
        return json.dumps({k: ([rep[k]] if rep[k] else []) if k != "risks" else rep[k]
                           for k in ("recommendation", "reasoning", "risks", "confidence")})
    if "Extract its primary recommendation" in last:
        return json.dumps({"recommendation": "Resist the demands",
                           "claims": ["Conceding sets a precedent", "Disclosure removes leverage"]})
    if "Group the runs whose recommendations" in last:
        return json.dumps({"recommendation_groups": [["A", "B", "C"]],
                           "claim_groups": [["A1", "B1", "C1"], ["A2", "B2", "C2"]]})
    if "Given this situation, what should we do?" in last or "Think step by step" in last:
        return f"An answer ({tag}).\n\n{REPORT}"
    return f"unscripted request ({tag})"


def requests_with(server, text: str, where: str = "user") -> list[dict]:
    """The recorded request bodies whose last user (or system) message contains `text`."""
    out = []
    for body in server.requests:
        sys, last, _ = _parts(body)
        if text in (last if where == "user" else sys):
            out.append(body)
    return out
