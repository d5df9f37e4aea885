"""The shipped debate library: topic files and persona-pair files, validated with file:line errors.

Layout (under `cases/faultline/` by default, or the study's `faultline.library`):

    topics/<id>.toml   a debate question, its contested claims and its verifiable claims (the ACC set)
    pairs/<id>.toml    two personas with their worldviews and the pair's initial divergence

Every problem names the file, the line and the key; nothing is loaded from a
library with any problem in it.
"""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from workbench.problems import CaseError, Problem
from workbench.studies.definition import key_lines

ID = re.compile(r"^[a-z0-9][a-z0-9-]{1,62}$")
CLAIM_ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,62}$")
DIVERGENCE = ("low", "medium", "high")
DEFAULT_LIBRARY = Path(__file__).resolve().parents[3] / "cases" / "faultline"

TOPIC_KEYS = ("id", "title", "question", "contested", "verifiable")
PAIR_KEYS = ("id", "divergence", "description", "personas")
PERSONA_KEYS = ("id", "name", "worldview")


@dataclass
class Library:
    topics: dict[str, dict]   # id → {"id", "title", "question", "contested": [...], "verifiable": [...], "source"}
    pairs: dict[str, dict]    # id → {"id", "divergence", "description", "personas": [2 × {...}], "source"}


def content_hash(payload: dict) -> str:
    return hashlib.sha256(json.dumps(payload, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


class _File:
    def __init__(self, path: Path, text: str):
        self.name, self.lines, self.problems = str(path), key_lines(text), []

    def line_of(self, key: str) -> int:
        """The key's line, else its nearest enclosing table's, else 1."""
        while key:
            if key in self.lines:
                return self.lines[key]
            parent = re.sub(r"(\[\d+\]|\.[^.\[\]]+)$", "", key)
            key = "" if parent == key else parent
        return 1

    def bad(self, key: str, message: str) -> None:
        self.problems.append(Problem(self.name, self.line_of(key), key, message))

    def text(self, table: dict, key: str, path: str) -> str:
        value = table.get(key)
        if not isinstance(value, str) or not value.strip():
            self.bad(path, "is required: a non-empty string" if value is None else "must be a non-empty string")
            return ""
        return value.strip()

    def unknown(self, table: dict, allowed: tuple[str, ...], prefix: str) -> None:
        for k in table:
            if k not in allowed:
                self.bad(f"{prefix}{k}", f"unknown key; known keys here: {', '.join(allowed)}")

    def array(self, data: dict, key: str) -> list[dict]:
        value = data.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            self.bad(key, f"must be an array of tables ([[{key}]])")
            return []
        return value


def _read(path: Path, problems: list[Problem]) -> tuple[_File, dict] | None:
    text = path.read_text(encoding="utf-8")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"line (\d+)", str(exc))
        problems.append(Problem(str(path), int(m.group(1)) if m else 1, "toml", f"invalid TOML: {exc}"))
        return None
    return _File(path, text), data


def _check_id(f: _File, value: str, path: Path, key: str = "id") -> None:
    if value and not ID.match(value):
        f.bad(key, "must be 2-63 lowercase letters, digits and '-'")
    elif value and value != path.stem:
        f.bad(key, f"'{value}' differs from the file name '{path.stem}'; name the file <id>.toml")


def parse_topic(path: Path, problems: list[Problem]) -> dict | None:
    read = _read(path, problems)
    if read is None:
        return None
    f, data = read
    f.unknown(data, TOPIC_KEYS, "")
    topic = {"id": f.text(data, "id", "id"), "title": f.text(data, "title", "title"),
             "question": f.text(data, "question", "question"), "contested": [], "verifiable": []}
    _check_id(f, topic["id"], path)
    seen: set[str] = set()
    for kind in ("contested", "verifiable"):
        for i, row in enumerate(f.array(data, kind)):
            where = f"{kind}[{i}]"
            allowed = ("id", "claim") if kind == "contested" else ("id", "claim", "truth", "source")
            f.unknown(row, allowed, where + ".")
            claim = {"id": f.text(row, "id", f"{where}.id"), "claim": f.text(row, "claim", f"{where}.claim")}
            if claim["id"] and not CLAIM_ID.match(claim["id"]):
                f.bad(f"{where}.id", "must be lowercase letters, digits and '-'")
            if claim["id"] in seen:
                f.bad(f"{where}.id", f"'{claim['id']}' is used twice in this topic")
            seen.add(claim["id"])
            if kind == "verifiable":
                if not isinstance(row.get("truth"), bool):
                    f.bad(f"{where}.truth", "is required: true or false (the claim's ground truth)")
                claim["truth"] = row.get("truth") is True
                claim["source"] = f.text(row, "source", f"{where}.source")
            topic[kind].append(claim)
    if not topic["contested"]:
        f.bad("contested", "a topic needs at least one contested claim ([[contested]])")
    problems.extend(f.problems)
    topic["source"] = f"{path.parent.name}/{path.name}"
    return None if f.problems else topic


def parse_pair(path: Path, problems: list[Problem]) -> dict | None:
    read = _read(path, problems)
    if read is None:
        return None
    f, data = read
    f.unknown(data, PAIR_KEYS, "")
    pair = {"id": f.text(data, "id", "id"), "divergence": data.get("divergence"),
            "description": data.get("description", ""), "personas": []}
    _check_id(f, pair["id"], path)
    if pair["divergence"] not in DIVERGENCE:
        f.bad("divergence", f"must be one of {', '.join(DIVERGENCE)} (the pair's initial epistemic divergence)")
    rows = f.array(data, "personas")
    if len(rows) != 2:
        f.bad("personas", f"a pair has exactly two personas ([[personas]] twice), not {len(rows)}")
    for i, row in enumerate(rows):
        where = f"personas[{i}]"
        f.unknown(row, PERSONA_KEYS, where + ".")
        persona = {k: f.text(row, k, f"{where}.{k}") for k in PERSONA_KEYS}
        if persona["id"] and not ID.match(persona["id"]):
            f.bad(f"{where}.id", "must be 2-63 lowercase letters, digits and '-'")
        pair["personas"].append(persona)
    if len(rows) == 2 and pair["personas"][0]["id"] == pair["personas"][1]["id"]:
        f.bad("personas[1].id", "the two personas need different ids")
    problems.extend(f.problems)
    pair["source"] = f"{path.parent.name}/{path.name}"
    return None if f.problems else pair


def load_library(root: Path | str | None = None) -> Library:
    """Read and validate every topic and pair under `root`; raises CaseError listing every problem."""
    root = Path(root) if root else DEFAULT_LIBRARY
    problems: list[Problem] = []
    if not (root / "topics").is_dir() or not (root / "pairs").is_dir():
        raise CaseError([Problem(str(root), 1, "library", "needs a topics/ and a pairs/ folder")])
    topics, pairs = {}, {}
    for path in sorted((root / "topics").glob("*.toml")):
        t = parse_topic(path, problems)
        if t:
            topics[t["id"]] = t
    for path in sorted((root / "pairs").glob("*.toml")):
        p = parse_pair(path, problems)
        if p:
            pairs[p["id"]] = p
    personas: dict[str, str] = {}
    for p in pairs.values():  # a persona id names one worldview across the library (graphs are keyed by it)
        for persona in p["personas"]:
            if persona["id"] in personas:
                problems.append(Problem(str(root / "pairs" / f"{p['id']}.toml"), 1, "personas",
                                        f"persona '{persona['id']}' is also defined in {personas[persona['id']]}"))
            personas[persona["id"]] = p["source"]
    if problems:
        raise CaseError(problems)
    return Library(topics, pairs)
