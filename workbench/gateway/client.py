"""The Gateway: every model call in the project, streamed, paced, retried, priced, logged, replayable.

`await gateway.call(request, sink)`:

1. computes the call's replay key (model, messages, sampling settings,
   replicate, sample) and, unless `request.cache` is False, serves an earlier
   successful call with that key in the same study from the store without
   touching the network (status `replayed`). This is also how an interrupted
   study resumes: every call that completed before the kill is replayed.
   An identical call already in flight is waited for and served the same
   way (single flight), so concurrent runs never pay twice for one reply.
2. in replay-only mode, a miss raises ReplayMiss naming the turn and model.
3. refuses new calls once the study's cost ceiling is reached.
4. otherwise streams attempts through litellm under the concurrency cap and
   the model's rate limits, retrying 429 / 5xx / connection errors / timeouts
   / broken streams with backoff (honouring Retry-After) within a total time
   bound; every attempt is appended to the study's hash-chained JSONL log and
   to the store's `calls` table.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import dataclasses
import hashlib
import itertools
import json
import os
import random
import shutil
import tempfile
import time
import weakref
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterator

import sqlite_utils

from store import calls as call_rows
from store.db import DiskFull, is_disk_full, writer
from workbench.events import (
    CALL_ENDED, CALL_NOTICE, CALL_RETRY, CALL_SENT, CALL_WAITING, CONNECTIONS, TOKEN, Event, EventSink, NullSink,
    watching,
)
from workbench.gateway.api import (
    MOCK_MODEL,
    SIM_MODEL,
    CallRequest,
    CallResult,
    ContextOverflow,
    CostCeilingReached,
    GatewayError,
    ReplayMiss,
)
from workbench.gateway.calllog import CallLog, TornTail, log_name
from workbench.gateway.connections import ConnectionChange, EndpointLimiter, endpoint_of
from workbench.gateway.limits import ModelLimits, ModelRateLimiter, estimate_tokens
from workbench.gateway.mock import mock_text, sim_text
from workbench.gateway.provider_batch import Batcher, ProviderBatchConfig, batch_provider
from workbench.gateway.retry import AttemptFailed, RetryPolicy, schema_failed
from workbench.gateway.secrets import scrub, secret_values
from workbench.gateway.seeds import sample_settings


@dataclass
class GatewayConfig:
    """Limits shared by every call of one gateway (see workbench/model_settings.py for the stored form)."""

    concurrency: int = 8
    """Calls in flight at once, across the models for which nothing more is asked: a default, which a
    command's `max_connections` or a model's own lifts or lowers for its endpoint (never a hidden cap)."""
    limits: dict[str, ModelLimits] = field(default_factory=dict)
    """Per-model requests and tokens per minute, keyed by litellm model string."""
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    stall_timeout: float = 60.0
    """Seconds without a token, once tokens flow, after which a streamed attempt fails (a model's own
    `stall_timeout` wins). Waiting for the first token is `first_token_timeout`'s, never a stall."""
    cost_ceiling_default: float | None = None
    """USD per study when the study itself names no ceiling; None = no ceiling."""
    rate_window: float = 60.0
    """Seconds over which rpm / tpm are counted (a minute; tests shorten it)."""
    max_connections: int | None = None
    """Connections per endpoint for every model of this command (`--max-connections`), in place of
    `concurrency`; a model's own `max_connections` may only lower it (the command says so once)."""
    stream: bool = False
    """Stream every call (`--stream`), not only those of runs someone watches."""
    provider_batch: ProviderBatchConfig | None = None
    """Send calls as provider batches (`--provider-batch`), round by round (workbench/gateway/provider_batch.py)."""


_CALL_SERIALS = itertools.count(1)


def call_key(request: CallRequest) -> str:
    """sha256 over the replay key: model, messages, sampling settings, replicate, sample, the reply's
    JSON schema when the call asks for one (a schema shapes the reply; keys without one are unchanged), and
    a judge's name when the call is a judge's (role "judge")."""
    doc = {"model": request.settings.model, "messages": request.messages,
           "sampling": request.settings.sampling(), "replicate": request.replicate, "sample": request.sample}
    if request.response_schema is not None:
        doc["schema"] = request.response_schema
    if request.role == "judge" and request.agent:
        # A judge is its own draw: two judges on one model with the same settings asked the same prompt are
        # two calls, never one reply served to both by replay or single flight (issue 34: a panel's agreement).
        doc["judge"] = request.agent
    if request.settings.model == SIM_MODEL:
        # The simulator's reply is a function of more than the messages (whose run, which judge, which item:
        # its planted effects differ by them), so its key holds those too: two simulated judges asked the
        # same prompt are two draws, never one reply shared by single flight or replay.
        doc["sim"] = {"study": request.study_id, "run": request.run_id, "agent": request.agent,
                      "turn": request.turn, "metadata": request.metadata}
    # The key's canonical JSON (sorted keys, no spaces) written a member at a time: the same text, with the
    # schema's part encoded once per schema (a score schema's 101 numbers cost more than the messages).
    text = "{" + ",".join(f'"{k}":' + (_schema_json(v) if k == "schema" else _canonical(v))
                          for k, v in sorted(doc.items())) + "}"
    return hashlib.sha256(text.encode()).hexdigest()


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


