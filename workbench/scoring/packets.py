"""Rater packets: a rater's assignment as one signed JSON file, scored offline and imported back.

Format (`hindsight-workbench/rater-packet`, version 1):

    {
      "format": "hindsight-workbench/rater-packet",
      "version": 1,
      "sealed": {                         <- signed: any edit here is refused on import
        "packet_id": "...", "store": "<store id>", "rater": "rater-a",
        "phase": "calibration" | "scoring" | ...,
        "instructions": "how to fill in the answers",
        "rubrics": {"<rubric id>": {id, name, hash, instructions, procedure,
                                     criteria: [{id, name, question, min, max,
                                                 anchors: [{score, label, text}]}]}},
        "cases": {"case-1": {"title", "scenario", "outcome", "transposition": "<mapping>" | null}},
        "items": [{"item": "<opaque id>", "label": "Response Alpha", "position": 1,
                   "side": "left", "partner": "<opaque id>" | null, "case": "case-1",
                   "response": "<scrubbed text>", "rubrics": ["anticipation", ...]}]
      },
      "signature": "hmac-sha256:<hex>",
      "answers": {                        <- the rater fills these in
        "<opaque id>": {"label": "Response Alpha",
                        "scores": {"<rubric id>": {"<criterion id>": 2 | null}},
                        "note": "",
                        "seconds": 95 | null}      <- time spent on the item (optional)
      }
    }

The packet holds only what the rater may see: the rater views of their
available items (while the calibration pilots are pending, only the two
pilots), the rubric anchors, and their own scores so far (pre-filled in
`answers`). No condition, model, run id, timestamp or other rater's score.

A rater whose pilot scores went the wrong way is held (seed 000 §VI: scores
must track the expected direction before the rest). Their packet then holds
the same two pilots again, with their scores so far, to re-score -- the one
thing a held rater may do -- and `sealed.notice` tells them so. Export and
import tell the researcher that the rater is held and how to release them
(`workbench --batch pilots STUDY --release RATER`).

The signature is an HMAC-SHA256 over the canonical JSON of format, version
and sealed, keyed by a secret that never leaves the store. Import refuses,
with the reason: a file that is not a packet; a packet from another store, or
one this store never exported (foreign); a signature that does not match
(tampered); answers naming items, rubrics or criteria not in the packet, or
values outside a criterion's range (invalid); a packet already imported with
different answers, or answers that change a score the rater also changed in
the store since the export (conflicting). A re-import of identical answers is
a no-op. Otherwise every changed score and note is written as a new row with
source "packet", all in one transaction.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import uuid
from dataclasses import asdict, dataclass
from pathlib import Path

import sqlite_utils

from store import packets as packet_rows
from workbench.files import write_text
from store import scores as score_rows
from store.db import writer
from workbench.pilots.calibration import HELD_RATER_NOTICE, held_notice, release_command
from workbench.scoring.core import ScoringError, RaterDesk, open_rater
from workbench.scoring.state import ITEM_NOTE, replay

FORMAT = "hindsight-workbench/rater-packet"
VERSION = 1

INSTRUCTIONS = """\
Score each response in `answers`: replace a null under answers[<item>].scores[<rubric>][<criterion>]
with a whole number in that criterion's range (min..max, see sealed.rubrics and its anchors), and
write an optional one-sentence justification in answers[<item>].note. The scenario and (for
hindsight studies) the outcome record of each item are under sealed.cases, with, for a transposed case, its
transposition: how the scenario's terms map to the real case's, to read the outcome by; the response is
sealed.items[].response. Leave a score null to leave it unscored (null never clears a score you
gave before). If your tool measures it, write the seconds you spent on an item in answers[<item>].seconds
(optional). Do not edit anything under "sealed" or "signature": the packet is signed, and an
edited packet is refused. Then hand the file back for `workbench --batch packet import FILE`."""


class PacketError(Exception):
    """A packet refused on import or export; `reason` is tampered | foreign | invalid | conflict | closed."""

    def __init__(self, reason: str, message: str, details: list[str] | None = None):
        super().__init__(f"{reason}: {message}")
        self.reason = reason
        self.details = details or []


@dataclass
class ImportResult:
    packet_id: str
    rater: str
    scores_written: int
    notes_written: int
    unchanged: int
    already_imported: bool = False
    phase_at_export: str | None = None
    study: str = ""
    phase_now: str = ""           # the rater's phase after the import (`held`: the failed pilot holds them)
    held: bool = False
    held_notice: str | None = None
    release: str | None = None    # the command that releases a held rater

    def to_dict(self) -> dict:
        return asdict(self)


def canonical(doc) -> bytes:
    return json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def _signature(secret: bytes, packet: dict) -> str:
    body = canonical({"format": packet.get("format"), "version": packet.get("version"),
                      "sealed": packet.get("sealed")})
    return "hmac-sha256:" + hmac.new(secret, body, hashlib.sha256).hexdigest()


# --- export -------------------------------------------------------------------------------------

def build_packet(db: sqlite_utils.Database, study_id: str, rater: str) -> dict:
    """The rater's packet as a dict, recorded as exported (the simulated raters' path: no file)."""
    packet, export = _packet(db, study_id, rater)
    packet_rows.record_export(db, export)
    return packet


def _packet(db: sqlite_utils.Database, study_id: str, rater: str) -> tuple[dict, dict]:
    """The rater's packet and its export row, nothing recorded yet."""
    try:
        progress = open_rater(db, study_id, rater)
    except ScoringError as exc:
        raise PacketError("invalid", str(exc)) from None
    s = RaterDesk(db, study_id, rater)
    phase = progress.phase
    if phase == "closed":
        raise PacketError("closed", f"study '{study_id}' is unblinded: scoring is closed")
    available = [q for q in s.queue if s.available(q["item_id"], phase)]
    rubrics: dict[str, dict] = {}
    cases: dict[str, dict] = {}
    case_keys: dict[str, str] = {}
    items, answers = [], {}
    for q in available:
        view = s.view(q["item_id"])
        case_id = s.item(q["item_id"])["case_id"]
        if case_id not in case_keys:
            case_keys[case_id] = f"case-{len(case_keys) + 1}"
            # a transposed case's mapping to the real case, as the desk and the judge prompt show it (issue 42)
            cases[case_keys[case_id]] = {"title": view.case_title, "scenario": view.scenario,
                                         "outcome": view.outcome, "transposition": view.transposition}
        for r in view.rubrics:
            rubrics.setdefault(r.id, r.to_dict())
        items.append({"item": view.item_id, "label": view.label, "position": view.position, "side": view.side,
                      "partner": view.partner_id, "case": case_keys[case_id], "response": view.response,
                      "rubrics": [r.id for r in view.rubrics]})
        answers[view.item_id] = {"label": view.label, "scores": view.scores, "note": view.notes.get("*", ""),
                                 "seconds": None}
    packet_id = str(uuid.uuid4())
    sealed = {"packet_id": packet_id, "store": packet_rows.store_id(db), "rater": rater, "phase": phase,
              "instructions": INSTRUCTIONS, "rubrics": rubrics, "cases": cases, "items": items}
    if phase == "held":  # the rater, far away, learns why the packet holds the same two items again
        sealed["notice"] = HELD_RATER_NOTICE.format(message=progress.message)
    packet = {"format": FORMAT, "version": VERSION, "sealed": sealed}
    packet["signature"] = _signature(packet_rows.signing_secret(db), packet)
    packet["answers"] = answers
    export = {"packet_id": packet_id, "study_id": study_id, "rater": rater,
              "base_score_id": score_rows.last_row_id(db, study_id, rater),
              "digest": hashlib.sha256(canonical(sealed)).hexdigest(), "items": len(items)}
    return packet, export


