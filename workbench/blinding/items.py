"""Blinding a study: final outputs -> blind items with opaque ids, the sealed key, rater queues.

`prepare_study(db, study_id)` is idempotent and safe to call from several
processes at once (it runs in one BEGIN IMMEDIATE transaction, so the second
caller sees the first one's items). It:

1. refuses a study that is not frozen, or whose runs are not all finished;
2. turns every finished run's final output that has no item yet into a blind
   item: the text goes through the scrubber (`scrub.py`), the item gets a
   random opaque id, and the key row (item -> run, scrub log) is sealed;
3. on the first blinding, adds the two calibration pilots (`pilots/calibration.py`)
   with their expected direction sealed in the key, and the gold and attention
   items the study pre-registers (`evaluators/planting.py`), sealed in `planted_items`;
4. registers the study's raters and appends the new items to each rater's
   queue (`assign.py`); planted items go to every rater.

An output the scrubber leaves (near) empty (`scrub.emptied_reason`) is held
back: no blind item is made of it, so it reaches no rater, judge or auditor.
It is reported in `BlindingSummary.held_back` with its case and the reason —
never its run or condition — and checked again at every later blinding, so it
stays out until the researcher deals with it (re-runs it, or fixes a rule).
"""

from __future__ import annotations

import secrets
from dataclasses import asdict, dataclass, field

import sqlite_utils

from store import blind as blind_rows
from store.cases import now
from store.db import writer
from store.quality import insert_planted, planted_kinds
from store.runs import truncated_run_ids
from workbench.blinding.assign import ItemRef, content_key, order_queue, rater_seed, share_out
from workbench.blinding.context import BlindingError, StudyContext, load_study
from workbench.blinding.cut_off import with_mark
from workbench.blinding.scrub import ScrubContext, emptied_reason, scrub

UNFINISHED = ("pending", "running", "interrupted")


@dataclass
class BlindingSummary:
    study_id: str
    items_created: int
    pilots_created: int
    items_total: int
    raters: list[str]
    runs_excluded: int  # failed or cancelled runs: no final output to score
    # outputs scrubbed to (near) nothing: [{"case_id", "reason"}], never a run id or condition
    held_back: list[dict] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)


def new_item_id() -> str:
    """Opaque and random: nothing about the run, condition or creation order."""
    return "i-" + secrets.token_hex(6)


def prepare_study(db: sqlite_utils.Database, study_id: str) -> BlindingSummary:
    study = load_study(db, study_id)
    if not study.frozen:
        raise BlindingError(f"study '{study_id}' is not frozen: freeze it (`workbench --batch study freeze "
                            f"{study_id}`) and run it before blind evaluation")
    with writer(db):
        statuses = blind_rows.run_status_counts(db, study_id)
        unfinished = sum(statuses.get(s, 0) for s in UNFINISHED)
        existing = blind_rows.blind_items(db, study_id)
        if study.unblinded_at:
            return _summary(db, study, 0, 0, statuses, [])
        if unfinished:
            raise BlindingError(f"study '{study_id}' has {unfinished} run(s) not finished; finish them "
                                f"(`workbench --batch run {study_id} --resume`) before blind evaluation")
        items, keys, held_back = _items_from_outputs(db, study)
        pilots_created = 0
        planted: list[dict] = []
        if not existing and items:
            planted = _planted_items(study, items, keys)
        if not existing and study.blinding.get("pilot_items", True) and (items or statuses.get("done")):
            pilot_items, pilot_keys = _pilot_items(study, [i["text"] for i in items])
            items += pilot_items
            keys += pilot_keys
            pilots_created = len(pilot_items)
        if not existing and not items:
            why = (f"; {len(held_back)} output(s) were held back, scrubbed to (near) nothing" if held_back else "")
            raise BlindingError(f"study '{study_id}' has no finished run with a final output to blind yet "
                                f"(`workbench --batch run {study_id}`){why}")
        if items:
            blind_rows.insert_items(db, items, keys)
        if planted:
            insert_planted(db, planted, at=now())
        _assign(db, study, [_ref(i) for i in items])
        return _summary(db, study, len(items) - pilots_created - len(planted), pilots_created, statuses,
                        held_back)


