"""Treatment fidelity of hindsight's conditions (issue 45): did each run's defining step happen?

Read from the events each run stored, one function per condition, so that a change in how an instrument
records its reading (issue 41: a second without a readable SECOND line becomes "unreadable", a B3 split
flagged where it is unsure) is followed here in one place. The steps (seed 000 §V), and the project's
reading of each:

- B1, B2: one answer; nothing a run can leave out (every finished run delivered it)
- B3: the reply split into perspectives (at least two; a reply flagged `unsplit` did not; one the splitter
  flagged as unsure is counted apart)
- C1: every planned respondent answered (a non-empty answer each)
- C2: a main motion seconded and debated (the debate rounds of the study's C2 options); every motion dying
  unseconded means no debate and no vote
- C3: the planned number of scenarios produced (the fan's reply read under its SCENARIO headings) and put
  before the committee
- P1: the case's three committees all done, each debating a seconded motion (the project's choice: P1 is
  three C2s, so a committee that never debated is not one of its probes)
"""

from __future__ import annotations

from collections import defaultdict

from workbench.protocol.base import TreatmentReading

STEPS = {
    "B1": "one answer (nothing to withhold)",
    "B2": "one answer (nothing to withhold)",
    "B3": "perspectives split apart",
    "C1": "every respondent answered",
    "C2": "a motion seconded and debated",
    "C3": "the planned scenarios produced and read by the committee",
    "P1": "all three committees done, each debated",
}
KINDS = ["question", "perspective", "motion", "second", "resolution", "scenario"]
P1_RUNS = 3


def steps(definition: dict) -> dict[str, str]:
    return {c: STEPS[c] for c in definition.get("conditions") or [] if c in STEPS}


# --- one function per condition -------------------------------------------------------------------------

def second_state(payload: dict) -> str:
    """"yes", "no" or "unreadable": a second's reading (a `reading` field where the instrument names it)."""
    reading = payload.get("reading")
    if reading in ("yes", "no", "unreadable"):
        return reading
    seconded = payload.get("seconded")
    return "yes" if seconded is True else "no" if seconded is False else "unreadable"


def committee(events: list[dict], rounds: int) -> tuple[bool, str, bool]:
    """C2's meeting (also C3's and each P1 committee's): (debated, note, flagged)."""
    resolution = next((e["payload"] for e in events if e["kind"] == "resolution"), None)
    seconds = [second_state(e["payload"]) for e in events
               if e["kind"] == "second" and e["payload"].get("on") == "motion"]
    unreadable = seconds.count("unreadable")
    flag = f" ({unreadable} second(s) unreadable)" if unreadable else ""
    if resolution is None:
        return False, "no resolution recorded", bool(unreadable)
    if resolution.get("no_motion"):
        died = sum(1 for e in events if e["kind"] == "motion" and e["payload"].get("status") == "died")
        what = {1: "the motion died", 2: "both motions died"}.get(died, f"all {died} motions died")
        return False, f"no debate: {what}{flag}", bool(unreadable)
    if rounds <= 0:
        return False, "seconded, but the study debates 0 rounds", bool(unreadable)
    return True, f"debated {rounds} round(s){flag}", bool(unreadable)


def b3(events: list[dict]) -> tuple[bool, str, bool]:
    split = [e["payload"] for e in events if e["kind"] == "perspective"]
    flagged = any(p.get("flagged") for p in split)
    if not split or any(p.get("unsplit") or p.get("unparsed") for p in split):
        return False, "not split: the reply could not be split into perspectives", flagged
    if len(split) < 2:
        return False, "one perspective only", flagged
    return True, f"split into {len(split)} perspectives" + (" (flagged)" if flagged else ""), flagged


def c1(events: list[dict], planned: int) -> tuple[bool, str, bool]:
    answered = sum(1 for e in events if e["kind"] == "perspective" and str(e["payload"].get("text") or "").strip())
    if answered < planned:
        return False, f"{answered} of {planned} respondents answered", False
    return True, f"{planned} respondents answered", False


