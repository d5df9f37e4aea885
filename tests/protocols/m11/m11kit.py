"""Test kit for the M11 protocol: a store with an M11 study, a real gateway, and a scripted model that
plays every pipeline stage from the request alone (the same request always gets the same reply)."""

from __future__ import annotations

import json
import re

from store import open_store
from tests.support.gateways import test_gateway
from workbench.gateway import ModelSettings
from workbench.gateway.retry import RetryPolicy

FAST_RETRY = RetryPolicy(max_attempts=2, base_delay=0.01, max_delay=0.05, max_total=5.0)

EXAMPLE_A = {"id": "seed-a-earbuds", "title": "ZKX SonicPulse True Wireless Earbuds",
             "validated_use": "Listening to audio",
             "attribute_table": ["Bluetooth 5.2", "Deep Bass", "32hr Battery", "IP54 Water Resistant"],
             "hard_constraints": [], "expected": [],
             "reasoning": "Applied 3-step test: Bluetooth 5.2 is VERSION (NEVER category). Deep Bass is QUALITY. "
                          "Battery is PERFORMANCE. Water Resistant is DURABILITY. All fail Step 2 - none are "
                          "MECHANISMS. Conclusion: 0 hard constraints."}
EXAMPLE_B = {"id": "seed-b-water-bottle", "title": "Hydro Flask Wide Mouth Water Bottle",
             "validated_use": "Carrying drinks for hydration",
             "attribute_table": ["Stainless Steel", "Vacuum Insulated", "BPA-Free", "24oz"],
             "hard_constraints": ["Stainless Steel", "BPA-Free"], "expected": [],
             "reasoning": "Stainless steel is required for durability. BPA-free is required for safety."}

# Seed 003 §6: the debates of Examples A and B, as the scripted model plays them.
SCRIPTS = {
    "ZKX SonicPulse True Wireless Earbuds": {
        "weaknesses": [("minor", "relevance", "Reasoning could explicitly state the validated use alignment"),
                       ("minor", "reasoning", "Could mention that basic earbuds without these features still work"),
                       ("minor", "clarity", "Could reference the expected distribution (most products = 0)")],
        "verdicts": ["partially valid", "valid", "invalid"],
        "scores": {"accuracy": 5, "relevance": 4, "completeness": 5, "clarity": 4, "reasoning": 4},
        "summary": "Correct: 0 hard constraints for earbuds, 3-step test applied."},
    "Hydro Flask Wide Mouth Water Bottle": {
        "weaknesses": [("critical", "accuracy", "Stainless Steel is MATERIAL - plastic bottles hold liquid too"),
                       ("critical", "accuracy", "BPA-Free is SAFETY certification - non-BPA bottles still hold liquid"),
                       ("major", "reasoning", "3-step test not applied"),
                       ("major", "reasoning", "Reasoning confuses quality/safety with mechanism")],
        "verdicts": ["valid", "valid", "valid", "valid"],
        "scores": {"accuracy": 1, "relevance": 2, "completeness": 3, "clarity": 3, "reasoning": 1},
        "summary": "Over-constrained: materials and safety listed as mechanisms."},
}
DEFAULT_SCRIPT = {"weaknesses": [("minor", "clarity", "Terse"), ("minor", "reasoning", "Test implicit"),
                                 ("minor", "completeness", "One attribute skipped")],
                  "verdicts": ["valid", "partially valid", "invalid"],
                  "scores": {"accuracy": 4, "relevance": 4, "completeness": 4, "clarity": 4, "reasoning": 4},
                  "summary": "Reasonable output."}


def stage_of(body: dict) -> str:
    system = body["messages"][0]["content"]
    for stage, marker in (("critic", "You are the Critic"), ("defender", "You are the Defender"),
                          ("judge", "You are the Judge"), ("metajudge", "You are the MetaJudge"),
                          ("binary", "single pass or fail")):
        if marker in system:
            return stage
    return ""


def title_of(body: dict) -> str:
    m = re.search(r"PRODUCT: (.+)", body["messages"][-1]["content"])
    return m.group(1).strip() if m else ""


