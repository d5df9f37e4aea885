"""Contamination probe results (seed 000 §III), one row per probe of a case on a model."""

from __future__ import annotations

import json

import sqlite_utils

from store.db import writer


def add_probe(db: sqlite_utils.Database, *, case_id: str, model: str, api_base: str | None, asked_at: str,
              prompt: str, answer: str | None, verdict: str, classifier_raw: str | None, flagged: bool,
              call_ids: list[int], classification: dict | None = None) -> int:
    """`classification`: the classifier's side (its model, own verdict, identified event, the paraphrase check)."""
    with writer(db):
        table = db["probes"].insert({
            "case_id": case_id, "model": model, "api_base": api_base, "asked_at": asked_at, "prompt": prompt,
            "answer": answer, "verdict": verdict, "classifier_raw": classifier_raw, "flagged": int(flagged),
            "call_ids": json.dumps(call_ids),
            "classification": json.dumps(classification) if classification is not None else None,
        })
        return table.last_pk


def probes_for_case(db: sqlite_utils.Database, case_id: str) -> list[dict]:
    return [dict(r) for r in db["probes"].rows_where("case_id = ?", [case_id], order_by="asked_at desc")]
