"""Judging a study: every judge of the study over every blind item, pilots first.

`judge_study` blinds what is new (`prepare_study`), refuses before any call a judge whose prompt cannot fit
its model's context window (`context_fit.py`), then for each judge:

1. judges the two calibration pilots and checks the direction
   (`calibration.py`); a judge whose pilot scores go the wrong way is held
   (not run on the rest) unless `force=True`;
2. judges every other item on every rubric that applies to its case, each
   run (1 or 3) a fresh context through the gateway (role "judge");
3. appends one verdict row per criterion: `ok` with the aggregated value,
   the justification and quote of the run that gave the median and the
   confidence band, or `judge_error` with value NULL and the raw replies
   (excluded from metrics, counted, never a zero).

Resuming: an (item, rubric version) a judge already has rows for is skipped;
`retry_errors=True` judges again the ones whose rows are all judge errors (the
new rows then supersede them) with fresh calls: retry round r draws its samples
from r * RETRY_STRIDE on, so the gateway never replays the invalid replies, and
the rows record `retry: r`. Every count here is of item-rubric pairs
(`workbench.rubrics.units`), never of verdict rows; progress runs over a
judge's whole command, pilots and the rest (`n/N item-rubric pairs`). A call
that fails in the gateway (network, HTTP errors after its retries) records
nothing for that item, so the next run picks it up; the cost ceiling stops the
whole command.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import asdict, dataclass, field

import sqlite_utils

from store import blind as blind_rows
from store import verdicts as verdict_rows
from store.quality import planted_kinds
from workbench.blinding.context import StudyContext, load_study
from workbench.blinding.items import prepare_study
from workbench.events import EventSink, FanoutSink, NullSink
from workbench.gateway.api import CostCeilingReached, GatewayError
from workbench.judges import aggregate
from workbench.judges.adversarial import adversarial_run
from workbench.pilots.calibration import judge_calibration
from workbench.judges.calls import JudgeItem, JudgeSpec
from workbench.judges.context_fit import refuse_unfit
from workbench.judges.direct import RunOutcome, direct_run
from workbench.judges.summary import NoticeLines, heartbeat_text, judging_outcome
from workbench.rubrics import Rubric
from workbench.rubrics import units
from workbench.gateway import live_calls
from workbench.gateway.live_calls import LiveCalls
from workbench.structured.counts import record as record_reply


class JudgingError(Exception):
    """The judging command cannot start (unknown judge, study not ready)."""


@dataclass
class JudgeSummary:
    name: str
    model: str
    pipeline: str
    runs: int
    to_judge: int = 0        # item-rubric pairs this command set out to judge (pilots and the rest)
    judged: int = 0          # of those, pairs judged in this command (ok + judge_errors)
    ok: int = 0
    judge_errors: int = 0    # of the judged, pairs whose judging in this command ended in a judge_error
    retried: int = 0         # of the judged, pairs judged again by --retry-errors
    skipped: int = 0         # already judged before
    failed_calls: int = 0    # gateway failures: nothing recorded, picked up next time
    same_reply: int = 0      # retried pairs whose new draw (a new seed) gave the last round's invalid reply again
    retries: int = 0         # calls after an unusable reply (every stage, every run)
    quote_retries: int = 0   # of those, corrective retries after a quote not found in the response
    cut: int = 0             # replies cut at max_tokens that did not parse (retried with more room, or split)
    cut_mended: int = 0      # of the judged, pairs with a cut reply that a retry mended (ok in the end)
    cut_errors: int = 0      # of the judge errors, pairs whose last reply was still cut at max_tokens
    max_tokens: int | None = None  # the judge's max_tokens, named beside its cut replies
    held: bool = False       # calibration went the wrong way; the rest was not judged
    held_back: int = 0       # pairs of the rest not judged because the judge was held
    study_judged: int = 0    # the judge's pairs with a current verdict in the study, after this command
    study_judge_errors: int = 0   # of those, pairs whose current verdict is a judge_error
    calibration: dict = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"unit": units.PAIRS, **asdict(self)}


@dataclass
class JudgingReport:
    study_id: str
    judges: list[JudgeSummary]
    stopped: str | None = None  # why the whole command stopped early (cost ceiling)

    @property
    def ok(self) -> bool:
        """The command did its work (exit 0): nothing stopped it, no call failed, no judge was held. Judge
        errors are counted outcomes, not failures: `outcome` names them."""
        return self.stopped is None and not any(j.failed_calls or j.held for j in self.judges)

    @property
    def outcome(self) -> str:
        """The summary's last word: `ok` only when every pair these judges judged in the study (in this
        command or before) is an ok verdict."""
        return judging_outcome(self.ok, sum(j.study_judge_errors for j in self.judges))

    def to_dict(self) -> dict:
        return {"study": self.study_id, "ok": self.ok, "outcome": self.outcome, "stopped": self.stopped,
                "judges": [j.to_dict() for j in self.judges]}


def judge_items(db: sqlite_utils.Database, study: StudyContext) -> list[tuple[JudgeItem, str, bool]]:
    """(what the judge sees, case id, pilot) for every blind item, pilots first. Gold items are judged like
    any other (in id order, so among the real ones); attention items are for human raters only."""
    attention = {i for i, kind in planted_kinds(db, study.id).items() if kind == "attention"}
    out = []
    for row in blind_rows.blind_items(db, study.id):
        if row["id"] in attention:
            continue
        case = study.cases.get(row["case_id"])
        item = JudgeItem(id=row["id"], scenario=case.scenario if case else "",
                         outcome=(case.outcome if case else "") if study.shows_outcome else None,
                         response=row["text"],
                         transposition=case.transposition.for_evaluators() if case and study.shows_outcome else None)
        out.append((item, row["case_id"], bool(row["pilot"])))
    return sorted(out, key=lambda t: (not t[2], t[0].id))


def refuse_judges_that_are_runs(study_id: str, definition: dict, error=None) -> None:
    """The shared judges score blind items. A protocol whose [[judges]] are its runs (calibration) has
    none for them: its judges' calls are `run`'s, and judging them again would only pile up judge errors."""
    from workbench.protocol.registry import protocol_of

    protocol = protocol_of(definition)
    if protocol.judges_are_runs:
        raise (error or JudgingError)(
            f"study '{study_id}' (protocol {protocol.name}) has no blind items to judge: its [[judges]] are its "
            f"runs, and `workbench --batch run {study_id}` makes their calls (then `metrics {study_id}`)")


def items_at_once(specs: list[JudgeSpec], gateway) -> int:
    """Items judged at once when the command asks no number: the widest judge's own `max_connections`, else the
    gateway's global concurrency (the gateway holds each endpoint to its own width). Judges run one after
    another, so a fixed number here would be a hidden cap on a judge's width (issue 40)."""
    own = max((int(dict(s.connection).get("max_connections") or 0) for s in specs), default=0)
    return max(own, int(getattr(getattr(gateway, "config", None), "concurrency", 0) or 4))


