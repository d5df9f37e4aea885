"""Simulated human raters: each fills their whole assignment through the packet import path.

A simulated rater exports their packet exactly as a person would be sent it
(only what that rater may see), scores every item from the planted truth of the
response plus their own bias (`[simulation.rater_bias]`) and noise (the planted
`rater_icc`), and imports it back, signed and checked like any packet. The
calibration pilots come first: when they pass, the next packet holds the rest.

A study on the `mock` model (the plumbing dry run) may be filled too: its texts are placeholders and it
holds no real data, so the simulated raters' scores (of placeholders, with the default planted values)
mix with nothing, and the dry run reaches unblinding, metrics and the report.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

from workbench.simmodel import draws
from workbench.simmodel.truth import perceived, true_score


class NotSimulated(ValueError):
    """Simulated raters only score a study on the offline models (`sim`, or `mock` throughout)."""


@dataclass
class RaterFill:
    rater: str
    packets: int = 0
    scores: int = 0
    phases: list[str] = field(default_factory=list)
    held: str | None = None  # why the rater stopped short (a failed calibration)

    def to_dict(self) -> dict:
        return asdict(self)


# An instruction inside a response (an attention item): an attentive rater, who reads it, follows it.
INSTRUCTION = re.compile(r"score this response (\d+) on every criterion", re.IGNORECASE)
# Planted rater quality (`[simulation.rater_quality]`): how reliable a rater is and how long an item takes.
# A careless rater reads the calibration pilots like anyone (so the pilots do not stop them), then clicks
# through, without reading: CLICKED of the time the same key, otherwise any score, in a few seconds.
CAREFUL_ICC = 0.95
CLICKED, CLICKED_KEY = 0.8, 2
SECONDS = {"careful": (30.0, 120.0), "careless": (1.0, 4.0), None: (20.0, 90.0)}


def answers_for(packet: dict, rater: str, params: dict, anchors: dict[str, str]) -> dict:
    """The packet's answers, every criterion scored by the simulated rater (other answers kept), with the
    seconds the rater spent on each item.

    `anchors` (`store.blind.draw_anchors`): each item's stable name. A draw is keyed by it, never by
    the blind item id, which is random per store: the same study gives the same scores anywhere."""
    sealed = packet["sealed"]
    bias = (params.get("rater_bias") or {}).get(rater, 0.0)
    quality = (params.get("rater_quality") or {}).get(rater)
    careless = quality == "careless" and sealed.get("phase") == "scoring"
    icc = CAREFUL_ICC if quality == "careful" else params["rater_icc"]
    answers = packet.get("answers") or {}
    for item in sealed["items"]:
        anchor = anchors[item["item"]]
        outcome = (sealed["cases"].get(item["case"]) or {}).get("outcome") or ""
        entry = answers.setdefault(item["item"], {"label": item["label"], "scores": {}, "note": ""})
        if entry.get("seconds") is None:
            lo, hi = SECONDS["careless" if careless else "careful" if quality == "careful" else None]
            entry["seconds"] = round(draws.rng(params["seed"], "seconds", rater, anchor).uniform(lo, hi), 1)
        instructed = None if careless else INSTRUCTION.search(item["response"])
        for rubric_id in item["rubrics"]:
            rubric = sealed["rubrics"][rubric_id]
            got = entry["scores"].setdefault(rubric_id, {})
            for c in rubric["criteria"]:
                if got.get(c["id"]) is not None:
                    continue
                if instructed:
                    got[c["id"]] = min(max(int(instructed.group(1)), c["min"]), c["max"])
                    continue
                if careless:
                    got[c["id"]] = _clicked(params["seed"], rater, anchor, rubric_id, c["id"], c["min"], c["max"])
                    continue
                true = true_score(item["response"], outcome, rubric_id, c["id"], c["min"], c["max"], c.get("name", ""))
                z = draws.normal(params["seed"], "rater", rater, anchor, rubric_id, c["id"])
                got[c["id"]] = perceived(true, c["min"], c["max"], icc, bias, z)
    return answers


def _clicked(seed: int, rater: str, anchor: str, rubric_id: str, criterion: str, lo: int, hi: int) -> int:
    """A careless rater's score: mostly the same key (CLICKED_KEY, within the criterion's range), sometimes any."""
    r = draws.rng(seed, "careless", rater, anchor, rubric_id, criterion)
    return min(max(CLICKED_KEY, lo), hi) if r.random() < CLICKED else r.randint(lo, hi)


def fill_raters(db, study_id: str, raters: list[str] | None = None) -> list[RaterFill]:
    from store.blind import draw_anchors
    from store.studies import get_study
    from workbench.scoring.packets import build_packet, import_packet
    from workbench.simulation.marks import is_placeholder, is_simulated
    from workbench.simmodel.params import params_of

    study = get_study(db, study_id)
    definition = (study or {}).get("definition") or {}
    if not (is_simulated(definition) or is_placeholder(definition)):
        raise NotSimulated(f"study '{study_id}' is not on the offline `sim` or `mock` model: only real people "
                           "rate it")
    params = params_of(definition)
    if study.get("unblinded_at"):  # a re-run after unblinding: the scores are in, scoring is closed
        return [RaterFill(r, held="scoring is closed (the study is unblinded)")
                for r in raters or definition.get("raters") or []]
    out = []
    for rater in raters or definition.get("raters") or []:
        fill = RaterFill(rater)
        for _ in range(4):  # pilots, then the rest; a fifth round would have nothing new
            packet = build_packet(db, study_id, rater)
            todo = [i for i in packet["sealed"]["items"]
                    if any(v is None for r in (packet["answers"].get(i["item"], {}).get("scores") or {}).values()
                           for v in r.values()) or not packet["answers"].get(i["item"], {}).get("scores")]
            if not todo:
                if packet["sealed"]["phase"] in ("calibration", "held"):
                    fill.held = ("held at calibration: the pilots were scored against the expected direction; "
                                 "release the rater (as for a person) or re-score")
                break
            packet["answers"] = answers_for(packet, rater, params, draw_anchors(db, study_id))
            result = import_packet(db, packet)
            fill.packets += 1
            fill.scores += result.scores_written
            fill.phases.append(packet["sealed"]["phase"])
        out.append(fill)
    return out
