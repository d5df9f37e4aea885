"""The study's items: one `debate` item per (topic × persona pair), one `topic` item per topic
(what the single-agent and self-consistency baselines answer)."""

from __future__ import annotations

from pathlib import Path

import sqlite_utils

from workbench.protocols.faultline.library import Library, content_hash, load_library

DEBATE, TOPIC = "debate", "topic"


def debate_id(topic_id: str, pair_id: str) -> str:
    return f"{topic_id}--{pair_id}"


def library_for(section: dict, base_dir: str | None = None) -> Library:
    root = section.get("library") or None
    if root and not Path(root).is_absolute() and base_dir:
        root = str(Path(base_dir) / root)
    return load_library(root)


def study_items(library: Library, section: dict) -> list[dict]:
    """The items of a study, in a stable order: every topic, then every topic × pair."""
    out = []
    for tid in section["topics"]:
        topic = library.topics[tid]
        payload = {"kind": TOPIC, "topic": topic}
        out.append({"id": tid, "payload": payload, "content_hash": content_hash(payload),
                    "source": topic["source"], "kind": TOPIC})
    for tid in section["topics"]:
        for pid in section["pairs"]:
            payload = {"kind": DEBATE, "topic": library.topics[tid], "pair": library.pairs[pid]}
            out.append({"id": debate_id(tid, pid), "payload": payload, "content_hash": content_hash(payload),
                        "source": f"{library.topics[tid]['source']} × {library.pairs[pid]['source']}",
                        "kind": DEBATE})
    return out


def load_study_items(db: sqlite_utils.Database, study_id: str, section: dict, base_dir: str | None = None) -> int:
    from store.items import add_items

    items = study_items(library_for(section, base_dir), section)
    added = 0
    for kind in (TOPIC, DEBATE):
        added += add_items(db, study_id, [i for i in items if i["kind"] == kind], kind=kind)
    return added


def study_personas(db: sqlite_utils.Database, study_id: str) -> list[dict]:
    """Every persona of the study's pairs, once, in pair order."""
    from store.items import iter_items

    seen: dict[str, dict] = {}
    for item in iter_items(db, study_id, kind=DEBATE):
        for p in item["payload"]["pair"]["personas"]:
            seen.setdefault(p["id"], p)
    return list(seen.values())
