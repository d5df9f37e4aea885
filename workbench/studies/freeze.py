"""Freezing a study: hash what it will run on, and refuse to run once any of it changes.

The freeze covers these artefacts, each stored whole in `frozen_artefacts`
with its own sha256:

- `definition`: the study definition with defaults filled (canonical JSON);
- `rubric`: each rubric's file text (the study's rubrics and any its protocol
  adds, e.g. a hindsight case's specialized rubric), hashed as the rubric
  library hashes it;
- whatever the study's protocol pins (`StudyProtocol.frozen_artefacts`):
  hindsight's `case` (scenario and outcome) and `prompt` (every template),
  another protocol's items, personas or schema.

The freeze hash is the sha256 of the sorted `kind, ref, content hash` lines.
`verify_frozen` recomputes every artefact from its current source (the store's
definition and cases, the case files on disk, the rubric files, the code's
templates) and names each difference.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import sqlite_utils

from store import cases as case_rows
from store import studies as study_rows
from workbench.gateway.api import OPERATIONAL_CONNECTION_KEYS
from workbench.problems import Problem
from workbench.studies.definition import StudyError

# Keys that limit how a study runs without shaping any output: outside the freeze, changeable later.
# The connection keys (a model's connections, timers and key name) may sit in any model table.
OPERATIONAL_KEYS = ("cost_ceiling",)


def frozen_definition(definition: dict) -> dict:
    return _without_connection_keys({k: v for k, v in definition.items() if k not in OPERATIONAL_KEYS})


def _without_connection_keys(value):
    if isinstance(value, dict):
        return {k: _without_connection_keys(v) for k, v in value.items() if k not in OPERATIONAL_CONNECTION_KEYS}
    if isinstance(value, list):
        return [_without_connection_keys(v) for v in value]
    return value


@dataclass(frozen=True)
class Artefact:
    kind: str
    ref: str
    content: str

    @property
    def content_hash(self) -> str:
        return sha256(self.content)

    def row(self) -> dict:
        return {"kind": self.kind, "ref": self.ref, "content": self.content, "content_hash": self.content_hash}


@dataclass(frozen=True)
class Change:
    kind: str
    ref: str
    what: str  # changed | removed | added

    def __str__(self) -> str:
        noun = {"definition": "the study definition", "case": f"case '{self.ref}'",
                "rubric": f"rubric '{self.ref}'", "prompt": f"prompt template '{self.ref}'"}.get(self.kind, f"{self.kind} '{self.ref}'")
        return f"{noun} {self.what}"


class FrozenStudyChanged(Exception):
    """What a frozen study covers has changed since it was frozen: it must not run."""

    def __init__(self, study_id: str, frozen_at: str, freeze_hash: str, changes: list[Change]):
        self.study_id, self.changes = study_id, changes
        listing = "; ".join(str(c) for c in changes)
        super().__init__(
            f"study '{study_id}' was frozen at {frozen_at} (hash {freeze_hash[:12]}) and since then {listing}. "
            "A frozen study cannot change: create a new study (with a new name) to run on the changed material.")


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def canonical(value) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def freeze_hash(artefacts: list[Artefact] | list[dict]) -> str:
    rows = [a.row() if isinstance(a, Artefact) else a for a in artefacts]
    lines = sorted(f"{r['kind']}\t{r['ref']}\t{r['content_hash']}" for r in rows)
    return sha256("\n".join(lines))


def case_content(scenario: str, outcome: str) -> str:
    return canonical({"scenario": scenario, "outcome": outcome})


def current_artefacts(db: sqlite_utils.Database, study_id: str, definition: dict) -> list[Artefact]:
    """Every artefact as it is now; raises StudyError when a case or rubric is missing."""
    from workbench.protocol.registry import protocol_of

    protocol = protocol_of(definition)
    problems: list[Problem] = []
    out = [Artefact("definition", study_id, canonical(frozen_definition(definition)))]
    try:
        own = protocol.frozen_artefacts(db, study_id, definition)
    except KeyError as exc:
        raise StudyError([Problem(f"study {study_id}", 1, protocol.name, str(exc.args[0] if exc.args else exc))]
                         ) from None
    rubric_ids = list(dict.fromkeys([*definition.get("rubrics", []), *protocol.extra_rubrics(db, definition)]))
    texts = current_rubric_texts(db)
    for rubric_id in rubric_ids:
        if rubric_id not in texts:
            problems.append(Problem(f"study {study_id}", 1, "rubrics", f"rubric '{rubric_id}' is not in rubrics/ "
                                                                      "or the store"))
            continue
        out.append(Artefact("rubric", rubric_id, texts[rubric_id]))
    out += [Artefact(kind, ref, content) for kind, ref, content in own]
    if problems:
        raise StudyError(problems)
    return out


def current_rubric_texts(db: sqlite_utils.Database) -> dict[str, str]:
    """Each rubric id's current text: its file in rubrics/ if there is one, else its latest stored version."""
    from store.rubrics import rubric_versions
    from workbench.cases.library import shipped_rubrics

    texts = {r["rubric_id"]: r["text"] for r in rubric_versions(db)}  # ordered by loaded_at: latest wins
    texts.update({rid: r.text for rid, r in shipped_rubrics().items()})
    return texts


