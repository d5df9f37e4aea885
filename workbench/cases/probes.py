"""Contamination probes (seed 000 §III).

A probe shows a case's scenario to a fresh model instance (one user message,
no system prompt, no history) and asks the seed's three questions. A second
call, to the classifier model, reads the answer next to the case's real event
and outcome and says whether the model recognized the case: `recognized`,
`partial` or `not_recognized`. A classifier reply that does not parse is an
`error` verdict, kept with its raw text; it is never turned into a guess.

The classifier is another model than the probed one unless none is configured (then a warning says so:
`probe_models.choose_classifier`), and an identified event that only restates the case's title or scenario
is not an identification (`probe_paraphrase`): a small model restated a scenario, classified its own
answer, and accepted the case's title as "the real event".

The result is stored in the probes table (model, date, verdict, both raw
texts; not for the mock model, whose placeholder answer is no result) and appended to the case file's `[[probes]]` with the scenario hash it
was asked about; a shipped case is never written: the case, with the probe, goes to the user's case library,
whose copy then takes precedence (`library.writable_path`). A recognized case is flagged: transpose it (Strategy B) or
exclude it. For a ready case the case validator then reports that flag, which
is the point: the case may not enter a study as it is.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import sqlite_utils

from store import cases as case_rows
from store.probes import add_probe
from workbench.cases import Case, Probe
from workbench.cases.model import CONTAMINATED_VERDICTS
from workbench.cases.probe_models import choose_classifier
from workbench.cases.probe_paraphrase import closest_case_text, default_embedder
from workbench.events import TURN_FAILED, TURN_FINISHED, TURN_STARTED, Event, EventSink, NullSink
from workbench.gateway import CallRequest, GatewayError, ModelSettings

PROBE_QUESTION = ("Do you recognize this scenario? Can you identify the real-world event it describes? "
                  "What happened?")
VERDICTS = ("recognized", "partial", "not_recognized")
FLAG_ADVICE = "transpose it (Strategy B) or exclude it"
PROBE_TURN = "probe"
CLASSIFY_TURN = "classify"
PROBE_WARNING = "probe_warning"

CLASSIFIER_INSTRUCTIONS = """You check whether a language model already knows a historical case.
The model was shown only the scenario below and asked: "{question}"

Real event behind the scenario: {event}

What actually happened (the outcome record):
{outcome}

The model's answer:
<<<
{answer}
>>>

Classify the answer:
- "recognized": it names the real event (or an unmistakable equivalent), or states the actual outcome.
- "partial": it points towards the right event, organisation or outcome without identifying it clearly,
  or predicts parts of the outcome in specific terms.
- "not_recognized": it does not identify the event and shows no specific knowledge of the outcome;
  generic reasoning about what might happen does not count.

Reply with one JSON object and nothing else:
{{"verdict": "recognized" | "partial" | "not_recognized", "identified_event": "<what it named, or empty>", "reason": "<one sentence>"}}"""


# The verdict's shape, sent with the classifier's request: a server that decodes by schema (llama.cpp, the big
# APIs) can then only return a verdict the parser reads; one that ignores it still has the prompt's wording.
VERDICT_SCHEMA = {"name": "probe_verdict", "schema": {
    "type": "object",
    "properties": {"verdict": {"type": "string", "enum": list(VERDICTS)},
                   "identified_event": {"type": "string", "maxLength": 300},
                   "reason": {"type": "string", "maxLength": 400}},
    "required": ["verdict", "identified_event", "reason"]}}


class ProbeError(Exception):
    """The probe could not be asked (unknown case, no scenario, the probe call failed)."""


@dataclass
class ProbeResult:
    case_id: str
    model: str
    api_base: str | None
    asked_at: str
    prompt: str
    answer: str | None
    verdict: str  # recognized | partial | not_recognized | error
    classifier_raw: str | None
    classifier_model: str
    flagged: bool
    scenario_hash: str
    call_ids: list[int] = field(default_factory=list)
    probe_id: int | None = None
    reason: str = ""
    identified_event: str = ""
    placeholder: bool = False  # the mock model answered: the verdict means nothing
    file_note: str = ""  # what happened to the case file's [[probes]] record
    classifier_api_base: str | None = None
    classifier_verdict: str | None = None   # the classifier's own verdict, before the paraphrase check
    classifier_warning: str | None = None   # e.g. the classifier is the probed model itself
    paraphrase: dict | None = None          # probe_paraphrase.Paraphrase.to_dict() of the identified event

    def classification(self) -> dict:
        """The classifier's side of the record, stored next to the probed model's answer."""
        return {"model": self.classifier_model, "api_base": self.classifier_api_base, "raw": self.classifier_raw,
                "verdict": self.classifier_verdict, "identified_event": self.identified_event,
                "reason": self.reason, "warning": self.classifier_warning, "paraphrase": self.paraphrase}

    @property
    def advice(self) -> str:
        if self.placeholder:
            return ("no verdict: the mock model answers with placeholder text; choose a real probe model "
                    "(Settings, or --model)")
        if self.verdict == "recognized":
            return f"contaminated for {self.model}: {FLAG_ADVICE}"
        if self.verdict == "partial":
            return f"predicts part of the outcome: contaminated for {self.model}, as recognized is: {FLAG_ADVICE}"
        if self.verdict == "error":
            return "the classifier reply did not parse; read the answer and classify it by hand"
        return "not recognized"

    def to_dict(self) -> dict:
        return dict(asdict(self), advice=self.advice)


def probe_prompt(scenario: str) -> str:
    return f"{scenario.strip()}\n\n{PROBE_QUESTION}"


def classifier_prompt(case: Case, answer: str) -> str:
    event = case.transposition.original or case.title
    return CLASSIFIER_INSTRUCTIONS.format(question=PROBE_QUESTION, event=event,
                                         outcome=case.outcome.strip() or "(no outcome record)", answer=answer)


def parse_verdict(raw: str | None) -> tuple[str, str, str]:
    """(verdict, identified_event, reason) from the classifier's reply; verdict 'error' if it does not parse."""
    if not raw:
        return "error", "", "empty classifier reply"
    text = raw.strip()
    fenced = re.search(r"```(?:json)?\s*(\{.*?\})\s*```", text, re.S)
    candidate = fenced.group(1) if fenced else text[text.find("{"): text.rfind("}") + 1] if "{" in text else ""
    try:
        doc = json.loads(candidate)
    except ValueError:
        return "error", "", "the classifier reply is not a JSON object"
    if not isinstance(doc, dict):
        return "error", "", "the classifier reply is not a JSON object"
    verdict = re.sub(r"[\s-]+", "_", str(doc.get("verdict", "")).strip().lower())
    verdict = {"partially": "partial", "partially_recognized": "partial", "not": "not_recognized",
               "unrecognized": "not_recognized"}.get(verdict, verdict)
    if verdict not in VERDICTS:
        return "error", "", f"the classifier's verdict {doc.get('verdict')!r} is not one of {', '.join(VERDICTS)}"
    return verdict, str(doc.get("identified_event") or ""), str(doc.get("reason") or "")