def _summary(db, study: StudyContext, created: int, pilots: int, statuses: dict,
             held_back: list[dict]) -> BlindingSummary:
    return BlindingSummary(
        study_id=study.id, items_created=created, pilots_created=pilots,
        items_total=len(blind_rows.blind_items(db, study.id)),
        raters=[r["name"] for r in blind_rows.raters(db, study.id)],
        runs_excluded=statuses.get("failed", 0) + statuses.get("cancelled", 0),
        held_back=sorted(held_back, key=lambda h: (h["case_id"], h["reason"])),
    )


def _items_from_outputs(db: sqlite_utils.Database, study: StudyContext
                        ) -> tuple[list[dict], list[dict], list[dict]]:
    items, keys, held_back = [], [], []
    # A study's pilot cases (hindsight `[hindsight] pilot_cases`): their items are pilots every rater
    # scores before the main set, and they never count in the study's metrics.
    pilot_cases = set((study.definition.get("hindsight") or {}).get("pilot_cases") or [])
    cut = truncated_run_ids(db, study.id)
    for out, result, reason in _scrubbed(db, study):
        if reason is not None:
            held_back.append({"case_id": out["case_id"], "reason": reason})
            continue
        item_id = new_item_id()
        # A response cut at max_tokens shows it, as the response itself would: the same mark for every
        # condition, after scrubbing, so it tells the rater nothing but where the text stops.
        text = with_mark(result.text) if out.get("run_id") in cut else result.text
        items.append({"id": item_id, "study_id": study.id, "case_id": out["case_id"], "text": text,
                      "pilot": int(out["case_id"] in pilot_cases)})
        keys.append({"item_id": item_id, "study_id": study.id, "run_id": out["run_id"],
                     "scrub_log": result.log})
    return items, keys, held_back


def _texts_to_blind(db: sqlite_utils.Database, study: StudyContext) -> list[dict]:
    """[{run_id, case_id, text}] not blinded yet: what the study's protocol gives raters to read
    (M11: a sample of items), else every finished run's final output (hindsight)."""
    from workbench.protocol.registry import protocol_of

    texts = protocol_of(study.definition).blind_texts(db, study.id, study.definition)
    if texts is None:
        return blind_rows.final_outputs_to_blind(db, study.id)
    done = blind_rows.blinded_run_ids(db, study.id)
    return [t for t in texts if t["run_id"] not in done]


def _pilot_items(study: StudyContext, real_texts: list[str]) -> tuple[list[dict], list[dict]]:
    """The two calibration pilots, written in the layout of the real items they hide among."""
    import json

    from workbench.pilots.calibration import layout_of, pilot_texts

    case_id = next((c for c in study.definition.get("cases") or [] if c in study.cases), None)
    if case_id is None:
        return [], []
    items, keys = [], []
    for direction, text in pilot_texts(study.cases[case_id], layout_of(real_texts)).items():
        item_id = new_item_id()
        items.append({"id": item_id, "study_id": study.id, "case_id": case_id, "text": text, "pilot": 1})
        keys.append({"item_id": item_id, "study_id": study.id, "run_id": None,
                     "pilot_expectation": json.dumps({"direction": direction, "case_id": case_id}),
                     "scrub_log": []})
    return items, keys