_SCHEMAS: dict[int, tuple[Any, Any, str]] = {}  # id(schema) -> (the schema, a copy as encoded, its JSON)


def _schema_json(schema: Any) -> str:
    """`_canonical(schema)`, kept for the schema object while it holds what was encoded (compared with a copy:
    a schema changed in place is encoded anew). A program asks with a few schemas, the same on every call."""
    hit = _SCHEMAS.get(id(schema))
    if hit is not None and hit[0] is schema and hit[1] == schema:
        return hit[2]
    if len(_SCHEMAS) >= 64:  # schemas made anew per call: kept few
        _SCHEMAS.clear()
    text = _canonical(schema)
    _SCHEMAS[id(schema)] = (schema, copy.deepcopy(schema), text)
    return text


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


def _scrub_record(record: dict[str, Any]) -> dict[str, Any]:
    """The record with any key value redacted from every string in it (usually there is none to find)."""
    secrets = secret_values()
    flat = json.dumps(record, ensure_ascii=False, default=str)
    if not any(value in flat for _, value in secrets) and "earer" not in flat:
        return record

    def deep(value: Any) -> Any:
        if isinstance(value, str):
            return scrub(value, secrets)
        if isinstance(value, list):
            return [deep(v) for v in value]
        if isinstance(value, dict):
            return {k: deep(v) for k, v in value.items()}
        return value

    return deep(record)


