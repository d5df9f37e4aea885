"""A run's transcript as panels, built from live events or from the stored ones.

The live run screen shows one panel per agent turn, streaming, with the
committee's motions, amendments and votes in between. `TranscriptView` folds
the event stream into that shape without knowing anything about widgets:

    view = TranscriptView.from_store(db, run_id)      # what is stored so far
    changed = view.apply(event)                       # then each live event for that run
    for item in view.items: ...                       # TurnPanel or ProtocolItem, in order

Tokens are appended to their turn's panel while it streams; `turn_finished`
replaces the text with the full one (so a retried attempt's partial text never
stays); a `call_retry` clears the partial text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from workbench.events import CALL_RETRY, TOKEN, TURN_FAILED, TURN_FINISHED, TURN_STARTED, Event

PROTOCOL_KINDS = ("question", "perspective", "motion", "second", "amendment", "vote", "resolution", "scenario",
                  "topology")


@dataclass
class TurnPanel:
    turn: str
    agent: str | None
    label: str = ""
    phase: str = ""
    status: str = "running"  # running | done | failed
    text: str = ""
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost: float | None = None
    replayed: bool = False
    placeholder: bool = False
    error: str | None = None
    protocol: list[dict] = field(default_factory=list)  # the protocol events this turn produced


@dataclass
class ProtocolItem:
    """A protocol event that belongs to no single turn (an amendment's result, the chair's ruling)."""

    kind: str
    agent: str | None
    payload: dict[str, Any]


class TranscriptView:
    def __init__(self, run_id: str | None = None) -> None:
        self.run_id = run_id
        self.items: list[TurnPanel | ProtocolItem] = []
        self.panels: dict[str, TurnPanel] = {}
        self.status: str | None = None  # from run_started / run_finished / run_failed / run_cancelled
        self.error: str | None = None

    @classmethod
    def from_store(cls, db, run_id: str) -> "TranscriptView":
        from store.events import events_for_run

        view = cls(run_id)
        for row in events_for_run(db, run_id):
            view.apply(row)
        return view

    def apply(self, event: Event | dict) -> TurnPanel | ProtocolItem | None:
        """Fold one event (an Event, or a stored row from store.events) in; returns what changed."""
        if isinstance(event, Event):
            kind, turn, agent, payload, run_id = event.kind, event.turn, event.agent, event.payload, event.run_id
        else:
            kind, turn, agent, payload, run_id = (event["kind"], event.get("turn"), event.get("agent"),
                                                  event.get("payload") or {}, event.get("run_id"))
        if self.run_id is not None and run_id is not None and run_id != self.run_id:
            return None
        if kind == "run_started":
            self.status, self.error = "running", None
            return None
        if kind in ("run_finished", "run_failed", "run_cancelled"):
            self.status = {"run_finished": "done", "run_failed": "failed", "run_cancelled": "cancelled"}[kind]
            self.error = payload.get("error")
            return None
        if kind == TURN_STARTED:
            panel = TurnPanel(turn or "", agent, payload.get("label", ""), payload.get("phase", ""))
            if turn in self.panels:  # a turn re-run after a failure starts afresh, in place
                old = self.panels[turn]
                old.__dict__.update(panel.__dict__)
                return old
            self.panels[turn or ""] = panel
            self.items.append(panel)
            return panel
        panel = self.panels.get(turn or "") if turn else None
        if kind == TOKEN and panel is not None:
            panel.text += payload.get("text", "")
            return panel
        if kind == CALL_RETRY and panel is not None:
            panel.text = ""
            return panel
        if kind == TURN_FINISHED and panel is not None:
            panel.status, panel.text = "done", payload.get("text", "")
            for key in ("input_tokens", "output_tokens", "cost"):
                setattr(panel, key, payload.get(key))
            panel.replayed, panel.placeholder = bool(payload.get("replayed")), bool(payload.get("placeholder"))
            return panel
        if kind == TURN_FAILED and panel is not None:
            panel.status, panel.error = "failed", payload.get("error")
            return panel
        if kind in PROTOCOL_KINDS:
            entry = {"kind": kind, "agent": agent, **payload}
            if panel is not None:
                panel.protocol.append(entry)
                return panel
            item = ProtocolItem(kind, agent, dict(payload))
            self.items.append(item)
            return item
        return None

    def protocol(self, kind: str | None = None) -> list[dict]:
        """Every protocol event in order (e.g. all votes), whether attached to a turn or not."""
        out = []
        for item in self.items:
            entries = item.protocol if isinstance(item, TurnPanel) else [{"kind": item.kind, "agent": item.agent,
                                                                         **item.payload}]
            out += [e for e in entries if kind is None or e["kind"] == kind]
        return out
