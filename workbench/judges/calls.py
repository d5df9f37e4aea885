"""One JSON-answering model call with retries, and what the judges are: specs and items."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable

from workbench.events import EventSink
from workbench.gateway.api import CallRequest, ModelSettings, connection_options
from workbench.structured.cut import asked_again, larger_budget
from workbench.structured.reading import CUT, REFUSED, Reading, read
from workbench.gateway.seeds import draw_settings

MAX_ATTEMPTS = 3  # one call and two retries, then the reply is a judge_error
# A reply that parsed but was refused by a check (a quote not found in the response) gets this many corrective
# retries, each told why; refused again, the pair is a judge_error (issue 25 item 7; the project's choice).
CORRECTIVE_RETRIES = 1
# A reply cut at max_tokens is asked again by structured.cut's rule (CUT_GROWTH times the tokens, within the window).
LENGTH = "length"  # the finish reason of a reply stopped at max_tokens
# A --retry-errors round r draws samples from r * RETRY_STRIDE on: fresh calls, never a replay of the
# invalid replies of an earlier round (the gateway's replay key includes the sample).
RETRY_STRIDE = 1000


@dataclass(frozen=True)
class JudgeSpec:
    """A judge of the study definition's [[judges]]."""

    name: str
    model: str
    api_base: str = ""
    temperature: float = 0.0
    pipeline: str = "direct"   # direct | adversarial
    runs: int = 1              # 1 or 3
    max_tokens: int = 1024
    timeout: float = 120.0
    seed: int | None = None
    connection: tuple = ()     # the judge table's connection keys (workbench.gateway.api.CONNECTION_KEYS)

    @classmethod
    def from_definition(cls, judge: dict, seed: int | None = None) -> "JudgeSpec":
        return cls(name=judge["name"], model=judge.get("model", "mock"), api_base=judge.get("api_base") or "",
                   temperature=float(judge.get("temperature", 0.0)), pipeline=judge.get("pipeline", "direct"),
                   runs=int(judge.get("runs", 1)), max_tokens=int(judge.get("max_tokens", 1024)),
                   timeout=float(judge.get("timeout", 120.0)), seed=seed,
                   connection=tuple(sorted(connection_options(judge).items())))

    def settings(self, temperature: float | None = None) -> ModelSettings:
        return ModelSettings(model=self.model, api_base=self.api_base or None,
                             temperature=self.temperature if temperature is None else temperature,
                             seed=self.seed, max_tokens=self.max_tokens, timeout=self.timeout,
                             **dict(self.connection))


@dataclass(frozen=True)
class JudgeItem:
    """What a judge is shown of one blind item: never its condition, run or model."""

    id: str
    scenario: str
    outcome: str | None
    response: str
    transposition: str | None = None  # a transposed case's mapping to the real case (every item of the case)


@dataclass
class Asked:
    """The outcome of one JSON call with retries."""

    parsed: Any = None
    raws: list[str] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    call_ids: list[int] = field(default_factory=list)
    placeholder: bool = False
    readings: list[tuple[str, str, Reading]] = field(default_factory=list)   # (key, step, reading) per reply
    corrective_retries: int = 0   # retries after a refused reply (a quote not in the response), told why
    cut: int = 0                  # replies cut at max_tokens that did not parse (each retried with more room)

    @property
    def ended_cut(self) -> bool:
        """The last reply was cut at max_tokens (with no room or no attempt left to grow): asking less helps."""
        return not self.ok and bool(self.readings) and self.readings[-1][2].outcome == CUT

    @property
    def mended(self) -> bool:
        """A reply was cut and a later one, given more room, parsed."""
        return self.ok and self.cut > 0

    @property
    def ok(self) -> bool:
        return self.parsed is not None

    @property
    def attempts(self) -> int:
        return len(self.raws)

    @property
    def retries(self) -> int:
        """Calls after the first: every one of them a retry after an unusable reply."""
        return max(0, len(self.raws) - 1)


async def ask_json(gateway, build: Callable[[str | None], list[dict]], validate: Callable[[str], Any], *,
                   settings: ModelSettings, study_id: str, turn: str, agent: str, replicate: int = 0,
                   sample_base: int = 0, metadata: dict | None = None, sink: EventSink | None = None,
                   role: str = "judge", attempts: int = MAX_ATTEMPTS, schema: dict | None = None,
                   step: str = "judge") -> Asked:
    """Ask until `validate` accepts the reply, at most `attempts` times; each call a fresh context.

    Each attempt is a distinct draw (`sample`), so the gateway's replay never
    hands back the invalid reply again. `schema`: the reply's JSON schema, sent where the model decodes
    by schema (workbench/gateway/transport.py decides). Each reply's reading (parsed, repaired, unparsed)
    is kept in `readings` under `step`, for the caller to record. A GatewayError propagates.

    A reply that does not parse is asked again with the reason, up to `attempts` calls in all. A reply that
    parsed but was refused by a check (`RefusedReply`: a quote not found in the response) gets
    `CORRECTIVE_RETRIES` corrective retry, told why; refused again, the asking stops there. A reply that did
    not parse because it was stopped at max_tokens is `cut`: its retry has more tokens within the model's window
    (`workbench/structured/cut.py`, the rule of runs' structured steps too; its reading names the change); with no
    more room the asking stops (`ended_cut`: the caller may ask less per call), since the same request would only
    be cut again.
    """
    asked = Asked()
    note = None
    settings = draw_settings(settings, replicate)  # a judge's runs are independent draws: their own seeds
    for attempt in range(attempts):
        request = CallRequest(messages=build(note), settings=settings, role=role, study_id=study_id, turn=turn,
                              agent=agent, replicate=replicate, sample=sample_base + attempt,
                              metadata=dict(metadata or {}), response_schema=schema)
        result = await gateway.call(request, sink)
        asked.raws.append(result.text)
        asked.placeholder = asked.placeholder or result.placeholder
        if result.call_id is not None:
            asked.call_ids.append(result.call_id)
        reading = read(validate, result.text, cut=result.finish_reason == LENGTH)
        key = f"judge/{agent}/{(metadata or {}).get('item', '')}/{turn}/r{replicate}/s{sample_base + attempt}"
        asked.readings.append((key, step, reading))
        if reading.ok:
            asked.parsed = reading.value
            return asked
        note = reading.detail
        asked.reasons.append(note)
        if reading.outcome == CUT:
            asked.cut += 1
            larger = larger_budget(settings, result.input_tokens)
            if larger is None:
                break
            asked.readings[-1] = (key, step, asked_again(reading, settings.max_tokens, larger))
            settings = replace(settings, max_tokens=larger)
            note = f"{note}; your reply must be complete within {larger} tokens: keep each justification short"
        if reading.outcome == REFUSED:
            if asked.corrective_retries >= CORRECTIVE_RETRIES:
                break
            if attempt + 1 < attempts:
                asked.corrective_retries += 1
    return asked