class Gateway:
    def __init__(self, db: sqlite_utils.Database, log_dir: Path, *, replay_only: bool = False,
                 config: GatewayConfig | None = None, rng: random.Random | None = None) -> None:
        self.db = db
        self.log_dir = Path(log_dir)
        self.replay_only = replay_only
        self.config = config or GatewayConfig()
        self._rng = rng or random.Random()
        self._logs: dict[str, CallLog] = {}
        self._ceilings: dict[str | None, float | None] = {}
        self._study_ceilings: dict[str, tuple[float, float | None]] = {}  # study -> (read at, its row's ceiling)
        self._spent: dict[str | None, float] = {}
        # asyncio primitives belong to one event loop; a gateway may outlive one (tests, TUI + batch).
        self._per_loop: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self.connection_changes: list[ConnectionChange] = []
        self._sink: EventSink | None = None      # where connection changes are shown (the latest caller's)
        self._no_schema: set[str] = set()         # endpoints that refused a response_format: ask without
        self._reserved = 0                        # bytes kept free for the records of calls in flight
        self._overflowed: dict[tuple[str, str], str] = {}  # (model, api_base) -> the overflow that stopped it
        self._store_file: tuple[Path | None] | None = None  # the store's file (None: in memory), once known
        self._folders: dict[Path, Path] = {}     # where a record goes -> the folder whose free space is asked

    # --- public --------------------------------------------------------------------------------
    def log_path(self, study_id: str | None) -> Path:
        return self.log_dir / log_name(study_id)

    def set_cost_ceiling(self, study_id: str | None, usd: float | None) -> None:
        """Override the study's ceiling for this gateway (None: no ceiling)."""
        self._ceilings[study_id] = usd

    def cost_ceiling(self, study_id: str | None) -> float | None:
        """The study's ceiling in USD: set here, else on the study row, else the settings' default.
        Calls outside any study (probes, connection tests) have none unless one is set here."""
        if study_id in self._ceilings:
            return self._ceilings[study_id]
        if not study_id:
            return None
        # Read at most once a second, not once a call: a ceiling changed on the study row (it is outside the
        # freeze) holds from the next second.
        read_at, ceiling = self._study_ceilings.get(study_id, (None, None))
        if read_at is None or time.monotonic() - read_at > 1.0:
            exists, ceiling = call_rows.study_ceiling(self.db, study_id)
            if exists:
                self._study_ceilings[study_id] = (time.monotonic(), ceiling)
        return ceiling if ceiling is not None else self.config.cost_ceiling_default

    def totals(self, *, study_id: str | None = None, run_id: str | None = None) -> dict:
        """Attempts, tokens and cost so far (from the store), for a study and/or a run."""
        return call_rows.spent(self.db, study_id=study_id, run_id=run_id)

    async def call(self, request: CallRequest, sink: EventSink | None = None) -> CallResult:
        sink = sink or NullSink()
        # Each sample of a draw is its own draw: its own seed, recorded with the call and in its replay key.
        request = dataclasses.replace(request, settings=sample_settings(request.settings, request.sample))
        key = call_key(request)
        if request.cache:
            row = await self._logged_or_in_flight(request, key)
            if row is not None:
                return self._replay(request, key, row, sink)
        if self.replay_only:
            raise ReplayMiss(
                f"replay only: no logged call for turn {request.turn or '-'} (agent {request.agent or '-'}, "
                f"run {request.run_id or '-'}) on model {request.settings.model}, replicate {request.replicate}, "
                f"sample {request.sample}; run without --replay to make it", attempts=0)
        self._check_ceiling(request.study_id)
        stopped = self._overflowed.get((request.settings.model, request.settings.api_base or ""))
        if stopped:  # an overflow on this endpoint stopped its runs: said once, the same for every run
            raise ContextOverflow(stopped, attempts=0)
        send = self._call_network
        if self.config.provider_batch is not None and request.cache and batch_provider(request.settings):
            self._sink = sink
            send = self._loop_state()["batcher"].call  # half price, a round at a time
        if not request.cache:
            return await send(request, key, sink)
        # Single flight: the same call asked again while this one is in flight waits for it and is served
        # its reply as a replay, instead of paying for it twice (two runs of a study often share a turn).
        flights = self._loop_state()["flights"]
        landed = asyncio.get_running_loop().create_future()
        flights[(request.study_id, key)] = landed
        try:
            return await send(request, key, sink)
        finally:
            del flights[(request.study_id, key)]
            landed.set_result(None)  # waiters look in the store: a failed or cancelled call is never shared

    async def _logged_or_in_flight(self, request: CallRequest, key: str) -> dict | None:
        """The logged ok call of this key, waiting first for an identical call in flight if there is one."""
        row = call_rows.find_ok_call(self.db, key, request.study_id)
        flights = self._loop_state()["flights"]
        if row is None and (request.study_id, key) in flights:
            # shield: cancelling this waiter must not cancel the call it waits for
            await asyncio.shield(flights[(request.study_id, key)])
            row = call_rows.find_ok_call(self.db, key, request.study_id)  # None if it failed: call anew
        return row

    # --- replay --------------------------------------------------------------------------------
    def _replay(self, request: CallRequest, key: str, row: dict, sink: EventSink) -> CallResult:
        text = row["response"] or ""
        record = self._base_record(request, key, attempt=0, started=_now())
        record.update(status="replayed", response=text, finish_reason=row["finish_reason"],
                      input_tokens=row["input_tokens"], output_tokens=row["output_tokens"], cost=None,
                      latency_ms=0.0, finished_at=_now(), replay_of=row["id"])
        call_id = self._record(record)
        sink.emit(Event(TOKEN, run_id=request.run_id, turn=request.turn, agent=request.agent,
                        payload={"text": text, "replayed": True}))
        return CallResult(text=text, finish_reason=row["finish_reason"], model=row["model"],
                          input_tokens=row["input_tokens"], output_tokens=row["output_tokens"],
                          cost=row["cost"], latency_ms=0.0, call_id=call_id, replayed=True, attempts=0,
                          placeholder=request.settings.model == MOCK_MODEL, call_key=key)

    # --- network -------------------------------------------------------------------------------
    def _loop_state(self) -> dict:
        loop = asyncio.get_running_loop()
        state = self._per_loop.get(loop)
        if state is None:
            state = {"sem": asyncio.Semaphore(max(1, int(self.config.concurrency))), "limiters": {},
                     "endpoints": {}, "flights": {}, "commits": _GroupCommit(self, loop),
                     "batcher": Batcher(self, self.config.provider_batch or ProviderBatchConfig())}
            self._per_loop[loop] = state
        return state

    def _limiter(self, model: str) -> ModelRateLimiter | None:
        limits = self.config.limits.get(model)
        if not limits or not (limits.rpm or limits.tpm):
            return None
        limiters = self._loop_state()["limiters"]
        if model not in limiters:
            limiters[model] = ModelRateLimiter(limits, window=self.config.rate_window)
        return limiters[model]

    def _endpoint(self, settings, study_id: str | None) -> EndpointLimiter | None:
        """The endpoint's adaptive limiter (None for the offline models, which have no server). Its ceiling is
        what was asked (a model's `max_connections`, the command's `--max-connections`: the lower of the
        two), else the global `concurrency`; an asked width starts there, the default slow-starts."""
        if settings.model in (MOCK_MODEL, SIM_MODEL):
            return None
        endpoints = self._loop_state()["endpoints"]
        key = endpoint_of(settings.model, settings.api_base)
        limiter = endpoints.get(key)
        asked = [int(x) for x in (settings.max_connections, self.config.max_connections) if x]
        ceiling = min(asked) if asked else int(self.config.concurrency)
        if limiter is None:
            limiter = endpoints[key] = EndpointLimiter(key, ceiling, asked=bool(asked))
            command = self.config.max_connections
            if command and settings.max_connections and settings.max_connections < command:
                self._say_lowered(key, command, settings)
        elif settings.max_connections:
            limiter.cap(ceiling)
        limiter.on_change = lambda change: self._connection_changed(change, study_id)
        return limiter

    def _say_lowered(self, endpoint: str, command: int, settings) -> None:
        """A model's own `max_connections` below the command's `--max-connections`: said once per endpoint."""
        if self._sink is not None:
            self._sink.emit(Event(CONNECTIONS, payload={
                "endpoint": endpoint, "old": command, "new": int(settings.max_connections),
                "reason": f"model {settings.model}'s own max_connections, below --max-connections {command}"}))

    def _connection_changed(self, change: ConnectionChange, study_id: str | None) -> None:
        from store import connections as connection_rows

        self.connection_changes.append(change)
        try:
            connection_rows.add_change(self.db, study_id=study_id, endpoint=change.endpoint, old=change.old,
                                       new=change.new, reason=change.reason, at=change.at)
        except Exception as exc:  # a change we cannot record must not fail the call that caused it
            if is_disk_full(exc):
                raise
        if self._sink is not None:
            self._sink.emit(Event(CONNECTIONS, payload={"endpoint": change.endpoint, "old": change.old,
                                                        "new": change.new, "reason": change.reason}))

    def _check_ceiling(self, study_id: str | None) -> None:
        ceiling = self.cost_ceiling(study_id)
        if ceiling is None:
            return
        spent = self._study_spent(study_id)
        if spent >= ceiling:
            raise CostCeilingReached(
                f"study {study_id or '(none)'} has spent ${spent:.4f} of its ${ceiling:.4f} cost ceiling; "
                "no new calls are made", attempts=0)

    def _study_spent(self, study_id: str | None) -> float:
        if study_id not in self._spent:
            self._spent[study_id] = float(call_rows.spent(self.db, study_id=study_id)["cost"]
                                          if study_id else 0.0)
        return self._spent[study_id]

    async def _call_network(self, request: CallRequest, key: str, sink: EventSink) -> CallResult:
        settings = request.settings
        policy = self.config.retry
        state = self._loop_state()
        limiter = self._limiter(settings.model)
        self._sink = sink
        endpoint = self._endpoint(settings, request.study_id)
        placeholder = settings.model == MOCK_MODEL
        text_for_mock = mock_text(request) if placeholder else None
        if settings.model == SIM_MODEL:
            text_for_mock = sim_text(request, self.db)
        stream = request.stream if request.stream is not None else \
            (self.config.stream or watching(sink, request.run_id))
        attempt = 0
        schema_dropped = ""  # why this call's next attempts go without its schema (named in each record)
        watch: list[asyncio.TimerHandle | None] = [None]  # the first-token watch of the attempt in flight
        serial = next(_CALL_SERIALS)  # tells this call's events from a concurrent one's of the same turn and agent

        def on_token(piece: str) -> None:
            if watch[0] is not None:
                watch[0].cancel()
                watch[0] = None
            sink.emit(Event(TOKEN, run_id=request.run_id, turn=request.turn, agent=request.agent,
                            payload={"text": piece, "attempt": attempt, "call": serial}))

        def emit(kind: str, **payload) -> None:
            sink.emit(Event(kind, run_id=request.run_id, turn=request.turn, agent=request.agent,
                            payload={"attempt": attempt, "call": serial, **payload}))

        from workbench.gateway.transport import (
            Timers, complete_attempt, cost_of, load_litellm, response_format, stream_attempt, structured_mode,
        )

        await load_litellm()  # off the loop and before any attempt's clock: the first one's timeout holds
        timers = Timers.of(settings, self.config.stall_timeout)
        first_start = time.monotonic()
        while True:
            attempt += 1
            mode = "none" if schema_dropped or (endpoint is not None and endpoint.endpoint in self._no_schema) else \
                structured_mode(settings, request.response_schema)
            fmt = response_format(mode, request.response_schema)
            handle = await limiter.acquire(estimate_tokens(request.messages, settings.max_tokens)) if limiter else None
            # an endpoint with an asked width is held to it alone; the others share the global default
            shared = state["sem"] if endpoint is None or not endpoint.asked else contextlib.nullcontext()
            if (endpoint is not None and not endpoint.has_room()) or (shared is state["sem"] and shared.locked()):
                emit(CALL_WAITING, endpoint=endpoint.endpoint if endpoint else None)
            if endpoint is not None:
                await endpoint.acquire()
            outcome_ok: bool | None = None
            failure: AttemptFailed | None = None
            reserved = 0
            try:
                async with shared:
                    # never pay for a reply that cannot be written; the request is journaled before it is sent
                    reserved, journal = await self._journaled(request, key, attempt) if endpoint is not None \
                        else (self._ensure_recordable(request), None)
                    emit(CALL_SENT, stream=stream, max_tokens=settings.max_tokens)
                    started_at, t0 = _now(), time.perf_counter()
                    if endpoint is not None and request.study_id:
                        watch[0] = asyncio.get_running_loop().call_later(
                            timers.first_token, self._first_token_overdue, request, endpoint.endpoint, timers,
                            first_start, emit)
                    try:
                        if stream:
                            outcome = await stream_attempt(settings, request.messages, on_token=on_token,
                                                           timers=timers, mock_text=text_for_mock,
                                                           response_format=fmt)
                        else:
                            outcome = await complete_attempt(settings, request.messages, timers=timers,
                                                             mock_text=text_for_mock, response_format=fmt)
                            if outcome.text:
                                on_token(outcome.text)
                        outcome_ok = True
                    except AttemptFailed as exc:
                        failure = exc
                        outcome_ok = False if exc.kind not in ("config", "auth", "client") else None
                    except asyncio.CancelledError:
                        # The caller gave up (a closed dialog, a signal): the attempt is still on record,
                        # unless the disk is full, which is likely why everything is being cancelled.
                        record = self._base_record(request, key, attempt=attempt, started=started_at,
                                                   mode=mode, stream=stream, schema_dropped=schema_dropped)
                        # Its own status: the request may or may not have reached the server, so it is not
                        # counted among the calls made (and the counts say how many were cancelled).
                        record.update(status="cancelled", error="cancelled by the caller", error_kind="cancelled",
                                      finished_at=_now(), latency_ms=round((time.perf_counter() - t0) * 1000.0, 3))
                        try:
                            self._record(record, answers=journal)
                        except DiskFull:
                            pass
                        finally:
                            self._reserved -= reserved
                        raise
                    latency_ms = (time.perf_counter() - t0) * 1000.0
            finally:
                if watch[0] is not None:
                    watch[0].cancel()
                    watch[0] = None
                emit(CALL_ENDED, ok=outcome_ok is True)  # live views (workbench/gateway/live_calls.py) drop it
                if endpoint is not None:
                    await endpoint.release(ok=outcome_ok, failure_kind=failure.kind if failure else None,
                                           status=failure.status if failure else None)
            try:
                record = self._base_record(request, key, attempt=attempt, started=started_at, mode=mode,
                                           stream=stream, schema_dropped=schema_dropped)
                record.update(finished_at=_now(), latency_ms=round(latency_ms, 3))
                if failure is None:
                    if limiter:
                        limiter.settle(handle, (outcome.input_tokens or 0) + (outcome.output_tokens or 0))
                    cost = cost_of(settings.model, outcome.input_tokens, outcome.output_tokens)
                    record.update(status="ok", response=outcome.text, finish_reason=outcome.finish_reason,
                                  input_tokens=outcome.input_tokens, output_tokens=outcome.output_tokens, cost=cost)
                    call_id = await self._record_soon(record, answers=journal)
                    if cost:
                        self._spent[request.study_id] = self._study_spent(request.study_id) + cost
                    return CallResult(text=outcome.text, finish_reason=outcome.finish_reason, model=settings.model,
                                      input_tokens=outcome.input_tokens, output_tokens=outcome.output_tokens,
                                      cost=cost, latency_ms=latency_ms, call_id=call_id, attempts=attempt,
                                      placeholder=placeholder, call_key=key)

                record.update(status="error", error=str(failure), error_kind=failure.kind,
                              http_status=failure.status, partial_response=failure.partial or None)
                await self._record_soon(record, answers=journal)
            finally:
                self._reserved -= reserved  # the record is written (or the call failed): room freed
            elapsed = time.monotonic() - first_start
            wait = failure.retry_after if failure.retry_after is not None else policy.backoff(attempt, self._rng)
            if failure.kind == "response_format" and endpoint is not None and mode != "none":
                self._no_schema.add(endpoint.endpoint)  # this server refuses the schema: ask again without it
                wait = 0.0
            elif mode != "none" and schema_failed(failure):
                schema_dropped = (f"attempt {attempt} carried the schema and the server failed it "
                                  f"({str(failure)[:120]}): asked again without it")
                wait = 0.0
            give_up = None
            if not failure.retryable:
                give_up = "not retryable"
            elif attempt >= policy.max_attempts:
                give_up = f"{attempt} attempts made"
            elif elapsed + wait > policy.max_total:
                give_up = f"retry time bound of {policy.max_total:g}s reached"
            if failure.kind == "context_window":
                raise self._stop_overflowed(request, failure, attempt)
            if give_up:
                where = f" (turn {request.turn})" if request.turn else ""
                raise GatewayError(scrub(f"{settings.model}{where}: {failure} [{give_up}]"),
                                   status=failure.status, retryable=failure.retryable, attempts=attempt)
            sink.emit(Event(CALL_RETRY, run_id=request.run_id, turn=request.turn, agent=request.agent,
                            payload={"attempt": attempt, "next_attempt": attempt + 1, "error": str(failure),
                                     "kind": failure.kind, "status": failure.status, "wait": round(wait, 3),
                                     "retry_after": failure.retry_after, "schema_dropped": schema_dropped or None,
                                     # tokens streamed by the failed attempt are void: displays drop them
                                     "discard_partial": bool(failure.partial)}))
            await asyncio.sleep(wait)

    def _first_token_overdue(self, request: CallRequest, endpoint: str, timers, first_start: float, emit) -> None:
        """A call past its first-token timeout with nothing yet: if the study abandoned a request on this endpoint
        that may still be generating (workbench/gateway/abandoned.py), say so, and how long this call has waited."""
        from workbench.gateway.abandoned import abandoned_request, notice

        try:
            abandoned = abandoned_request(self.db, request.study_id, request.settings.api_base, within=timers.total)
        except Exception as exc:  # a notice that cannot be read must not fail the call it is about
            if is_disk_full(exc):
                return
            raise
        if abandoned is not None:
            waited = time.monotonic() - first_start
            emit(CALL_NOTICE, message=notice(endpoint, waited, abandoned), waited=round(waited, 1))

    def _stop_overflowed(self, request: CallRequest, failure: AttemptFailed, attempt: int) -> ContextOverflow:
        """A prompt did not fit: the window it names is learned, and the endpoint's other calls stop."""
        from workbench.gateway.context_window import learn_from_error, overflow_message

        settings = request.settings
        window = learn_from_error(settings, str(failure))
        message = scrub(overflow_message(settings, window, f"turn {request.turn or '-'}: {failure}"))
        self._overflowed[(settings.model, settings.api_base or "")] = message
        return ContextOverflow(message, status=failure.status, attempts=attempt)

    # --- records -------------------------------------------------------------------------------
    def _base_record(self, request: CallRequest, key: str, *, attempt: int, started: str, mode: str = "none",
                     stream: bool = False, schema_dropped: str = "") -> dict[str, Any]:
        # `settings` records what shaped the reply (the replay key's sampling) and how it was asked for.
        settings = dict(request.settings.sampling(), structured=mode, stream=stream)
        if schema_dropped:
            settings["schema_dropped"] = schema_dropped
        return {
            "call_key": key, "study_id": request.study_id, "run_id": request.run_id, "turn": request.turn,
            "agent": request.agent, "role": request.role, "attempt": attempt, "model": request.settings.model,
            "api_base": request.settings.api_base, "messages": request.messages,
            "settings": settings, "replicate": request.replicate, "sample": request.sample,
            "started_at": started, "finished_at": None, "status": None, "response": None,
            "finish_reason": None, "error": None, "input_tokens": None, "output_tokens": None, "cost": None,
            "latency_ms": None,
        }

    def _log(self, study_id: str | None) -> CallLog:
        log = self._logs.get(study_id or "")
        if log is None:
            log = self._logs[study_id or ""] = CallLog(self.log_path(study_id))
        return log

    def _ensure_recordable(self, request: CallRequest) -> int:
        """Before a request goes out: the log ends in a whole line (a torn line the store never recorded is
        cut away, and the cut recorded; one it did record stops everything), and both the log's and the
        store's disks have room for this call's record besides the records of the calls in flight. Returns the
        bytes reserved for this call (released once its record is written); `_journaled` journals a request
        sent to a server (workbench/gateway/journal.py)."""
        log = self._log(request.study_id)
        try:
            log.check_tail()
        except TornTail as torn:
            self._repair(log, request.study_id, torn)
        need = 2 * (len(json.dumps(request.messages, ensure_ascii=False)) + 8 * int(request.settings.max_tokens or 0)) \
            + 65536
        if self._store_file is None:  # asked once: a store does not move
            from store.db import store_path

            self._store_file = (store_path(self.db),)
        for what, where in (("the call log", log.path.parent), ("a call record", self._store_file[0])):
            if where is None:
                continue
            folder = self._folders.get(where)
            if folder is None:
                path = Path(where)
                folder = path if path.is_dir() else path.parent
                if folder == path or path.exists():  # asked once: a folder stays one, the store's file a file
                    self._folders[where] = folder    # (the log's folder is asked until its first line makes it)
            try:
                free = shutil.disk_usage(folder).free
            except OSError:
                continue
            if free - self._reserved < need:
                raise DiskFull(what, where)
        self._reserved += need
        return need

    async def _journaled(self, request: CallRequest, key: str, attempt: int) -> tuple[int, int]:
        """`_ensure_recordable` for a request about to be sent, its journal entry written with the others asked
        for in this turn of the event loop (`_GroupCommit`). Returns the bytes reserved and the entry's id."""
        reserved = self._ensure_recordable(request)
        try:
            return reserved, await self._loop_state()["commits"].journal(self._journal_entry(request, key, attempt))
        except BaseException:
            self._reserved -= reserved
            raise

    def _journal_entry(self, request: CallRequest, key: str, attempt: int) -> dict[str, Any]:
        from workbench.gateway.transport import cost_of

        settings = request.settings
        prompt = estimate_tokens(request.messages, 0)
        return {"study_id": request.study_id, "run_id": request.run_id, "turn": request.turn,
                "agent": request.agent, "call_key": key, "attempt": attempt, "model": settings.model,
                "api_base": settings.api_base, "prompt_tokens": prompt, "max_tokens": settings.max_tokens,
                "cost_estimate": cost_of(settings.model, prompt, settings.max_tokens or 0), "sent_at": _now(),
                "pid": os.getpid()}

    def _write_journal(self, entry: dict[str, Any]) -> int:
        try:
            return call_rows.journal_sent(self.db, entry)
        except Exception as exc:
            if is_disk_full(exc):
                from store.db import store_path

                raise DiskFull("the request journal", store_path(self.db) or "the store") from exc
            raise

    def _repair(self, log: CallLog, study_id: str | None, torn: TornTail) -> None:
        """Cut a torn last line the store never recorded, and record the cut; refuse one it did record."""
        if torn.line in call_rows.log_record(self.db, study_id):
            raise GatewayError(
                f"the call log {log.path} is corrupted: its line {torn.line}, which the store recorded, is cut "
                f"short; nothing is removed and no call is made (see `workbench --batch log verify "
                f"{study_id or '_global'}`)", retryable=False, attempts=0)
        log.cut_tail(torn)
        call_rows.record_log_repair(self.db, study_id, torn.line, torn.bytes)

    def _record(self, record: dict[str, Any], *, answers: int | None = None) -> int:
        """Append to the study's JSONL log, then the same record to the store (closing the journal entry it
        `answers`, in the same transaction). Returns the call id."""
        return self._store_row(self._logged([_scrub_record(record)])[0], answers)

    async def _record_soon(self, record: dict[str, Any], *, answers: int | None = None) -> int:
        """`_record`, made with the other records asked for in this turn of the event loop (`_GroupCommit`)."""
        return await self._loop_state()["commits"].record(_scrub_record(record), answers)

    def _logged(self, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Records of one study appended to its log in one write: their store rows, with their log links."""
        links = self._append_to_log(records[0]["study_id"], records)
        return [dict(r, request=r["messages"], log_line=line, log_hash=digest) for r, (line, digest) in zip(records, links)]

    def _store_row(self, row: dict[str, Any], answers: int | None) -> int:
        with self._store_errors():
            return call_rows.add_call(self.db, row, answers=answers)

    def _record_many(self, records: list[dict[str, Any]], also: Callable[[], None] | None = None) -> list[int]:
        """`_record` for many records of one study (a provider batch's results): one log write, then one
        transaction for their rows and `also`'s writes. Returns the call ids, in order."""
        rows = self._logged([_scrub_record(r) for r in records])
        with self._store_errors(), writer(self.db):
            ids = call_rows.add_calls(self.db, rows)
            if also is not None:
                also()
            return ids

    def _append_to_log(self, study_id: str | None, records: list[dict[str, Any]]) -> list[tuple[int, str]]:
        log = self._log(study_id)
        try:
            try:
                return log.append_many(records)
            except TornTail as torn:  # torn since the last look (a replayed call makes none first)
                self._repair(log, study_id, torn)
                return log.append_many(records)
        except (OSError, ValueError) as exc:
            if is_disk_full(exc):
                raise DiskFull("the call log", log.path) from exc
            raise GatewayError(f"cannot append to the call log {log.path}: {exc}") from exc

    @contextlib.contextmanager
    def _store_errors(self) -> Iterator[None]:
        """A full disk while recording a call is named as such."""
        try:
            yield
        except Exception as exc:
            if is_disk_full(exc):
                from store.db import store_path

                raise DiskFull("a call record", store_path(self.db) or "the store") from exc
            raise


class _GroupCommit:
    """The journal entries and call records that calls in flight ask for during one turn of the event loop,
    written together at its end: one log write per study and one transaction, where each was a write and a
    commit of its own (two of a call's four commits; 32 calls in flight often land in one turn). Each caller
    awaits its row's id. A batch that fails is written again one row at a time, so each caller gets its own
    outcome (a full disk named as before).

    Nothing is less safe on a kill: a request is sent only once its entry is committed, and a call returns only
    once its record is; a reply whose record waits for the end of the turn is still journaled, so a kill then
    counts it lost (estimated) and the resume makes the call again, as a kill a moment earlier would."""

    def __init__(self, gateway: Gateway, loop: asyncio.AbstractEventLoop) -> None:
        self.gateway, self.loop = gateway, loop
        self.entries: list[tuple[dict, asyncio.Future]] = []
        self.records: list[tuple[dict, int | None, asyncio.Future]] = []
        self.scheduled = False

    async def journal(self, entry: dict[str, Any]) -> int:
        future = self._add(self.entries, (entry,))
        try:
            return await asyncio.shield(future)  # written whatever its caller does meanwhile
        except asyncio.CancelledError:
            # cancelled before sending: once written, the entry is withdrawn (no request went out)
            future.add_done_callback(self._withdraw)
            raise

    async def record(self, record: dict[str, Any], answers: int | None) -> int:
        future = self._add(self.records, (record, answers))
        try:
            return await asyncio.shield(future)  # a cancel loses no record
        except asyncio.CancelledError:
            future.add_done_callback(lambda f: f.cancelled() or f.exception())  # its outcome read, never warned of
            raise

    def _add(self, queue: list, item: tuple) -> asyncio.Future:
        future = self.loop.create_future()
        queue.append((*item, future))
        if not self.scheduled:
            self.scheduled = True
            self.loop.call_soon(self.flush)
        return future

    def _withdraw(self, future: asyncio.Future) -> None:
        if not future.cancelled() and future.exception() is None:
            with contextlib.suppress(Exception):  # an entry left behind is counted lost: never worse
                call_rows.journal_withdraw(self.gateway.db, future.result())

    def flush(self) -> None:
        gateway = self.gateway
        entries, records = self.entries, self.records
        self.entries, self.records, self.scheduled = [], [], False
        rows: list[tuple[dict, int | None, asyncio.Future]] = []
        by_study: dict[str | None, list[tuple[dict, int | None, asyncio.Future]]] = {}
        for record, answers, future in records:
            by_study.setdefault(record["study_id"], []).append((record, answers, future))
        for batch in by_study.values():
            try:
                logged = gateway._logged([record for record, _, _ in batch])
            except Exception as exc:
                for _, _, future in batch:
                    _settle(future, exc)
                continue
            rows += [(row, answers, future) for row, (_, answers, future) in zip(logged, batch)]
        try:
            with gateway._store_errors(), writer(gateway.db, whole=True):  # rows nested take no savepoint each
                ids = [call_rows.journal_sent(gateway.db, entry) for entry, _ in entries]
                ids += [call_rows.add_call(gateway.db, row, answers=answers) for row, answers, _ in rows]
        except Exception:  # each row alone, each caller its own outcome
            for entry, future in entries:
                _settle_with(future, lambda: gateway._write_journal(entry))
            for row, answers, future in rows:
                _settle_with(future, lambda: gateway._store_row(row, answers))
            return
        for (*_, future), row_id in zip([*entries, *rows], ids):
            _settle(future, row_id)


def _settle(future: asyncio.Future, outcome: Any) -> None:
    if future.done():
        return
    if isinstance(outcome, BaseException):
        future.set_exception(outcome)
    else:
        future.set_result(outcome)


def _settle_with(future: asyncio.Future, write: Callable[[], int]) -> None:
    try:
        outcome: Any = write()
    except Exception as exc:
        outcome = exc
    _settle(future, outcome)


def default_log_dir(db: sqlite_utils.Database, db_path: Path | str | None) -> Path:
    """`logs_dir(db_path)`; for an in-memory store without a path, a fresh temporary directory."""
    from store.db import store_path
    from workbench.paths import logs_dir

    path = Path(db_path) if db_path else store_path(db)
    if path is None:
        return Path(tempfile.mkdtemp(prefix="workbench-calls-"))
    return logs_dir(path)
