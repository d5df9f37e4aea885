"""The event stream the core emits and its consumers (the TUI, batch output, the transcript store).

Every agent turn emits `turn_started`, `token`*, then `turn_finished` or
`turn_failed`; architectures add protocol events (`perspective`, `motion`,
`amendment`, `vote`, `resolution`, `scenario`, `topology`, ...). The core
never knows who listens: it calls `sink.emit(event)`.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

# Every event kind is declared here. Kinds every consumer can rely on:
TURN_STARTED = "turn_started"
TOKEN = "token"
TURN_FINISHED = "turn_finished"
TURN_FAILED = "turn_failed"
CALL_RETRY = "call_retry"
TURN_REJECTED = "turn_rejected"      # a program rejected a turn's reply and asks again (payload: reason, retry)
CALL_WAITING = "call_waiting"        # a call waits for a connection to its endpoint (shown as "waiting")
CALL_SENT = "call_sent"              # the request went out; tokens or the whole reply follow
CALL_ENDED = "call_ended"            # the request's attempt ended: replied, failed or cancelled (payload: ok)
CALL_NOTICE = "call_notice"          # a call has waited past its first-token timeout (payload: message, waited)
CONNECTIONS = "connections"          # the gateway changed an endpoint's connection limit (payload: the change)
PROVIDER_BATCH = "provider_batch"    # a provider batch was sent, polled, finished or recorded (payload: its state)
CONTEXT_WARNING = "context_warning"  # a program may not fit its model's context window (payload: warning)
RUN_STARTED = "run_started"
RUN_FINISHED = "run_finished"
RUN_FAILED = "run_failed"
RUN_CANCELLED = "run_cancelled"
PROGRESS = "progress"

# Protocol events (stored in the transcript, shown by the protocol's own views). Hindsight:
PERSPECTIVE = "perspective"      # one voice's view (B3 sequential, C1 parallel, C2 members); DQ reads these
MOTION = "motion"
AMENDMENT = "amendment"
VOTE = "vote"
RESOLUTION = "resolution"
SCENARIO = "scenario"
TOPOLOGY = "topology"
# Faultline:
DEBATE_MESSAGE = "debate_message"    # a persona's opening, round or closing statement
MODERATOR = "moderator"              # the moderator's line between rounds
QBAF = "qbaf"                        # a round's argument framework, strengths and crux
CRUX_CARD = "crux_card"
STANCE = "stance"                    # a persona's extracted stance on a contested claim
EXTRACTION_ERROR = "extraction_error"
BASELINE_VOTE = "baseline_vote"      # self-consistency's samples and their majority
# M11:
M11_STAGE = "m11_stage"              # critic, defender, judge, metajudge or binary finished
M11_RETRY = "m11_retry"
M11_ERROR = "m11_error"
# Calibration (Arm B):
JUDGE_SCORE = "judge_score"
JUDGE_ERROR = "judge_error"
PROMPT_REFUSED = "prompt_refused"    # a prompt that would have shown an excluded field was not sent


@dataclass(frozen=True)
class Event:
    kind: str
    run_id: str | None = None
    turn: str | None = None
    agent: str | None = None
    payload: dict[str, Any] = field(default_factory=dict)
    at: float = field(default_factory=time.time)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class EventSink(Protocol):
    def emit(self, event: Event) -> None: ...


def watching(sink: object, run_id: str | None) -> bool:
    """Does someone watch this run's tokens (so its calls are streamed)? A sink says so with a
    `watching(run_id)` method; one without it watches nothing, and its calls are not streamed."""
    ask = getattr(sink, "watching", None)
    return bool(ask(run_id)) if callable(ask) else False


class NullSink:
    def emit(self, event: Event) -> None:
        return None


class ListSink:
    """Keeps every event; used by tests and by short batch commands."""

    def __init__(self) -> None:
        self.events: list[Event] = []

    def emit(self, event: Event) -> None:
        self.events.append(event)

    def kinds(self) -> list[str]:
        return [e.kind for e in self.events]


class FanoutSink:
    """Sends each event to several sinks, e.g. the screen and the transcript store."""

    def __init__(self, *sinks: EventSink) -> None:
        self.sinks = [s for s in sinks if s is not None]

    def emit(self, event: Event) -> None:
        for sink in self.sinks:
            sink.emit(event)

    def watching(self, run_id: str | None) -> bool:
        return any(watching(sink, run_id) for sink in self.sinks)