def c3(events: list[dict], planned: int, rounds: int) -> tuple[bool, str, bool]:
    scenarios = [e["payload"] for e in events if e["kind"] == "scenario"]
    met = any(e["kind"] == "question" for e in events)
    debated, meeting, flagged = committee(events, rounds)
    after = "" if debated else f"; {meeting}"
    if any(p.get("unparsed") for p in scenarios):
        return False, "fan not read: no SCENARIO headings" + after, flagged
    if len(scenarios) < planned:
        return False, f"a fan of {len(scenarios)} of {planned} scenarios" + after, flagged
    if not met:
        return False, "the committee never met", flagged
    return True, f"{planned} scenarios read by the committee" + after, flagged


def p1(own: tuple[bool, str, bool], committees: dict[str, tuple[bool, str, bool]], finished: int,
       waiting: int) -> tuple[bool, str, bool]:
    """A P1 run, read with its case's other committees: (all done and debated, note, any flagged). While some
    of them have not run yet (`waiting`: pending or running) only its own committee can be read: a run's end
    does not count its siblings against it."""
    if waiting:
        return own
    debated = sum(1 for d, _n, _f in committees.values() if d)
    flagged = any(f for _d, _n, f in committees.values())
    if finished < P1_RUNS:
        return False, f"{finished} of {P1_RUNS} committees done", flagged
    if debated < P1_RUNS:
        return False, f"{debated} of {P1_RUNS} committees debated", flagged
    return True, f"{P1_RUNS} committees done, all debated", flagged


# --- the study ---------------------------------------------------------------------------------------------

def _events(db, study_id: str, run_ids: list[str]) -> dict[str, list[dict]]:
    from store.events import events_for_run, events_for_study

    out: dict[str, list[dict]] = defaultdict(list)
    if len(run_ids) <= 4:  # a run's end: its own events, not the study's
        for rid in run_ids:
            out[rid] = events_for_run(db, rid, kinds=KINDS)
        return out
    wanted = set(run_ids)
    for e in events_for_study(db, study_id, KINDS):
        if e["run_id"] in wanted:
            out[e["run_id"]].append(e)
    return out


def readings(db, study_id: str, definition: dict, options: dict, runs: list[dict]) -> list[TreatmentReading]:
    """One reading per run of `runs` (finished run rows) whose condition has a step."""
    from store.runs import FINISHED, list_runs
    from workbench.protocols.hindsight.architectures import c1 as c1_arch
    from workbench.protocols.hindsight.architectures import c3 as c3_arch
    from workbench.protocols.hindsight.architectures.c2 import committee_options

    known = steps(definition)
    runs = [r for r in runs if r["condition"] in known]
    # a study stored with a partial [architectures.C2] table (written before a key existed) takes the default
    rounds = committee_options(options).get("debate_rounds") or committee_options({})["debate_rounds"]
    probes: dict[str, list[dict]] = {}
    if any(r["condition"] == "P1" for r in runs):  # a P1 run is read with its case's other committees
        cases = {r["case_id"] for r in runs if r["condition"] == "P1"}
        for r in list_runs(db, study_id):
            if r["condition"] == "P1" and r["case_id"] in cases:
                probes.setdefault(r["case_id"], []).append(r)
    ids = sorted({r["id"] for r in runs} | {r["id"] for group in probes.values() for r in group
                                           if r["status"] in FINISHED})
    events = _events(db, study_id, ids)
    out = []
    for run in runs:
        cond, mine = run["condition"], events.get(run["id"], [])
        if cond == "B3":
            reading = b3(mine)
        elif cond == "C1":
            reading = c1(mine, options.get("C1", c1_arch.DEFAULTS)["respondents"])
        elif cond == "C2":
            reading = committee(mine, rounds)
        elif cond == "C3":
            reading = c3(mine, options.get("C3", c3_arch.DEFAULTS)["scenarios"], rounds)
        elif cond == "P1":
            case = probes.get(run["case_id"], [])
            group = [r for r in case if r["status"] in FINISHED]
            waiting = sum(1 for r in case if r["status"] in ("pending", "running"))
            reading = p1(committee(mine, rounds), {r["id"]: committee(events.get(r["id"], []), rounds)
                                                   for r in group}, len(group), waiting)
        else:
            reading = (True, "", False)
        out.append(TreatmentReading(run["id"], cond, *reading))
    return out
