"""C2 peer-agent committee under Robert's Rules (seed 000 §V). C3 and P1 reuse `Committee`.

The meeting, in order (each step is one or more turns through the gateway):

1. The chair states the question.                                  event `question`
2. Opening statements, in parallel: each member sees the scenario and the
   question only, never another member's statement.                events `perspective` (parallel)
3. The mover (default: the roster's own, the proposer in the default
   roster) moves a main motion on a `MOTION:` line.                 event `motion`
4. Members are asked in roster order, starting after the mover, to second
   it (`SECOND: yes|no`) until one does.                            events `second`
   A motion nobody seconds dies, and the minutes say so (event `motion` with
   status "died"); the chair then calls on the next member in roster order to
   move one, up to `motion_attempts` motions in all. When every one dies, no
   motion comes before the committee: no debate and no vote, and the chair's
   report says the committee adopted nothing (Robert's Rules).
5. Debate rounds (default 2): members speak in roster order and see the
   minutes so far, every earlier statement included; a speaker may move
   amendments on `AMENDMENT:` lines in its own words (up to `max_amendments`
   in all; later ones, and one that repeats the motion or an amendment
   already moved, are ruled out of order, with a line in the minutes; lines
   copied from the minutes are recorded as quoted).                 events `amendment`
6. Each amendment needs a second (asked as the main motion's is, starting
   after its mover); one nobody seconds dies, minuted, with no vote. A seconded
   amendment is put to a vote (members vote in parallel with a
   `VOTE: aye|nay|abstain` line and a reason), then the chair restates the
   motion as amended if any amendment was adopted.                  events `second`, `vote`, `amendment`, `motion`
7. The vote on the main motion, in parallel.                        events `vote`
8. The chair writes the resolution with the tally and any minority report;
   this is the final step and carries the report instruction.       event `resolution`

A second or a vote is read from its SECOND / VOTE line or, without one, from an
unhedged phrase ("I second the motion", "I abstain": lines.py). A reply that is
neither clearly yes nor clearly no is asked again once, in a logged retry turn
with the expected line restated; one still unreadable is recorded as such
(`second` event: seconded None, readable false; `vote` event: vote "unparsed",
readable false), never as a "no" or a vote, and the report counts them per
condition. An unreadable second seconds nothing: the next member is asked. A question
is carried when ayes outnumber nays (abstentions and unparsed replies do not
count; a tie fails; the chair does not vote).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from workbench.protocols.hindsight.architectures.base import (
    FinalOutput, RunContext, check_int_options, common_prompts, final_output, parallel, report_request, situation,
    system, user,
)
from workbench.protocols.hindsight.architectures import prompts as templates
from workbench.protocols.hindsight.architectures.extraction import extra_calls
from workbench.protocols.hindsight.architectures.lines import first_tagged, own_and_quoted, parse_amendments, same_text
from workbench.protocols.hindsight.architectures.motion_replies import parse_second, parse_vote
from workbench.protocols.hindsight.architectures.prompts import (
    C2_CARRIED_NOTE,
    C2_DEBATE,
    C2_FAILED_NOTE,
    C2_MOVE,
    C2_NO_MOTION,
    C2_OPENING,
    C2_QUESTION,
    C2_RESOLUTION,
    C2_RESTATE,
    C2_RETRY_SECOND,
    C2_RETRY_VOTE,
    C2_SECOND,
    C2_SECOND_AMENDMENT,
    C2_SYSTEM,
    C2_VOTE_AMENDMENT,
    C2_VOTE_MOTION,
)
from workbench.protocols.hindsight.architectures.roster import (
    NAMED_ROSTERS,
    Member,
    check_roster,
    default_mover,
    roster_from_options,
)

CONDITION = "C2"
TITLE = "Peer-agent committee"
DEFAULTS = {"debate_rounds": 2, "max_amendments": 3, "statement_words": 250, "motion_attempts": 2}


def check_options(raw: dict, path: str, bad) -> dict:
    limits = {"debate_rounds": (0, 6), "max_amendments": (0, 10), "statement_words": (50, 2000),
              "motion_attempts": (1, 10)}
    counts = check_int_options(raw, path, bad, {k: (DEFAULTS[k], *limits[k]) for k in DEFAULTS},
                               known=("roster", "mover", "roster_name"))
    roster, roster_name = check_roster(raw.get("roster"), f"{path}.roster", bad)
    stored = NAMED_ROSTERS.get(raw.get("roster_name")) if isinstance(raw.get("roster_name"), str) else None
    if stored and isinstance(raw.get("roster"), list) and roster == [m.to_dict() for m in stored[0]]:
        roster_name = raw["roster_name"]  # a stored definition read back (the study form): its named roster
    out: dict = {"roster": roster, "roster_name": roster_name, **counts}
    members = [m["id"] for m in roster if not m["chair"]]
    mover = raw.get("mover")
    if mover is None:
        named = default_mover(roster_name)
        mover = named if named in members else (members[0] if members else "")
    elif mover not in members:
        bad(f"{path}.mover", f"must be the id of a roster member other than the chair ({', '.join(members)})")
    out["mover"] = mover
    return out


SEED_TEXT = ("Full adversarial committee with fixed roster, Robert's Rules, deliberation, and resolution. "
             "(Standard /committee pipeline.)")


def prompts(options: dict) -> list[tuple[str, str, str]]:
    """Every template of the meeting, and each member's role as its system prompt gives it."""
    opts = committee_options(options)
    name = opts.get("roster_name") or "custom"
    steps = [(f"prompts.{k}", v, "project") for k, v in templates.templates().items() if k.startswith("C2_")]
    roles = [(f"roster.{name}.{m['id']}", f"{m['name']}. {m['brief']}", "project") for m in opts["roster"]
             if isinstance(m, dict)]  # a member stored as a bare name (a hand-written definition) has no brief
    return common_prompts(options) + steps + roles