def export_packet(db: sqlite_utils.Database, study_id: str, rater: str, out: str | Path) -> dict:
    """Write the rater's packet to `out`, then record the export. Returns a summary without any item content.

    The store records only a packet that exists on disk: the file is written whole (a temporary file
    beside it, flushed, then renamed over `out`), and the export is recorded after. A failed write
    leaves neither a temporary file nor an export row; a failed record removes the file just written
    (a packet the store never recorded would be refused on import as foreign)."""
    packet, export = _packet(db, study_id, rater)
    out = Path(out)
    write_text(out, json.dumps(packet, indent=2, ensure_ascii=False) + "\n")
    try:
        packet_rows.record_export(db, export)
    except BaseException:
        out.unlink(missing_ok=True)
        raise
    return {"packet_id": packet["sealed"]["packet_id"], "rater": rater, "items": len(packet["sealed"]["items"]),
            "phase": packet["sealed"]["phase"], "file": str(out), **_standing(db, study_id, rater)}


def _standing(db: sqlite_utils.Database, study_id: str, rater: str) -> dict:
    """The rater's phase now and, when the failed pilot holds them, what the researcher is told
    (`pilots.calibration.held_notice`: why, what their packets hold, the release command)."""
    progress = RaterDesk(db, study_id, rater).progress()
    held = progress.phase == "held"
    return {"study": study_id, "phase_now": progress.phase, "held": held,
            "held_notice": held_notice(study_id, rater, progress.message) if held else None,
            "release": release_command(study_id, rater) if held else None}


