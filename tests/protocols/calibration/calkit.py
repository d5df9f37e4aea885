"""Shared by the calibration tests: a store, a calibration study definition, a gateway, scripted judges."""

from __future__ import annotations

import json
import re

from store import open_store
from tests.support.gateways import test_gateway
from workbench.protocols.calibration import PROTOCOL
from workbench.protocols.calibration.section import DEFAULTS

JUDGES = ("claude", "gpt4o-mini", "llama")


def make_db(tmp_path):
    from workbench.cases.library import bootstrap

    path = tmp_path / "store.db"
    db = open_store(path)
    bootstrap(db)
    return db, path


def definition(name: str = "cal-test", *, section: dict | None = None, judges=JUDGES, api_base: str = "",
               models: dict | None = None) -> dict:
    """A study definition as the shared parser would fill it, with the calibration section checked."""
    problems: list[tuple[str, str]] = []
    judge_rows = [{"name": j, "model": (models or {}).get(j, "mock" if not api_base else f"openai/{j}"),
                   "api_base": api_base, "temperature": 0.0, "pipeline": "direct", "runs": 1} for j in judges]
    d = {"name": name, "protocol": "calibration", "description": "", "cases": [], "conditions": list(judges),
         "replicates": 1, "raters": [], "rubrics": ["calibration-content-quality"], "cost_ceiling": None,
         "model": {"name": "mock", "api_base": "", "temperature": 0.0, "seed": 7, "max_tokens": 256,
                   "timeout": 20.0},
         "judges": judge_rows, "thresholds": {}, "blinding": {}}
    d["calibration"] = PROTOCOL.check_section({"calibration": section or {}}, d,
                                              lambda k, m: problems.append((k, m)))
    assert not problems, problems
    return d


def study_file(tmp_path, name: str, judges: list[dict], *, sample_size: int = 30, extra: str = ""):
    """A calibration study file on disk: `judges` as [[judges]] tables (name, model, and optional api_base and
    temperature), the generator seeded, the judges' runs on `mock`'s model section."""
    tables = "".join("\n[[judges]]\n" + "".join(f"{k} = {json.dumps(v)}\n" for k, v in j.items()) for j in judges)
    text = (f'name = "{name}"\nprotocol = "calibration"\n\n[model]\nname = "mock"\nseed = 5\ntimeout = 20\n'
            f"{tables}\n[calibration]\nsample_size = {sample_size}\nper_bin = 10\n{extra}\n"
            "[calibration.generator]\nper_bin = 10\nseed = 9\n")
    path = tmp_path / f"{name}.toml"
    path.write_text(text, encoding="utf-8")
    return path


def save(db, d: dict) -> str:
    from store import studies as study_rows

    study_rows.save_study(db, study_id=d["name"], name=d["name"], protocol="calibration", definition=d,
                          source_text=None, cost_ceiling=None)
    return d["name"]


def freeze(db, study_id: str) -> str:
    """Freeze the study: no calibration metric is shown before (results.require_frozen)."""
    from workbench.studies.freeze import freeze_study

    freeze_study(db, study_id)
    return study_id


gateway = test_gateway


def artifact_of(body: dict) -> str:
    user = next(m["content"] for m in body["messages"] if m["role"] == "user")
    m = re.search(r"<<<\n(.*?)\n>>>", user, re.DOTALL)
    return m.group(1) if m else ""


def judge_of(body: dict) -> str:
    return body.get("model", "").split("/")[-1]


def scripted_scores(score_of):
    """A loopback responder: `score_of(judge, artifact)` → a score (float) or a raw reply (str)."""
    def respond(body: dict) -> str:
        value = score_of(judge_of(body), artifact_of(body))
        return value if isinstance(value, str) else json.dumps({"score": value, "reason": "scripted"})
    return respond


__all__ = ["DEFAULTS"]


def scored_study(tmp_path, name: str = "cal-screens"):
    """A study of 60 generated interactions, 6 of them scored by the three judges (one judge_error)."""
    from store.outputs import write_output
    from store.runs import ensure_runs

    db, _ = make_db(tmp_path)
    # ten reliability bins, so that some stay empty (the six grid values leave four without an interaction)
    d = definition(name, section={"generator": {"per_bin": 10, "seed": 5}, "per_bin": 10, "n_bins": 10})
    sid = save(db, d)
    PROTOCOL.load_items(db, sid, d)
    freeze(db, sid)
    items = ["baseline-01:i000000", "baseline-02:i000013", "baseline-03:i000026", "baseline-04:i000039",
             "baseline-01:i000052", "baseline-02:i000005"]
    scores = [[0.1, 0.2, 0.1], [0.3, 0.3, 0.5], [0.5, 0.4, 0.6], [0.6, 0.7, 0.6], [0.9, 0.8, 0.9], [None, 0.2, 0.3]]
    ensure_runs(db, sid, [{"id": f"{i}/{j}", "case_id": i, "condition": j, "replicate": 0}
                          for i in items for j in JUDGES])
    for i, row in zip(items, scores):
        for j, s in zip(JUDGES, row):
            rep = {"judge": j, "model": "mock", "score": s, "judge_error": s is None, "run_id": i.split(":")[0],
                   "interaction_id": i.split(":")[1]}
            write_output(db, f"{i}/{j}", str(s), rep)
    return db, sid