async def judge_study(db: sqlite_utils.Database, gateway, study_id: str, *, judges: list[str] | None = None,
                      retry_errors: bool = False, force: bool = False, per_criterion: bool = False,
                      concurrency: int | None = None, sink: EventSink | None = None, progress=None,
                      long_call_after: float | None = None, heartbeat: float | None = None) -> JudgingReport:
    """Run the study's judges. `progress(message)` is called as work finishes (batch prints it, the Studies
    screen shows it), and every `heartbeat` seconds while a call has been in flight longer than
    `long_call_after` seconds (default: the runner's, workbench/gateway/live_calls.py), with its signs of life and
    the command's ETA (`JudgingPace`), and the gateway's notices (a server that may still be busy with a request
    an earlier command abandoned)."""
    from workbench.simmodel.refusal import refuse_mixing

    say = progress or (lambda message: None)
    live = LiveCalls(live_calls.LONG_CALL_AFTER if long_call_after is None else long_call_after)
    heartbeat = live_calls.HEARTBEAT if heartbeat is None else heartbeat
    sink = FanoutSink(live, NoticeLines(say), sink or NullSink())
    study = load_study(db, study_id)
    refuse_judges_that_are_runs(study_id, study.definition)
    seed = (study.definition.get("model") or {}).get("seed")
    specs = [JudgeSpec.from_definition(j, seed) for j in study.judges]
    if judges:
        unknown = sorted(set(judges) - {s.name for s in specs})
        if unknown:
            raise JudgingError(f"study '{study_id}' has no judge {', '.join(unknown)} "
                               f"(its judges: {', '.join(s.name for s in specs) or 'none'})")
        specs = [s for s in specs if s.name in judges]
    if not specs:
        raise JudgingError(f"study '{study_id}' names no [[judges]]")
    # sim and real data never share a study (issue 16): refused before blinding or any call
    refuse_mixing(db, study_id, study.definition, JudgingError, using=[s.model for s in specs])
    prepare_study(db, study_id)
    study = load_study(db, study_id)  # with the items blinding just added
    items = judge_items(db, study)
    refuse_unfit(study, specs, items, JudgingError, per_criterion=per_criterion, say=say)  # before any call
    report = JudgingReport(study_id, [JudgeSummary(s.name, s.model, s.pipeline, s.runs, max_tokens=s.max_tokens)
                                      for s in specs])
    limit = asyncio.Semaphore(max(1, concurrency or items_at_once(specs, gateway)))
    work = []  # every judge's pairs to judge, known before the first call: the ETA is the whole command's
    for spec, summary in zip(specs, report.judges):
        pilots = _work(db, study, spec, summary, [t for t in items if t[2]], retry_errors)
        rest = _work(db, study, spec, summary, [t for t in items if not t[2]], retry_errors)
        summary.to_judge = len(pilots) + len(rest)
        work.append((pilots, rest))
    pace = JudgingPace(specs, report.judges, live)

    def show(calls: list[dict]) -> None:
        if calls:  # the beat after the last long call ended: the next pair's line follows it anyway
            say(pace.text(calls))

    beating = asyncio.ensure_future(live.beat(heartbeat, show))
    try:
        for spec, summary, (pilots, rest) in zip(specs, report.judges, work):
            await _judge_batch(db, gateway, study, spec, summary, pilots, per_criterion, limit, sink, say)
            check = judge_calibration(db, study, spec.name)
            summary.calibration = check.to_dict()
            if check.state == "failed" and not force:
                summary.held, summary.held_back = True, len(rest)
                say(f"{spec.name}: {check.message}; {units.pairs(len(rest))} of the other items not judged "
                    "(use --force to judge anyway)")
                continue
            await _judge_batch(db, gateway, study, spec, summary, rest, per_criterion, limit, sink, say)
            if check.state == "pending":  # pilots errored on the first pass? report the final state
                summary.calibration = judge_calibration(db, study, spec.name).to_dict()
    except CostCeilingReached as exc:
        report.stopped = f"cost ceiling reached: {exc}"
    finally:
        beating.cancel()
    for summary in report.judges:
        summary.study_judged, summary.study_judge_errors = verdict_rows.current_verdict_pairs(
            db, study_id, summary.name)
    return report


