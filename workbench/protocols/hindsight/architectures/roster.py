"""The C2 committee roster: a chair and members with distinct roles.

The default roster ("functional") is used by C2, C3's committee and P1 unless a
study names another (`roster = "content-briefs"`) or gives its own in
`[[architectures.C2.roster]]` (see studies/README.md). A role is its brief: the
brief is the member's system prompt, so the roster is part of the study
definition and of its freeze hash.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Callable

import re

MEMBER_ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,40}$")


@dataclass(frozen=True)
class Member:
    id: str
    name: str
    brief: str
    chair: bool = False

    def to_dict(self) -> dict:
        return asdict(self)


CHAIR = Member(
    "chair", "Chair",
    "You chair the committee under Robert's Rules of Order. You state the question before the "
    "committee, keep the debate on the motion on the floor, put amendments and the motion to a vote, "
    "and write the committee's resolution with the vote tally and any minority report. You do not "
    "argue a side and you do not vote.",
    chair=True,
)

# The default: each member is named by what it does in the deliberation (propose, oppose, examine,
# reconcile, weigh), never by a topic to look for, so that the committee conditions differ from the
# single-prompt ones only in structure (seed 000 §V); the cue audit (workbench/cue_audit) checks it. The
# names are uncommon words on purpose: the scrubber removes a study's role names from every output, so a
# name like "independent" would blank that word wherever any condition wrote it.
FUNCTIONAL_ROSTER: tuple[Member, ...] = (
    CHAIR,
    Member(
        "proposer", "Proposer",
        "You put forward the course of action you find best supported and argue for it. You answer "
        "objections on their merits and revise your proposal when an objection holds.",
    ),
    Member(
        "devils-advocate", "Devil's advocate",
        "You argue against whatever position is gaining agreement and make the strongest case for the "
        "option the committee is neglecting. You change your position only for a good argument.",
    ),
    Member(
        "examiner", "Examiner",
        "You ask the other members for the reasons behind their claims and check whether each argument "
        "follows from what it rests on. You say plainly where an argument does not hold.",
    ),
    Member(
        "mediator", "Mediator",
        "You look for common ground between the members' positions and propose wording the committee "
        "could adopt. You say where the disagreement remains.",
    ),
    Member(
        "arbiter", "Arbiter",
        "You weigh the arguments the other members make and take the position you find most convincing, "
        "saying which argument convinced you.",
    ),
)

# The roster the project shipped before issue 30: each brief names topics to look for, several of which a
# rubric criterion rewards (tail risks, the framing of the question, precedent). A study may still
# pre-register it (`roster = "content-briefs"`); the report prints it as a deviation and the cue audit
# lists what it cues.
CONTENT_BRIEFS_ROSTER: tuple[Member, ...] = (
    CHAIR,
    Member(
        "risk-analyst", "Risk analyst",
        "You look for what can go wrong: failure modes, tail risks, irreversible consequences and "
        "second-order effects, and how likely and how severe each one is. You ask what each option "
        "assumes and what happens if those assumptions fail.",
    ),
    Member(
        "devils-advocate", "Devil's advocate",
        "You argue against whatever is gaining agreement. You test the framing of the question itself, "
        "expose unstated assumptions and make the strongest case for the option the committee is "
        "neglecting. You change your position only for a good argument.",
    ),
    Member(
        "domain-operator", "Domain operator",
        "You have run operations like the one in question. You judge what is feasible in practice: "
        "execution, resources, timelines, who actually does the work, and what breaks on contact with "
        "reality.",
    ),
    Member(
        "stakeholder-advocate", "Stakeholder advocate",
        "You speak for the people affected who are not in the room: users, staff, the public, those who "
        "come later. You raise ethical obligations, fairness, trust and legitimacy, and ask whose "
        "interests each option serves.",
    ),
    Member(
        "strategist", "Strategist",
        "You take the long view: precedent, incentives, how other actors will respond, and the position "
        "each option leaves the organization in a year or more from now.",
    ),
)

DEFAULT_ROSTER_NAME = "functional"
# name -> (members, the member who moves the main motion unless the study names one)
NAMED_ROSTERS: dict[str, tuple[tuple[Member, ...], str]] = {
    "functional": (FUNCTIONAL_ROSTER, "proposer"),
    "content-briefs": (CONTENT_BRIEFS_ROSTER, "strategist"),
}
DEFAULT_ROSTER, DEFAULT_MOVER = NAMED_ROSTERS[DEFAULT_ROSTER_NAME]


def roster_from_options(options: dict) -> tuple[Member, list[Member]]:
    """(chair, members in roster order) from a checked `[architectures.C2]` options dict."""
    members = [Member(**m) for m in options["roster"]]
    chair = next(m for m in members if m.chair)
    return chair, [m for m in members if not m.chair]


def check_roster(raw, path: str, bad: Callable[[str, str], None]) -> tuple[list[dict], str]:
    """Validate a study's roster: absent (the default), a roster's name, or an array of tables with id,
    name, brief, chair. Returns (members as dicts, the roster's name; "custom" for the study's own)."""
    if raw is None:
        return [m.to_dict() for m in DEFAULT_ROSTER], DEFAULT_ROSTER_NAME
    if isinstance(raw, str):
        if raw not in NAMED_ROSTERS:
            bad(path, f"'{raw}' is not a named roster; use one of {', '.join(NAMED_ROSTERS)}, or give "
                      "[[...roster]] tables")
            raw = DEFAULT_ROSTER_NAME
        return [m.to_dict() for m in NAMED_ROSTERS[raw][0]], raw
    if not isinstance(raw, list) or not all(isinstance(m, dict) for m in raw):
        bad(path, "must be a roster's name or an array of tables ([[...roster]]) with id, name, brief and chair")
        return [m.to_dict() for m in DEFAULT_ROSTER], DEFAULT_ROSTER_NAME
    return _custom_roster(raw, path, bad), "custom"


def default_mover(roster_name: str) -> str | None:
    """The member who moves the main motion in a named roster (None for a study's own roster)."""
    named = NAMED_ROSTERS.get(roster_name)
    return named[1] if named else None


def _custom_roster(raw: list[dict], path: str, bad: Callable[[str, str], None]) -> list[dict]:
    out: list[dict] = []
    seen: set[str] = set()
    for i, m in enumerate(raw):
        p = f"{path}[{i}]"
        for key in m:
            if key not in ("id", "name", "brief", "chair"):
                bad(f"{p}.{key}", "unknown key; a roster member has id, name, brief and chair")
        mid, name, brief = m.get("id"), m.get("name"), m.get("brief")
        if not isinstance(mid, str) or not MEMBER_ID.match(mid):
            bad(f"{p}.id", "is required: lowercase letters, digits and '-'")
            continue
        if mid in seen:
            bad(f"{p}.id", f"member id '{mid}' is used twice")
        seen.add(mid)
        if not isinstance(name, str) or not name.strip():
            bad(f"{p}.name", "is required: the role's display name")
            name = mid
        if not isinstance(brief, str) or not brief.strip():
            bad(f"{p}.brief", "is required: the role's brief (its system prompt)")
            brief = ""
        chair = m.get("chair", False)
        if not isinstance(chair, bool):
            bad(f"{p}.chair", "must be true or false")
            chair = False
        out.append(Member(mid, name.strip(), brief.strip(), chair).to_dict())
    chairs = [m for m in out if m["chair"]]
    if len(chairs) != 1:
        bad(path, f"needs exactly one member with chair = true (found {len(chairs)})")
    if len([m for m in out if not m["chair"]]) < 2:
        bad(path, "needs at least two members besides the chair (one to move, one to second)")
    return out


def roster_name_of(c2_options: dict) -> str:
    """The roster a study's C2 options hold: its recorded name, else (a definition from before the names) the
    named roster whose members it repeats, else "custom"."""
    if c2_options.get("roster_name"):
        return c2_options["roster_name"]
    members = c2_options.get("roster") or []
    for name, (named, _mover) in NAMED_ROSTERS.items():
        if members == [m.to_dict() for m in named]:
            return name
    return "custom"