def committee_options(options: dict) -> dict:
    """The C2 options of a study (C3's committee and P1 use the same ones)."""
    return options.get("C2") or check_options({}, "architectures.C2", _raise)


def _raise(key: str, message: str) -> None:
    raise ValueError(f"{key}: {message}")


def expected_calls(options: dict) -> int:
    """The meeting's planned calls, with every amendment it may vote on: progress totals then hold when
    amendments are moved. A meeting with fewer amendments ends below its plan and settles at it."""
    opts = committee_options(options)
    members = len([m for m in opts["roster"] if not m["chair"]])
    amendments = opts["max_amendments"] if opts["debate_rounds"] else 0
    # question + openings + motion + one second + debate + main vote + resolution (a motion that needs more
    # asks to be seconded, or dies and is followed by another, makes calls beyond the plan: progress allows it)
    base = 1 + members + 1 + 1 + opts["debate_rounds"] * members + members + 1 + extra_calls(options)
    # each amendment: one second and a vote of every member; any adopted: the chair restates the motion
    return base + amendments * (1 + members) + (1 if amendments else 0)


async def run(ctx: RunContext) -> FinalOutput:
    return await Committee(ctx).deliberate()


@dataclass
class Tally:
    aye: int = 0
    nay: int = 0
    abstain: int = 0
    unparsed: int = 0
    votes: list[dict] = field(default_factory=list)  # {"member", "name", "vote", "reason"}

    @property
    def carried(self) -> bool:
        return self.aye > self.nay

    def counts(self) -> dict:
        return {"aye": self.aye, "nay": self.nay, "abstain": self.abstain, "unparsed": self.unparsed}

    def summary(self) -> str:
        return (f"{self.aye} aye, {self.nay} nay, {self.abstain} abstain"
                + (f", {self.unparsed} unparsed" if self.unparsed else ""))