# --- import -------------------------------------------------------------------------------------

def read_packet_file(path: str | Path) -> dict:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PacketError("invalid", f"cannot read {path}: {exc}") from None
    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise PacketError("invalid", f"{path} is not JSON ({exc}); was it edited by hand?") from None
    if not isinstance(doc, dict):
        raise PacketError("invalid", f"{path} is not a rater packet (top level is not an object)")
    return doc


def import_packet(db: sqlite_utils.Database, packet: dict | str | Path) -> ImportResult:
    """Verify a packet and record its answers as scores with source "packet" (all or none)."""
    if not isinstance(packet, dict):
        packet = read_packet_file(packet)
    sealed = _check_shape(packet)
    if sealed["store"] != packet_rows.store_id(db):
        raise PacketError("foreign", "this packet was exported from another store")
    export = packet_rows.get_export(db, sealed["packet_id"])
    if export is None:
        raise PacketError("foreign", f"this store never exported packet {sealed['packet_id']}")
    if not hmac.compare_digest(_signature(packet_rows.signing_secret(db), packet), str(packet.get("signature"))):
        raise PacketError("tampered", "the signed part of the packet (sealed) was changed after export: "
                                      "signature mismatch; only `answers` may be filled in")
    if hashlib.sha256(canonical(sealed)).hexdigest() != export["digest"] or sealed["rater"] != export["rater"]:
        raise PacketError("tampered", "the packet does not match what this store exported")
    study_id, rater = export["study_id"], export["rater"]
    answers = packet.get("answers")
    digest = hashlib.sha256(canonical(answers)).hexdigest()
    with writer(db):
        previous = packet_rows.imports_of(db, sealed["packet_id"])
        if any(p["answers_digest"] == digest for p in previous):
            return ImportResult(sealed["packet_id"], rater, 0, 0, 0, already_imported=True,
                                phase_at_export=sealed.get("phase"), **_standing(db, study_id, rater))
        if previous:
            raise PacketError("conflict", f"packet {sealed['packet_id']} was already imported on "
                                          f"{previous[-1]['imported_at']} with different answers; export a "
                                          "fresh packet to change scores")
        try:
            s = RaterDesk(db, study_id, rater)
        except ScoringError as exc:
            raise PacketError("foreign", str(exc)) from None
        if s.study.unblinded_at:
            raise PacketError("closed", f"study '{study_id}' is unblinded: scoring is closed")
        rows, notes, unchanged = _changes(s, sealed, answers, export["base_score_id"])
        packet_rows.record_import(db, rows + notes, packet_id=sealed["packet_id"], answers_digest=digest)
    return ImportResult(sealed["packet_id"], rater, len(rows), len(notes), unchanged,
                        phase_at_export=sealed.get("phase"), **_standing(db, study_id, rater))


def _check_shape(packet: dict) -> dict:
    if packet.get("format") != FORMAT:
        raise PacketError("invalid", f"not a rater packet (format is {packet.get('format')!r}, "
                                     f"expected {FORMAT!r})")
    if packet.get("version") != VERSION:
        raise PacketError("invalid", f"packet version {packet.get('version')!r} is not {VERSION}")
    sealed = packet.get("sealed")
    if not isinstance(sealed, dict) or not all(k in sealed for k in ("packet_id", "store", "rater", "items")):
        raise PacketError("tampered", "the sealed part is missing or incomplete")
    if not isinstance(packet.get("answers"), dict):
        raise PacketError("invalid", "`answers` must be an object keyed by item id")
    return sealed