def _check_paraphrase(db, case: Case, verdict: str, event: str, embedder):
    """The paraphrase check of an identified event that made the verdict (None: nothing to check)."""
    if verdict not in CONTAMINATED_VERDICTS or not event.strip():
        return None
    return closest_case_text(event, case, embedder if embedder is not None else default_embedder(db))


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


async def run_probe(db: sqlite_utils.Database, gateway, case_id: str, settings: ModelSettings | None = None,
                    sink: EventSink | None = None, *, classifier: ModelSettings | None = None,
                    record_in_file: bool = True, embedder=None) -> ProbeResult:
    """Probe one case on one model; store the result (and append it to the case file).
    `classifier`: the classifying model (default: `probe_models.choose_classifier`); `embedder`: for the
    paraphrase check (default: the bundled MiniLM, loaded only when an identified event needs checking)."""
    from workbench.gateway.settings import role_settings

    sink = sink or NullSink()
    row = case_rows.get_case(db, case_id)
    if row is None:
        raise ProbeError(f"no case '{case_id}' in the store")
    case = Case.from_dict(row["document"])
    if not case.scenario.strip():
        raise ProbeError(f"case '{case_id}' has no scenario text to probe with")
    settings = settings or role_settings(db, "probe")
    classifier, classifier_warning = choose_classifier(db, settings, classifier)
    if classifier_warning:
        sink.emit(Event(PROBE_WARNING, agent=case_id, payload={"warning": classifier_warning}))
    prompt = probe_prompt(case.scenario)
    asked_at = _now()
    call_ids: list[int] = []

    # 1. The probe: a fresh context, the scenario and the seed's questions, nothing else.
    sink.emit(Event(TURN_STARTED, turn=PROBE_TURN, agent=case_id, payload={"model": settings.model}))
    try:
        answer = await gateway.call(CallRequest(
            messages=[{"role": "user", "content": prompt}], settings=settings, role="probe", turn=PROBE_TURN,
            agent=case_id, cache=False, metadata={"case_id": case_id}), sink)
    except GatewayError as exc:
        sink.emit(Event(TURN_FAILED, turn=PROBE_TURN, agent=case_id, payload={"error": str(exc)}))
        raise ProbeError(f"the probe of '{case_id}' on {settings.model} failed: {exc}") from exc
    call_ids.append(answer.call_id)
    sink.emit(Event(TURN_FINISHED, turn=PROBE_TURN, agent=case_id,
                    payload={"text": answer.text, "placeholder": answer.placeholder}))

    # 2. The classification, by a separate call that may see the real event and outcome.
    sink.emit(Event(TURN_STARTED, turn=CLASSIFY_TURN, agent=case_id, payload={"model": classifier.model}))
    classifier_raw: str | None = None
    paraphrase = None
    try:
        verdict_call = await gateway.call(CallRequest(
            messages=[{"role": "user", "content": classifier_prompt(case, answer.text)}], settings=classifier,
            role="classifier", turn=CLASSIFY_TURN, agent=case_id, cache=False, metadata={"case_id": case_id},
            response_schema=VERDICT_SCHEMA), sink)
        classifier_raw = verdict_call.text
        call_ids.append(verdict_call.call_id)
        verdict, event, reason = parse_verdict(classifier_raw)
        classifier_verdict = verdict
        paraphrase = _check_paraphrase(db, case, verdict, event, embedder)
        if paraphrase is not None and paraphrase.restates:
            verdict = "not_recognized"
            reason = f"{paraphrase.describe()} (the classifier said {classifier_verdict}: {reason})"
        sink.emit(Event(TURN_FINISHED, turn=CLASSIFY_TURN, agent=case_id, payload={"text": classifier_raw}))
    except GatewayError as exc:
        verdict, event, reason = "error", "", f"the classifier call failed: {exc}"
        classifier_verdict = None
        sink.emit(Event(TURN_FAILED, turn=CLASSIFY_TURN, agent=case_id, payload={"error": str(exc)}))

    result = ProbeResult(
        case_id=case_id, model=settings.model, api_base=settings.api_base, asked_at=asked_at, prompt=prompt,
        answer=answer.text, verdict=verdict, classifier_raw=classifier_raw, classifier_model=classifier.model,
        flagged=verdict in CONTAMINATED_VERDICTS, scenario_hash=case.scenario_hash, call_ids=call_ids, reason=reason,
        identified_event=event, placeholder=answer.placeholder, classifier_api_base=classifier.api_base,
        classifier_verdict=classifier_verdict, classifier_warning=classifier_warning,
        paraphrase=paraphrase.to_dict() if paraphrase is not None else None)
    if answer.placeholder:
        # A dry run with the mock model says nothing about contamination: the case keeps its real record.
        result.file_note = "not stored (the mock model's placeholder answer is not a probe result)"
    else:
        result.probe_id = add_probe(
            db, case_id=case_id, model=settings.model, api_base=settings.api_base, asked_at=asked_at,
            prompt=prompt, answer=answer.text, verdict=verdict,
            classifier_raw=classifier_raw if classifier_raw is not None else reason, flagged=result.flagged,
            call_ids=call_ids, classification=result.classification())
        if record_in_file:
            result.file_note = record_probe_in_file(db, case_id, result, row.get("source_path"))
    sink.emit(Event("probe_verdict", agent=case_id, payload={
        "verdict": verdict, "flagged": result.flagged, "advice": result.advice, "reason": reason,
        "probe_id": result.probe_id}))
    return result