class JudgingPace:
    """How far the command is and how long the rest will take, for its heartbeat: item-rubric pairs judged of
    those it set out to judge, and an ETA from the measured pace (seconds per pair judged so far), or, before
    any pair has ended, from the token rate of the calls in flight (a call per run of each pair left, each as
    long as its max_tokens: a lower bound when a pair takes retries, criteria or adversarial stages)."""

    def __init__(self, specs: list[JudgeSpec], summaries: list[JudgeSummary], live: LiveCalls,
                 clock=time.monotonic) -> None:
        self.specs, self.summaries, self.live, self.clock = specs, summaries, live, clock
        self.started = clock()

    def counts(self) -> tuple[int, int]:
        """(pairs ended in this command, pairs this command set out to judge, less those a held judge left)."""
        done = sum(s.judged + s.failed_calls for s in self.summaries)
        return done, sum(s.to_judge - s.held_back for s in self.summaries)

    def eta(self) -> float | None:
        done, total = self.counts()
        if total <= done:
            return None
        if done:
            return round((self.clock() - self.started) / done * (total - done), 1)
        calls_left = sum(spec.runs * max(0, s.to_judge - s.held_back - s.judged - s.failed_calls)
                         for spec, s in zip(self.specs, self.summaries))
        return self.live.eta(calls_left, None)

    def text(self, calls: list[dict]) -> str:
        done, total = self.counts()
        return heartbeat_text(calls, done, total, self.eta())


def _work(db, study: StudyContext, spec: JudgeSpec, summary: JudgeSummary, items,
          retry_errors: bool) -> list[tuple[JudgeItem, Rubric, int]]:
    """The (item, rubric, retry round) pairs still to judge; the already judged ones are counted as skipped."""
    done = verdict_rows.judged_keys(db, study.id, spec.name)
    rounds = verdict_rows.judging_rounds(db, study.id, spec.name) if retry_errors else {}
    work = []
    for item, case_id, _pilot in items:
        for rubric in study.rubrics_for_case(case_id):
            statuses = done.get((item.id, rubric.hash))
            if statuses and not (retry_errors and statuses == {"judge_error"}):
                summary.skipped += 1
                continue
            work.append((item, rubric, rounds.get((item.id, rubric.hash), 0) if statuses else 0))
    return work


