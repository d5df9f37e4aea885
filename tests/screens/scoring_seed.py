"""Test helpers for the scoring screen: a blinded study in a file store, and the screen's text.

The study goes through the real core: the shipped cases and rubrics are
loaded (`bootstrap`), the study is created and frozen from a study file's
text, its runs are written by the run store's writers with final outputs full
of condition tells and model names, and it is blinded (`prepare_study`)
before any app opens it. Item ids come from a counter instead of the random
generator so rater queues, and so snapshots, are the same on every run.
"""

from __future__ import annotations

import hashlib
import html
import re
from contextlib import contextmanager
from pathlib import Path
from unittest.mock import patch

from store import open_store
from store.runs import ensure_runs, finish_run, start_attempt
from workbench.blinding import items as blind_items
from workbench.blinding.items import prepare_study
from workbench.cases.library import bootstrap
from workbench.studies import create_study, freeze_study, load_study, planned_runs

STUDY_MODEL = "openai/gpt-4o-mini"
JUDGE_MODEL = "anthropic/claude-3-5-sonnet"
CASE_ID = "glenda-crock"  # shipped, ready, with its specialised rubric and condition predictions in its notes

# What each condition's final output would carry if nothing scrubbed it.
TELLS = {
    "B1": "[placeholder: mock model] As gpt-4o-mini, I recommend partial compliance to protect funding.\n"
          "RECOMMENDATION: Make the smallest policy change that defuses the threat.\n"
          "REASONING: Funding loss is the biggest near-term danger.\nRISKS:\n- Further demands.\n"
          "CONFIDENCE: high.",
    "B2": "Step by step, the key factors are funding and regulation.\n"
          "RECOMMENDATION: Resist, and brief regulators first.\nREASONING: Giving in invites more demands.\n"
          "RISKS:\n- A smear campaign.\nCONFIDENCE: medium.",
    "B3": "Perspective 1: legal. Perspective 2: communications.\nRECOMMENDATION: Resist publicly.\n"
          "REASONING: Both views see extortion.\nRISKS:\n- Regulatory action.\nCONFIDENCE: medium.",
    "C1": "The coordinator synthesised the five respondents. Respondent 3 named it extortion.\n"
          "RECOMMENDATION: Refuse and disclose the threat.\nREASONING: Four of the respondents agreed.\n"
          "RISKS:\n- Funding pressure.\nCONFIDENCE: medium.",
    "C2": "RESOLVED, by a vote of 4-1, that the committee recommends refusing the demands. The motion was "
          "seconded by the Chair.\nRECOMMENDATION: Refuse; any concession sets a precedent.\n"
          "REASONING: The committee saw that every option was framed by Crock.\nRISKS:\n- Escalation.\n"
          "CONFIDENCE: medium.",
    "C3": "Scenario 1 shows escalation after partial compliance; Scenario 2 shows a smear campaign. The "
          "committee voted 5-0 to refuse.\nRECOMMENDATION: Refuse and prepare.\n"
          "REASONING: Compliance leads to escalating demands.\nRISKS:\n- Escalation.\nCONFIDENCE: medium.",
    "P1": "The chair put the amendment to a vote (3 in favour, 2 against).\nRECOMMENDATION: Refuse.\n"
          "REASONING: The panel members agreed the choice set was pre-framed.\nRISKS:\n- Escalation.\n"
          "CONFIDENCE: medium.",
}


def study_text(name: str, conditions, raters, pilot_items: bool, judge_api_base: str = "", extra: str = "") -> str:
    """`judge_api_base`: the judge is `openai/judge-a` at that address (a loopback server), not the default."""
    judge = (f'model = "openai/judge-a"\napi_base = "{judge_api_base}"\ntemperature = 0.0' if judge_api_base
             else f'model = "{JUDGE_MODEL}"')
    quoted = ", ".join(f'"{c}"' for c in conditions)
    names = ", ".join(f'"{r}"' for r in raters)
    return (f'name = "{name}"\nprotocol = "hindsight"\ncases = ["{CASE_ID}"]\nconditions = [{quoted}]\n'
            f'replicates = 1\nraters = [{names}]\nrubrics = ["anticipation", "epistemic-humility"]\n\n'
            f'[model]\nname = "{STUDY_MODEL}"\n\n[[judges]]\nname = "judge-a"\n{judge}\n\n'
            f"[blinding]\npilot_items = {'true' if pilot_items else 'false'}\nseed = 11\n{extra}")


@contextmanager
def counted_item_ids(study_id: str):
    """Item ids from a counter (ids are unique across the store, so each study gets its own prefix)."""
    prefix = hashlib.sha256(study_id.encode()).hexdigest()[:6]
    counter = iter(range(1, 10_000))
    with patch.object(blind_items, "new_item_id", lambda: f"i-{prefix}{next(counter):04d}"):
        yield


def seed_study(db_path: Path, *, name: str = "glenda-scoring", conditions=("B1", "C2"),
               raters=("rater-a", "rater-b"), pilot_items: bool = False, run: bool = True,
               judge_api_base: str = "", extra: str = "") -> dict:
    """A frozen, finished and blinded study (with `run=False`: frozen, nothing run yet); `extra`: more of the
    study file (a [quality] table). Returns {"study_id", "run_ids"}."""
    db = open_store(db_path)
    try:
        bootstrap(db)
        sid = create_study(db, text=study_text(name, conditions, raters, pilot_items, judge_api_base, extra), name="study.toml")["study_id"]
        freeze_study(db, sid)
        if not run:
            return {"study_id": sid, "run_ids": []}
        plans = planned_runs(db, load_study(db, sid))
        ensure_runs(db, sid, plans)
        for plan in plans:
            start_attempt(db, plan["id"])
            finish_run(db, plan["id"], "done", output={"text": TELLS[plan["condition"]],
                                                       "report": {"recommendation": "", "reasoning": "",
                                                                  "risks": [], "confidence": ""}})
        with counted_item_ids(sid):
            prepare_study(db, sid)
        return {"study_id": sid, "run_ids": [p["id"] for p in plans]}
    finally:
        db.close()


_TEXT = re.compile(r'<text[^>]*?x="([\d.]+)"[^>]*?clip-path="url\(#[\w-]+-line-(\d+)\)"[^>]*>(.*?)</text>', re.S)
CELL_WIDTH = 12.2  # pixels per terminal column in Textual's SVG export


def screen_text(svg: str) -> str:
    """The characters on screen, row by row, from an `export_screenshot()` SVG (text placed by column)."""
    rows: dict[int, dict[int, str]] = {}
    for x, line, content in _TEXT.findall(svg):
        text = html.unescape(re.sub(r"<[^>]+>", "", content)).replace("\xa0", " ")
        row = rows.setdefault(int(line), {})
        col = round(float(x) / CELL_WIDTH)
        for k, ch in enumerate(text):
            row[col + k] = ch
    out = []
    for line in range(max(rows) + 1 if rows else 0):
        row = rows.get(line, {})
        out.append("".join(row.get(c, " ") for c in range(max(row) + 1 if row else 0)).rstrip())
    return "\n".join(out)


def rendered(app) -> str:
    """What the app's screen shows now."""
    return screen_text(app.export_screenshot())