def record_probe_in_file(db: sqlite_utils.Database, case_id: str, result: ProbeResult,
                         source_path: str | None) -> str:
    """Append the verdict to the case file's [[probes]] and refresh the store row from that file.

    `library.save_case` is not used: it refuses to write a ready case whose latest probe recognized it,
    and recording that very probe is what flags the case. The file is re-read from disk first, so
    edits made since the import are kept, and it is only written if it still holds the scenario
    that was probed. An `error` verdict is not a probe result and stays in the store only.
    """
    from workbench.cases.library import writable_path
    from workbench.cases.parse import parse_file
    from workbench.cases.write import write_case

    if result.verdict not in VERDICTS:
        return "not recorded in the case file (no verdict)"
    if not source_path or not Path(source_path).is_file():
        return "not recorded in a case file (the case has no file)"
    target = writable_path(source_path)  # a shipped case: its copy in the user's case library
    if target.is_file():
        source_path = target
    parsed = parse_file(source_path)
    on_disk = parsed.case
    if on_disk is None or any(p.severity == "error" for p in parsed.problems):
        return f"not recorded in {source_path} (the file does not parse; fix it and probe again)"
    if on_disk.id != case_id:
        return f"not recorded in {source_path} (it now holds case '{on_disk.id}')"
    if on_disk.scenario_hash != result.scenario_hash:
        return f"not recorded in {source_path} (its scenario changed since it was imported; import it and probe again)"
    note = result.identified_event and f"identified: {result.identified_event}"[:200]
    on_disk.probes.append(Probe(model=result.model, date=result.asked_at[:10], verdict=result.verdict,
                                scenario_hash=result.scenario_hash, note=note or ""))
    try:
        write_case(on_disk, target)
    except OSError as exc:
        return f"not recorded in {target}: {exc}"
    case_rows.upsert_cases(db, [(on_disk.to_dict(), str(target.resolve()), on_disk.content_hash)])
    if Path(source_path).resolve() != target.resolve():
        return f"recorded in the case library: {target} (the shipped {source_path} stays as it was)"
    return f"recorded in {target}"


async def run_probes(db: sqlite_utils.Database, gateway, case_ids: list[str], settings: ModelSettings | None = None,
                     sink: EventSink | None = None, **kw) -> list[ProbeResult | ProbeError]:
    """Probe several cases one after another; a failed case does not stop the rest."""
    out: list[ProbeResult | ProbeError] = []
    for case_id in case_ids:
        try:
            out.append(await run_probe(db, gateway, case_id, settings, sink, **kw))
        except ProbeError as exc:
            out.append(exc)
    return out


def ready_case_ids(db: sqlite_utils.Database) -> list[str]:
    return [r["id"] for r in case_rows.list_cases(db) if r["status"] == "ready"]
