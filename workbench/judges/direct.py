"""The direct judge: the §VI evaluator prompt over one blind item, one rubric, one run.

By default one call scores every criterion of the rubric (JSON keyed by
criterion id); `per_criterion=True` asks one call per criterion instead.
Every call is a fresh context (role "judge"). A reply that does not validate
(`parse.py`) is retried; after three attempts the run is a judge error that
keeps the raw replies. A reply whose quote is not in the response (copied from
the rubric, say) gets one corrective retry that says so (`calls.ask_json`). A reply cut at max_tokens is
asked again with more tokens within the window; when the window leaves no more, a rubric's call is split
into one call per criterion (issue 40: a retry changes what cut the reply).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from workbench.events import EventSink
from workbench.judges.calls import RETRY_STRIDE, Asked, JudgeItem, JudgeSpec, ask_json
from workbench.judges.parse import parse_verdict
from workbench.judges.prompt import evaluator_messages, neutralise, rubric_text
from workbench.judges.schema import verdict_schema
from workbench.rubrics import Rubric


@dataclass
class RunOutcome:
    """One run of one judge over one item and rubric."""

    ok: bool
    scores: dict[str, dict] = field(default_factory=dict)  # criterion -> {score, justification, quote}
    raws: list[str] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    call_ids: list[int] = field(default_factory=list)
    detail: dict = field(default_factory=dict)
    placeholder: bool = False
    readings: list = field(default_factory=list)   # (key, step, reading) per reply (workbench/structured)
    retries: int = 0              # calls after an unusable reply, of every stage
    quote_retries: int = 0        # of those, corrective retries after a refused quote
    cut: int = 0                  # replies cut at max_tokens that did not parse
    split: bool = False           # a cut rubric call was split into one call per criterion
    ended_cut: bool = False       # the run failed on a reply still cut at max_tokens

    def absorb(self, asked: Asked) -> None:
        self.raws += asked.raws
        self.reasons += asked.reasons
        self.call_ids += asked.call_ids
        self.readings += asked.readings
        self.retries += asked.retries
        self.quote_retries += asked.corrective_retries
        self.cut += asked.cut
        self.ended_cut = asked.ended_cut  # the latest ask decides: a run fails on the stage it stopped at
        self.placeholder = self.placeholder or asked.placeholder


def shown_elsewhere(item: JudgeItem, rubric: Rubric) -> dict[str, str]:
    """The texts a judge is shown besides the response, by name: a refused quote's reason names its source."""
    out = {"rubric": rubric_text(rubric), "scenario": item.scenario or ""}
    if item.outcome:
        out["outcome"] = item.outcome
    if item.transposition:
        out["transposition"] = item.transposition
    return out


async def direct_run(gateway, judge: JudgeSpec, study_id: str, item: JudgeItem, rubric: Rubric, *,
                     run_index: int = 0, per_criterion: bool = False, sink: EventSink | None = None,
                     retry: int = 0) -> RunOutcome:
    shown = neutralise(item.response)  # quotes are checked against exactly what the judge saw
    parts = [rubric] if not per_criterion else [replace(rubric, criteria=[c]) for c in rubric.criteria]
    outcome = RunOutcome(ok=True)

    async def score(part: Rubric, sample_base: int) -> Asked:
        def build(note: str | None) -> list[dict]:
            return evaluator_messages(scenario=item.scenario, outcome=item.outcome, response=item.response,
                                      rubric=part, retry_note=note, transposition=item.transposition)

        elsewhere = shown_elsewhere(item, part)
        asked = await ask_json(
            gateway, build, lambda text: parse_verdict(text, part, shown, elsewhere),
            settings=judge.settings(), study_id=study_id, turn=f"judge/{rubric.id}", agent=judge.name,
            replicate=run_index, sample_base=sample_base, metadata={"item": item.id, "rubric": rubric.id},
            sink=sink, schema=verdict_schema(part, shown))
        outcome.absorb(asked)
        return asked

    for k, part in enumerate(parts):
        base = retry * RETRY_STRIDE + k * 10
        asked = await score(part, base)
        if asked.ended_cut and len(part.criteria) > 1:
            # still cut with no more room or attempts: ask less per call, one criterion a call
            outcome.split = True
            outcome.detail["split_after_cut"] = True
            answers = [await score(replace(part, criteria=[c]), base + SPLIT_BASE + j * 10)
                       for j, c in enumerate(part.criteria)]
            if all(a.ok for a in answers):
                for a in answers:
                    _keep(outcome, a)
                continue
        if not asked.ok:
            outcome.ok = False
            outcome.scores = {}
            return outcome
        _keep(outcome, asked)
    return outcome


# The samples of a rubric call split per criterion after a cut (apart from the per-criterion parts' k * 10).
SPLIT_BASE = 500


def _keep(outcome: RunOutcome, asked: Asked) -> None:
    procedure = asked.parsed.pop("_procedure", None)
    if procedure:
        outcome.detail.setdefault("procedure", procedure["notes"])
    outcome.scores.update(asked.parsed)