def freeze_study(db: sqlite_utils.Database, study_id: str) -> dict:
    """Freeze the study (or, if it already is, check that nothing changed). Returns its freeze record."""
    study = _study(db, study_id)
    if study["frozen_at"]:
        verify_frozen(db, study_id)
        return {"study_id": study_id, "freeze_hash": study["freeze_hash"], "frozen_at": study["frozen_at"],
                "already_frozen": True, "artefacts": len(study_rows.frozen_artefacts(db, study_id))}
    artefacts = current_artefacts(db, study_id, study["definition"])
    _store_rubric_versions(db, [a for a in artefacts if a.kind == "rubric"])
    digest = freeze_hash(artefacts)
    frozen_at = study_rows.record_freeze(db, study_id, digest, [a.row() for a in artefacts])
    from workbench.studies.lineage import lineage_lines, record_lineage

    record_lineage(db, study_id, study["definition"], frozen_at)   # what earlier studies had shown by now
    return {"study_id": study_id, "freeze_hash": digest, "frozen_at": frozen_at, "already_frozen": False,
            "artefacts": len(artefacts), "lineage": lineage_lines(db, study_id)}


def verify_frozen(db: sqlite_utils.Database, study_id: str) -> None:
    """Raise FrozenStudyChanged naming every artefact that differs from its frozen form."""
    study = _study(db, study_id)
    frozen = {(r["kind"], r["ref"]): r for r in study_rows.frozen_artefacts(db, study_id)}
    changes: list[Change] = []
    try:
        current = {(a.kind, a.ref): a for a in current_artefacts(db, study_id, study["definition"])}
    except StudyError as exc:
        raise FrozenStudyChanged(study_id, study["frozen_at"], study["freeze_hash"] or "",
                                 [Change("definition", study_id, f"cannot be checked: {p.message}")
                                  for p in exc.problems]) from None
    for key, row in frozen.items():
        now = current.get(key)
        if now is None:
            changes.append(Change(row["kind"], row["ref"], "removed"))
        elif now.content_hash != row["content_hash"]:
            changes.append(Change(row["kind"], row["ref"], _what_changed(row, now)))
    for key, a in current.items():
        if key not in frozen:
            changes.append(Change(a.kind, a.ref, "added"))
    changes += _case_file_drift(db, frozen)
    if freeze_hash(list(frozen.values())) != study["freeze_hash"]:
        changes.append(Change("definition", study_id, "changed (the stored freeze record does not match its hash)"))
    if changes:
        raise FrozenStudyChanged(study_id, study["frozen_at"], study["freeze_hash"] or "", changes)


def _what_changed(frozen_row: dict, now: Artefact) -> str:
    if frozen_row["kind"] == "case":
        old, new = json.loads(frozen_row["content"]), json.loads(now.content)
        fields = [k for k in ("scenario", "outcome") if old.get(k) != new.get(k)]
        return f"changed its {' and '.join(fields)} in the store" if fields else "changed"
    if frozen_row["kind"] == "definition":
        old, new = json.loads(frozen_row["content"]), json.loads(now.content)
        keys = diff_keys(old, new)
        return f"changed ({', '.join(keys[:8])})" if keys else "changed"
    return "changed"


def _case_file_drift(db: sqlite_utils.Database, frozen: dict) -> list[Change]:
    """A case file edited on disk since the freeze (imported or not) is a change too."""
    from workbench.cases.parse import parse_file

    out = []
    for (kind, ref), row in frozen.items():
        if kind != "case":
            continue
        case_row = case_rows.get_case(db, ref)
        path = Path(case_row["source_path"]) if case_row and case_row["source_path"] else None
        if path is None or not path.is_file():
            continue
        parsed = parse_file(path)
        if parsed.case is None:
            out.append(Change("case", ref, f"changed: its file {path} no longer parses"))
            continue
        old = json.loads(row["content"])
        fields = [k for k in ("scenario", "outcome") if old.get(k) != getattr(parsed.case, k)]
        if fields:
            out.append(Change("case", ref, f"changed its {' and '.join(fields)} in its file {path}"))
    return out


def diff_keys(old, new, prefix: str = "") -> list[str]:
    """Dotted keys whose values differ between two JSON-like values."""
    if isinstance(old, dict) and isinstance(new, dict):
        keys = []
        for k in sorted(set(old) | set(new)):
            keys += diff_keys(old.get(k), new.get(k), f"{prefix}.{k}" if prefix else k)
        return keys
    return [] if old == new else [prefix or "(whole)"]


def _store_rubric_versions(db: sqlite_utils.Database, rubrics: list[Artefact]) -> None:
    """Make sure every frozen rubric text is in the store, so scores can cite its hash."""
    from store.rubrics import add_rubric_version
    from workbench.rubrics import parse_rubric

    for a in rubrics:
        rubric = parse_rubric(a.content, f"rubric {a.ref}")
        add_rubric_version(db, hash=a.content_hash, rubric_id=rubric.id, name=rubric.name, text=a.content,
                           definition=rubric.definition(), source_path=None)


def _study(db: sqlite_utils.Database, study_id: str) -> dict:
    from workbench.studies.lookup import StudyNotFound

    study = study_rows.get_study(db, study_id)
    if study is None:
        raise StudyNotFound(study_id)
    return study