class Committee:
    """One meeting of the committee over the case scenario (plus an optional briefing, e.g. C3's scenarios)."""

    def __init__(self, ctx: RunContext, briefing: str = "") -> None:
        self.ctx = ctx
        self.opts = committee_options(ctx.options)
        self.chair, self.members = roster_from_options(self.opts)
        self.briefing = briefing
        self.situation = situation(ctx)
        self.minutes: list[str] = []
        everyone = [self.chair, *self.members]
        names = ", ".join(f"{m.name}{' (chair)' if m.chair else ''}" for m in everyone)
        self._system = {
            m.id: system(C2_SYSTEM.format(name=m.name, size=len(everyone), members=names, brief=m.brief,
                                          words=self.opts["statement_words"]))
            for m in everyone
        }

    # --- helpers ---------------------------------------------------------------------------------
    def _ask(self, member: Member, prompt: str) -> list[dict[str, str]]:
        return [self._system[member.id], user(prompt)]

    def _fill(self, template: str, **kw) -> str:
        return template.format(situation=self.situation, briefing=self.briefing,
                               minutes="\n\n".join(self.minutes) or "(nothing yet)", **kw)

    async def _vote(self, on: str, turn_prefix: str, template: str, **kw) -> Tally:
        async def one(m: Member) -> dict:
            turn = f"{turn_prefix}:{m.id}"
            label = f"{m.name} votes on the {on}"
            messages = self._ask(m, self._fill(template, **kw))
            text = await self.ctx.turn(turn, m.id, messages, phase="vote", label=label)
            vote, reason = parse_vote(text)
            retried = vote == "unparsed"
            if retried:
                text = await self._ask_again(turn, m, messages, C2_RETRY_VOTE, "vote", label)
                vote, reason = parse_vote(text)
            self.ctx.emit("vote", turn=turn, agent=m.id, on=on, vote=vote, reason=reason, name=m.name,
                          readable=vote != "unparsed", retried=retried)
            return {"member": m.id, "name": m.name, "vote": vote, "reason": reason}

        tally = Tally()
        for v in await parallel(*(one(m) for m in self.members)):
            setattr(tally, v["vote"], getattr(tally, v["vote"]) + 1)
            tally.votes.append(v)
        return tally

    # --- the meeting -------------------------------------------------------------------------------
    async def deliberate(self) -> FinalOutput:
        ctx, chair = self.ctx, self.chair
        question = await ctx.turn("question", chair.id, self._ask(chair, self._fill(C2_QUESTION)),
                                  phase="question", label=f"{chair.name} states the question")
        ctx.emit("question", turn="question", agent=chair.id, text=question)
        self.minutes.append(f"THE QUESTION, stated by the {chair.name}:\n{question.strip()}")

        await self._openings(question)
        moved = await self._seconded_motion()
        if moved is None:
            return await self._no_motion()
        motion = moved
        amendments = await self._debate(motion)
        motion = await self._amend(motion, amendments)
        tally = await self._vote("main motion", "vote-motion", C2_VOTE_MOTION, motion=motion)
        self.minutes.append(f"VOTE ON THE MAIN MOTION: {'carried' if tally.carried else 'not carried'} "
                            f"({tally.summary()}).")
        return await self._resolution(motion, tally)

    async def _openings(self, question: str) -> None:
        async def opening(m: Member) -> str:
            turn = f"opening:{m.id}"
            text = await self.ctx.turn(turn, m.id, self._ask(m, self._fill(C2_OPENING, question=question)),
                                       phase="opening", label=f"{m.name}: opening statement")
            self.ctx.emit("perspective", turn=turn, agent=m.id, text=text, order=1, parallel=True, role=m.name)
            return text

        statements = await parallel(*(opening(m) for m in self.members))
        self.minutes.append("OPENING STATEMENTS:\n\n" + "\n\n".join(
            f"[{m.name}]\n{s.strip()}" for m, s in zip(self.members, statements)))

    async def _seconded_motion(self) -> str | None:
        """The main motion that came before the committee, or None when every motion moved died unseconded.
        The mover moves first; after a motion dies the chair calls on the next member in roster order."""
        first = next(i for i, m in enumerate(self.members) if m.id == self.opts["mover"])
        attempts = min(self.opts.get("motion_attempts", 1), len(self.members))
        for attempt in range(attempts):
            mover = self.members[(first + attempt) % len(self.members)]
            motion = await self._main_motion(mover, attempt)
            if await self._second(mover, f"second{'-' + str(attempt + 1) if attempt else ''}", C2_SECOND,
                                  "motion", motion=motion):
                return motion
            self.ctx.emit("motion", turn=None, agent=self.chair.id, text=motion, mover=mover.id, amended=False,
                          status="died", note="no member seconded it: it died and was not debated")
            self.minutes.append(f"The motion moved by the {mover.name} died for want of a second; it was not "
                                "debated.")
        return None

    async def _main_motion(self, mover: Member, attempt: int) -> str:
        turn = "motion" if attempt == 0 else f"motion-{attempt + 1}"
        reply = await self.ctx.turn(turn, mover.id, self._ask(mover, self._fill(C2_MOVE, name=mover.name)),
                                    phase="motion", label=f"{mover.name} moves the main motion")
        motion = first_tagged(reply, "MOTION")
        parsed = motion is not None
        motion = motion if parsed else reply.strip()
        self.ctx.emit("motion", turn=turn, agent=mover.id, text=motion, mover=mover.id, amended=False,
                      parsed=parsed)
        self.minutes.append(f"MAIN MOTION, moved by the {mover.name}:\n{reply.strip()}")
        return motion

    async def _second(self, mover: Member, turn_prefix: str, template: str, what: str, **kw) -> bool:
        """Ask the members in roster order, starting after the mover, until one seconds (Robert's Rules:
        a motion or an amendment needs a second before it is debated or voted on)."""
        start = self.members.index(mover)
        for m in self.members[start + 1:] + self.members[:start]:
            turn = f"{turn_prefix}:{m.id}"
            label = f"{m.name}: second the {what}?"
            messages = self._ask(m, self._fill(template, mover=mover.name, **kw))
            reply = await self.ctx.turn(turn, m.id, messages, phase="second", label=label)
            seconded = parse_second(reply)
            retried = seconded is None
            if retried:
                reply = await self._ask_again(turn, m, messages, C2_RETRY_SECOND, "second", label)
                seconded = parse_second(reply)
            self.ctx.emit("second", turn=turn, agent=m.id, seconded=seconded, text=reply.strip(), name=m.name,
                          on=what, readable=seconded is not None, retried=retried)
            if seconded is None:
                self.minutes.append(f"The {m.name}'s answer on seconding the {what} could not be read as yes or "
                                    "no, even when asked again; it seconded nothing.")
            if seconded:
                self.minutes.append(f"The {what} was seconded by the {m.name}.")
                return True
        return False

    async def _ask_again(self, turn: str, m: Member, messages: list[dict], restate: str, phase: str,
                         label: str) -> str:
        """The one retry of a second or vote that was neither clearly yes nor no: a logged turn, titled as the
        retry it is, asking the same question with the expected line restated after it."""
        self.ctx.reject(turn, f"the reply to the {phase} was neither clearly yes nor clearly no")
        asked = messages[-1]["content"]
        return await self.ctx.turn(f"{turn}:retry", m.id, [*messages[:-1], user(f"{asked}\n\n{restate}")],
                                   phase=phase, label=label)

    async def _debate(self, motion: str) -> list[dict]:
        rounds = self.opts["debate_rounds"]
        amendments: list[dict] = []
        for r in range(1, rounds + 1):
            for m in self.members:
                turn = f"debate-{r}:{m.id}"
                reply = await self.ctx.turn(
                    turn, m.id, self._ask(m, self._fill(C2_DEBATE, motion=motion, round=r, rounds=rounds)),
                    phase="debate", label=f"{m.name}: debate, round {r}")
                self.minutes.append(f"[{m.name}, debate round {r}]\n{reply.strip()}")
                self._take_amendments(reply, m, r, turn, motion, amendments)
        return amendments

    def _take_amendments(self, reply: str, m: Member, r: int, turn: str, motion: str,
                         amendments: list[dict]) -> None:
        """Move the amendments of one debate reply that are the speaker's own and change something."""
        own, quoted = own_and_quoted(reply, m.name)
        for text in parse_amendments(quoted):  # another member's words: neither moved nor ruled on
            self.ctx.emit("amendment", turn=turn, agent=m.id, status="quoted", text=text, mover=m.id, name=m.name,
                          round=r, note="quoted from the minutes, not moved: only a speaker's own lines move "
                                        "amendments")
        for text in parse_amendments(own):
            why = self._out_of_order(text, motion, amendments)
            if why is None:
                a = {"number": len(amendments) + 1, "text": text, "mover": m.id, "name": m.name, "round": r}
                amendments.append(a)
                self.ctx.emit("amendment", turn=turn, agent=m.id, status="moved", **a)
                continue
            self.ctx.emit("amendment", turn=turn, agent=m.id, status="ruled_out", text=text, mover=m.id,
                          name=m.name, round=r, note=f"out of order: {why}")
            self.minutes.append(f"The chair ruled out of order an amendment proposed by the {m.name} "
                                f"({why}); no vote was held: {text}")

    def _out_of_order(self, text: str, motion: str, amendments: list[dict]) -> str | None:
        """Why an amendment may not be moved (None: it may). One that changes nothing costs a vote of every
        member and is adopted as a no-op, so it is refused like one beyond the limit."""
        limit = self.opts["max_amendments"]
        if same_text(text) == same_text(motion):
            return "it repeats the motion on the floor"
        earlier = next((a for a in amendments if same_text(a["text"]) == same_text(text)), None)
        if earlier is not None:
            return f"it repeats amendment {earlier['number']}, already moved by the {earlier['name']}"
        if len(amendments) >= limit:
            return f"the limit of {limit} amendments is reached"
        return None

    async def _amend(self, motion: str, amendments: list[dict]) -> str:
        adopted = []
        for a in amendments:
            mover = next(m for m in self.members if m.id == a["mover"])
            if not await self._second(mover, f"second-amendment-{a['number']}", C2_SECOND_AMENDMENT,
                                      f"amendment {a['number']}", motion=motion, number=a["number"],
                                      amendment=a["text"]):
                self.ctx.emit("amendment", turn=None, agent=self.chair.id, number=a["number"], text=a["text"],
                              mover=a["mover"], status="died", note="no member seconded it: no vote was held")
                self.minutes.append(f"AMENDMENT {a['number']}, moved by the {a['name']}, died for want of a "
                                    f"second; no vote was held: {a['text']}")
                continue
            tally = await self._vote(f"amendment {a['number']}", f"vote-amendment-{a['number']}",
                                     C2_VOTE_AMENDMENT, motion=motion, number=a["number"], mover=a["name"],
                                     amendment=a["text"])
            status = "adopted" if tally.carried else "rejected"
            self.ctx.emit("amendment", turn=None, agent=self.chair.id, number=a["number"], text=a["text"],
                          mover=a["mover"], status=status, tally=tally.counts())
            self.minutes.append(f"AMENDMENT {a['number']}, moved by the {a['name']}: {a['text']}\n"
                                f"Vote: {status} ({tally.summary()}).")
            if tally.carried:
                adopted.append(a)
        if not adopted:
            return motion
        listing = "\n".join(f"{a['number']}. {a['text']}" for a in adopted)
        reply = await self.ctx.turn("restate", self.chair.id,
                                    self._ask(self.chair, self._fill(C2_RESTATE, motion=motion, amendments=listing)),
                                    phase="restate", label=f"{self.chair.name} restates the motion as amended")
        restated = first_tagged(reply, "MOTION")
        parsed = restated is not None
        restated = restated if parsed else reply.strip()
        self.ctx.emit("motion", turn="restate", agent=self.chair.id, text=restated, mover=self.opts["mover"],
                      amended=True, parsed=parsed, amendments=[a["number"] for a in adopted])
        self.minutes.append(f"THE MAIN MOTION AS AMENDED:\n{restated}")
        return restated

    async def _no_motion(self) -> FinalOutput:
        """Every motion died unseconded: no debate, no vote; the chair reports that nothing was adopted."""
        prompt = self._fill(C2_NO_MOTION, report=report_request(self.ctx))
        text = await self.ctx.turn("resolution", self.chair.id, self._ask(self.chair, prompt),
                                   phase="resolution", label=f"{self.chair.name} reports: no motion was seconded")
        self.ctx.emit("resolution", turn="resolution", agent=self.chair.id, motion=None, carried=False,
                      tally=Tally().counts(), minority=[], no_motion=True)
        return await final_output(self.ctx, text)

    async def _resolution(self, motion: str, tally: Tally) -> FinalOutput:
        lines = "\n".join(f"- {v['name']}: {v['vote']}" + (f": {v['reason']}" if v["reason"] else "")
                          for v in tally.votes)
        result = f"{'carried' if tally.carried else 'not carried'} ({tally.summary()})"
        prompt = self._fill(C2_RESOLUTION, motion=motion, tally=lines, result=result,
                            outcome_note=C2_CARRIED_NOTE if tally.carried else C2_FAILED_NOTE,
                            report=report_request(self.ctx))
        text = await self.ctx.turn("resolution", self.chair.id, self._ask(self.chair, prompt),
                                   phase="resolution", label=f"{self.chair.name} writes the resolution")
        minority = [{"member": v["member"], "name": v["name"], "reason": v["reason"]}
                    for v in tally.votes if v["vote"] == "nay"]
        self.ctx.emit("resolution", turn="resolution", agent=self.chair.id, motion=motion, carried=tally.carried,
                      tally=tally.counts(), minority=minority)
        return await final_output(self.ctx, text)