async def _judge_batch(db, gateway, study: StudyContext, spec: JudgeSpec, summary: JudgeSummary, work,
                       per_criterion: bool, limit: asyncio.Semaphore, sink, say) -> None:
    async def one(item: JudgeItem, rubric: Rubric, retry: int) -> None:
        async with limit:
            try:
                outcomes = await _runs(gateway, spec, study.id, item, rubric, per_criterion, sink, retry)
            except CostCeilingReached:
                raise
            except GatewayError as exc:
                summary.failed_calls += 1
                summary.failures.append(f"{item.id}/{rubric.id}: {exc}")
                say(f"{spec.name}: {rubric.id} on {item.id}: call failed ({exc}); it will be retried next time "
                    f"({summary.judged + summary.failed_calls}/{summary.to_judge} {units.PAIRS})")
                return
        for outcome in outcomes:   # how each reply was read: parsed, repaired, refused, unparsed
            for key, step, reading in outcome.readings:
                record_reply(db, study.id, key, step, reading)
            summary.retries += outcome.retries
            summary.quote_retries += outcome.quote_retries
            summary.cut += outcome.cut
        rows = verdict_rows_for(study.id, spec, item, rubric, outcomes)
        if retry:
            for row in rows:
                row["detail"]["retry"] = retry
            # a fresh seed that brings back the same invalid reply: the model ignores seeds (or answers
            # deterministically), so another round will not help; the summary says so
            if rows[0]["status"] == "judge_error" and rows[0]["raw"] and rows[0]["raw"] == \
                    verdict_rows.last_error_raw(db, study.id, spec.name, item.id, rubric.hash):
                summary.same_reply += 1
        verdict_rows.append_verdicts(db, rows)
        summary.judged += 1
        summary.retried += 1 if retry else 0
        if rows[0]["status"] == "ok":
            summary.ok += 1
            summary.cut_mended += any(o.cut for o in outcomes)
        else:
            summary.judge_errors += 1
            summary.cut_errors += rows[0]["detail"].get("cut", False)
        status = "ok" if rows[0]["status"] == "ok" else \
            ("judge error (cut at max_tokens)" if rows[0]["detail"].get("cut") else "judge error")
        say(f"{spec.name}: {rubric.id} on {item.id}: {status} "
            f"({summary.judged + summary.failed_calls}/{summary.to_judge} {units.PAIRS})")

    tasks = [asyncio.ensure_future(one(item, rubric, retry)) for item, rubric, retry in work]
    try:
        for task in asyncio.as_completed(tasks):
            await task
    finally:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def _runs(gateway, spec: JudgeSpec, study_id: str, item: JudgeItem, rubric: Rubric, per_criterion: bool,
                sink, retry: int = 0) -> list[RunOutcome]:
    outcomes = []
    for run_index in range(spec.runs):
        if spec.pipeline == "adversarial":
            outcomes.append(await adversarial_run(gateway, spec, study_id, item, rubric, run_index=run_index,
                                                  sink=sink, retry=retry))
        else:
            outcomes.append(await direct_run(gateway, spec, study_id, item, rubric, run_index=run_index,
                                             per_criterion=per_criterion, sink=sink, retry=retry))
    return outcomes


def verdict_rows_for(study_id: str, spec: JudgeSpec, item: JudgeItem, rubric: Rubric,
                     outcomes: list[RunOutcome]) -> list[dict]:
    """One row per criterion: aggregated ok verdicts, or judge_error rows when no run validated."""
    good = [o for o in outcomes if o.ok]
    base = {"study_id": study_id, "judge": spec.name, "model": spec.model, "item_id": item.id,
            "rubric_hash": rubric.hash, "pipeline": spec.pipeline}
    runs_detail = [{"ok": o.ok, "reasons": o.reasons, "call_ids": o.call_ids, "attempts": len(o.raws),
                    "retries": o.retries, "quote_retries": o.quote_retries, "cut": o.cut,
                    **{k: v for k, v in o.detail.items()}} for o in outcomes]
    if not good:
        raws = [r for o in outcomes for r in o.raws]
        reasons = [r for o in outcomes for r in o.reasons]
        return [{**base, "criterion": c.id, "value": None, "justification": None,
                 "raw": raws[-1] if raws else "", "status": "judge_error", "confidence": None,
                 "detail": {"reasons": reasons, "raw_replies": raws, "runs": runs_detail,
                            "placeholder": any(o.placeholder for o in outcomes),
                            # every run ended on a reply cut at max_tokens: a budget too short, not a bad reply
                            "cut": all(o.ended_cut for o in outcomes)}}
                for c in rubric.criteria]
    rows = []
    for c in rubric.criteria:
        scores = [o.scores[c.id]["score"] for o in good]
        value = aggregate.combine(scores)
        chosen = next(o.scores[c.id] for o in good if o.scores[c.id]["score"] == value)
        rows.append({**base, "criterion": c.id, "value": value, "justification": chosen["justification"],
                     "raw": good[-1].raws[-1] if good[-1].raws else "", "status": "ok",
                     "confidence": aggregate.confidence(scores, c.min, c.max, spec.runs),
                     "detail": {"quote": chosen["quote"], "runs_planned": spec.runs, "runs_ok": len(good),
                                **aggregate.spread_detail(scores), "runs": runs_detail}})
    return rows