def _planted_items(study: StudyContext, items: list[dict], keys: list[dict]) -> list[dict]:
    """Gold and attention items (`evaluators/planting.py`) made blind items like the real ones: appended to
    `items` and `keys` (no run, no pilot mark); returns their sealed `planted_items` rows."""
    from workbench.evaluators.planting import PlantingError, plan
    from workbench.simmodel.label import REPLY_BANNER, is_simulated

    try:
        planned = plan(study, items)
    except PlantingError as exc:
        raise BlindingError(f"study '{study.id}': {exc}") from None
    models, roles = study.model_names(), study.role_names()
    rows = []
    for p in planned:
        case = study.cases.get(p.case_id)
        text = scrub(p.text, ScrubContext(model_names=models, roles=roles,
                                          scenario=case.scenario if case else "")).text
        if is_simulated(study.definition):  # every response of a simulated study carries the banner
            text = f"{REPLY_BANNER}\n{text}"
        item_id = new_item_id()
        items.append({"id": item_id, "study_id": study.id, "case_id": p.case_id, "text": text, "pilot": 0})
        keys.append({"item_id": item_id, "study_id": study.id, "run_id": None, "scrub_log": []})
        rows.append({"item_id": item_id, "study_id": study.id, "kind": p.kind, "expected": p.expected,
                     "source": p.source})
    return rows


def _ref(item: dict) -> ItemRef:
    return ItemRef(item["id"], item["case_id"], bool(item["pilot"]), content_key(item["case_id"], item["text"]))


def _assign(db: sqlite_utils.Database, study: StudyContext, new_items: list[ItemRef]) -> None:
    blinding_seed = int(study.blinding.get("seed") or 0)
    known = {r["name"]: r for r in blind_rows.raters(db, study.id, kind=None)}
    new_raters = [{"name": name, "kind": "human", "seed": rater_seed(blinding_seed, name)}
                  for name in study.rater_names if name not in known]
    seeds = {**{n: r["seed"] for n, r in known.items()}, **{r["name"]: r["seed"] for r in new_raters}}
    current = blind_rows.assignments(db, study.id)
    if current:
        batch = new_items
    else:  # the first assignment deals out every item there is
        batch = [_ref(i) for i in blind_rows.blind_items(db, study.id)]
    next_position: dict[str, int] = {}
    held: dict[str, set[str]] = {}
    for a in current:
        next_position[a["rater"]] = max(next_position.get(a["rater"], 0), a["position"] + 1)
        held.setdefault(a["rater"], set()).add(a["item_id"])
    pilots = [i for i in batch if i.pilot]
    planted_ids = planted_kinds(db, study.id)  # gold and attention items: every rater gets every one
    everyone = pilots + [i for i in batch if i.id in planted_ids]
    shares = share_out([i for i in batch if not i.pilot and i.id not in planted_ids], study.rater_names,
                       float(study.blinding.get("overlap", 1.0)), blinding_seed)
    rows = []
    for name in study.rater_names:
        mine = [i for i in everyone + shares.get(name, []) if i.id not in held.get(name, set())]
        rows += [{"rater": name, **row}
                 for row in order_queue(mine, seeds[name], start=next_position.get(name, 0))]
    if new_raters or rows:
        blind_rows.add_raters_and_assignments(db, study.id, new_raters, rows)


def held_back_outputs(db: sqlite_utils.Database, study_id: str) -> list[dict]:
    """The finished outputs that are held back from raters and judges, scrubbed to (near) nothing:
    [{"case_id", "reason"}] (read-only; no run id or condition, so a blinded report can print it)."""
    held = [{"case_id": t["case_id"], "reason": reason}
            for t, _result, reason in _scrubbed(db, load_study(db, study_id)) if reason is not None]
    return sorted(held, key=lambda h: (h["case_id"], h["reason"]))


def _scrubbed(db: sqlite_utils.Database, study: StudyContext):
    """Each text to blind with its scrubbed result and, when it was scrubbed to (near) nothing, why."""
    models, roles = study.model_names(), study.role_names()
    for out in _texts_to_blind(db, study):
        case = study.cases.get(out["case_id"])
        result = scrub(out["text"] or "", ScrubContext(model_names=models, roles=roles,
                                                       scenario=case.scenario if case else ""))
        yield out, result, emptied_reason(out["text"] or "", result.text)