def scripted(body: dict, overrides: dict | None = None) -> str:
    """The reply of one stage for the item in the request; `overrides`: stage -> reply text or callable."""
    stage, title = stage_of(body), title_of(body)
    if overrides and stage in overrides:
        got = overrides[stage]
        got = got(body) if callable(got) else got
        if got is not None:
            return got
    s = SCRIPTS.get(title, DEFAULT_SCRIPT)
    if stage == "critic":
        return json.dumps({"weaknesses": [{"id": f"W{i}", "severity": sev, "category": cat, "issue": issue,
                                           "evidence": "the output"} for i, (sev, cat, issue)
                                          in enumerate(s["weaknesses"], start=1)]})
    if stage == "defender":
        return json.dumps({"rebuttals": [{"id": f"W{i}", "verdict": v, "argument": "as the output shows"}
                                         for i, v in enumerate(s["verdicts"], start=1)]})
    if stage == "judge":
        return "```json\n" + json.dumps({"scores": {c: {"score": v, "evidence": f"{c} evidence"}
                                                    for c, v in s["scores"].items()},
                                         "summary": s["summary"]}) + "\n```"
    if stage == "metajudge":
        return json.dumps({"sycophantic": False, "reason": "scores follow the evidence"})
    if stage == "binary":
        ok = sum(s["scores"].values()) / 5 >= 3.5
        return json.dumps({"verdict": "PASS" if ok else "FAIL", "reason": "scripted"})
    return "unscripted"


def make_store(tmp_path):
    from workbench.cases.library import import_rubrics

    db_path = tmp_path / "store.db"
    db = open_store(db_path)
    import_rubrics(db)
    return db, db_path


def gateway(db, db_path, *, replay_only: bool = False, **config):
    config.setdefault("retry", FAST_RETRY)
    return test_gateway(db, db_path, replay_only=replay_only, **config)


def settings(server) -> ModelSettings:
    return ModelSettings(model="openai/loopback-m11", api_base=server.url, temperature=0.7, seed=7,
                         max_tokens=256, timeout=10.0)


def definition(name: str = "m11-test", *, items: str = "items.jsonl", runs: int = 1, limit: int = 0,
               conditions=("likert", "binary"), model: str = "openai/loopback-m11", api_base: str = "") -> dict:
    return {"name": name, "protocol": "m11", "description": "", "conditions": list(conditions), "replicates": 1,
            "raters": ["rater-a", "rater-b"], "rubrics": ["m11-likert"], "cost_ceiling": None,
            "model": {"name": model, "api_base": api_base, "temperature": 0.7, "seed": 7, "max_tokens": 256,
                      "timeout": 10.0},
            "judges": [], "thresholds": {"human_r": 0.85}, "blinding": {"overlap": 1.0, "pilot_items": False, "seed": 5},
            "m11": {"items": items, "module": "M11", "runs": runs, "limit": limit, "injection": "exclude",
                    "human_sample": 20, "human_seed": 5}}


def write_items(path, records) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return str(path)


def save_study(db, definition_: dict) -> str:
    from store.studies import save_study as save

    save(db, study_id=definition_["name"], name=definition_["name"], protocol="m11", definition=definition_,
         source_text=None, cost_ceiling=None)
    return definition_["name"]


def plan_runs(db, study_id: str, definition_: dict) -> list[dict]:
    """Run rows for the protocol's planned runs (what the shared runner does before it runs)."""
    from store.runs import ensure_runs, list_runs
    from workbench.protocols.m11 import PROTOCOL

    plans = PROTOCOL.planned_runs(db, study_id, definition_)
    ensure_runs(db, study_id, [{"id": f"{study_id}/{p.item_id}/{p.condition}/{p.replicate}", "case_id": p.item_id,
                                "condition": p.condition, "replicate": p.replicate} for p in plans])
    return list_runs(db, study_id)


async def run_all(db, gw, study_id: str, definition_: dict, run_settings: ModelSettings, sink=None) -> list[dict]:
    """Run every pending planned run through the protocol's program and store its output, as the runner does."""
    from store.items import get_item
    from store.runs import add_usage, finish_run, start_attempt
    from workbench.events import ListSink
    from workbench.protocols.m11 import PROTOCOL
    from workbench.runs.context import RunContext, draw_settings

    sink = sink or ListSink()
    rows = plan_runs(db, study_id, definition_)
    for row in rows:
        if row["status"] == "done":
            continue
        start_attempt(db, row["id"])
        ctx = RunContext(gateway=gw, sink=sink, settings=draw_settings(run_settings, row["replicate"]),
                         item=get_item(db, study_id, row["case_id"])["payload"], options=definition_["m11"],
                         study_id=study_id, run_id=row["id"], case_id=row["case_id"], condition=row["condition"],
                         replicate=row["replicate"], draw=row["replicate"], definition=definition_,
                         on_result=lambda turn, r, run_id=row["id"]: add_usage(db, run_id, r.input_tokens,
                                                                                r.output_tokens, r.cost))
        out = await PROTOCOL.program(ctx)
        finish_run(db, row["id"], "done", output={"text": out.text, "report": out.report})
    return rows