def _changes(s: RaterDesk, sealed: dict, answers: dict, base_id: int) -> tuple[list[dict], list[dict], int]:
    """Score and note rows the answers call for; refuses invalid answers and conflicts."""
    items = {i["item"]: i for i in sealed["items"]}
    now_state = s.state
    at_export = replay([r for r in s.rows if r["id"] <= base_id])
    problems, conflicts = [], []
    rows, notes, unchanged = [], [], 0
    for item_id, answer in answers.items():
        where = f"answers[{item_id}]"
        if item_id not in items:
            problems.append(f"{where}: item is not in this packet")
            continue
        if not isinstance(answer, dict):
            problems.append(f"{where}: must be an object with scores and note")
            continue
        label = items[item_id]["label"]
        try:
            s.check_writable(item_id)
        except ScoringError as exc:
            problems.append(f"{label}: {exc}")
            continue
        rubrics = {r.id: r for r in s.rubrics(item_id)}
        scores = answer.get("scores") or {}
        seconds = answer.get("seconds")
        if seconds is not None and (isinstance(seconds, bool) or not isinstance(seconds, (int, float))
                                    or seconds < 0):
            problems.append(f"{label}.seconds: {seconds!r} is not a number of seconds")
            seconds = None
        if not isinstance(scores, dict):
            problems.append(f"{label}: scores must be an object keyed by rubric id")
            continue
        for rubric_id, by_crit in scores.items():
            rubric = rubrics.get(rubric_id)
            if rubric is None:
                problems.append(f"{label}: rubric '{rubric_id}' is not one this item is scored on")
                continue
            if not isinstance(by_crit, dict):
                problems.append(f"{label}.{rubric_id}: must be an object keyed by criterion id")
                continue
            crits = {c.id: c for c in rubric.criteria}
            for crit_id, value in by_crit.items():
                crit = crits.get(crit_id)
                spot = f"{label}.{rubric_id}.{crit_id}"
                if crit is None:
                    problems.append(f"{spot}: no such criterion")
                    continue
                if value is None:
                    continue
                if isinstance(value, bool) or not isinstance(value, (int, float)) or (
                        isinstance(value, float) and not value.is_integer()) or not crit.min <= value <= crit.max:
                    problems.append(f"{spot}: {value!r} is not a whole number from {crit.min} to {crit.max}")
                    continue
                value = int(value)
                current = now_state.value(item_id, rubric.hash, crit_id)
                exported = at_export.value(item_id, rubric.hash, crit_id)
                if current == value:
                    unchanged += 1
                elif exported == value:
                    unchanged += 1  # untouched in the packet; the store's newer score stands
                elif current != exported:
                    conflicts.append(f"{spot}: packet says {value}, but the score was changed to "
                                     f"{_show(current)} in the store after this packet was exported")
                else:
                    rows.append({"study_id": s.study.id, "rater": s.rater, "item_id": item_id,
                                 "rubric_hash": rubric.hash, "criterion": crit_id, "value": value,
                                 "seconds": None if seconds is None else float(seconds)})
        note = answer.get("note", "")
        if note is not None and not isinstance(note, str):
            problems.append(f"{label}.note: must be text")
        elif note:
            key = (item_id, *ITEM_NOTE)
            current, exported = now_state.notes.get(key, ""), at_export.notes.get(key, "")
            if note not in (current, exported):
                if current != exported:
                    conflicts.append(f"{label}.note: changed in the store after this packet was exported")
                else:
                    notes.append({"study_id": s.study.id, "rater": s.rater, "item_id": item_id,
                                  "rubric_hash": ITEM_NOTE[0], "criterion": ITEM_NOTE[1], "note": note,
                                  "action": "note"})
    if problems:
        raise PacketError("invalid", f"{len(problems)} problem(s) in the answers; nothing was imported",
                          problems)
    if conflicts:
        raise PacketError("conflict", f"{len(conflicts)} answer(s) conflict with scores changed since the "
                                      "export; nothing was imported", conflicts)
    return rows, notes, unchanged


def _show(value) -> str:
    return "unscored" if value is None else str(int(value))


def export_text(summary: dict) -> str:
    """What `packet export` says about a written packet (the batch command and the TUI print this)."""
    note = (" (calibration: only the two calibration items; import it, then export again for the rest)"
            if summary["phase"] == "calibration" else "")
    text = f"wrote {summary['items']} item(s) for {summary['rater']} to {summary['file']}{note}"
    return text + (f"\n{summary['held_notice']}" if summary.get("held") else "")


def import_text(result) -> str:
    """What `packet import` says about an imported packet, and where the rater stands after it."""
    if result.already_imported:
        text = f"packet {result.packet_id} was already imported with these answers: nothing to do"
    else:
        text = (f"imported {result.scores_written} score(s) and {result.notes_written} note(s) for "
                f"{result.rater} ({result.unchanged} unchanged)")
    if result.held:
        return f"{text}\n{result.held_notice}"
    if result.phase_at_export in ("calibration", "held") and result.phase_now == "scoring":
        return (f"{text}\n{result.rater} passed the calibration pilot check: export a new packet for the rest "
                f"(workbench --batch packet export {result.study} --rater {result.rater} --out FILE)")
    return text
