"""Provider batch mode (`--provider-batch`): calls go to the provider's Batches API, half price, round by round.

The runner starts every run at once, and each run's program stops at its next call. In batch mode the
gateway does not send those calls: it collects them until no new one arrives for `settle` seconds (every
program is waiting), then sends them as one batch per model and endpoint (a batch file holds one model's requests), polls until the provider is done, and
records each reply exactly as a direct call's (the call log, the store, replay; `via` names the batch).
The programs go on, make their next calls, and the next round is the next batch: a committee or a debate
goes round by round, as Inspect AI's batch mode does.

Nothing is paid for twice. A batch is written to the store before the provider is asked (state
`submitting`, sent with metadata.workbench_batch = its id), so after a kill `run --resume` finds the
provider's batch again by that metadata, polls what is open, and records what finished; a call already
in an open batch joins it instead of being sent again.

Only OpenAI-format Files and Batches endpoints are used (OpenAI, and any `openai/` model on an api_base
that serves them), through litellm's files and batches API. Other providers are refused before any call.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from store import calls as call_rows
from store import provider_batches as rows
from store.db import writer
from workbench.events import PROVIDER_BATCH, Event, NullSink
from workbench.gateway.api import CallRequest, CallResult, GatewayError, ModelSettings

BATCH_PROVIDERS = ("openai",)
"""litellm providers whose Files and Batches endpoints this tool speaks (OpenAI's format)."""
TERMINAL = ("completed", "expired", "failed", "cancelled")
RETRY_MODES = ("batch", "direct")


@dataclass
class ProviderBatchConfig:
    """How provider batches are sent and waited for (`run|judge --provider-batch ...`)."""

    retry: str = "batch"
    """A failed or expired item goes into the next batch (`batch`) or is sent at once as a direct call."""
    poll_interval: float = 30.0
    """Seconds between polls of an open batch (providers answer within 24 h, often within an hour)."""
    settle: float = 0.5
    """A round is sent once no new call has arrived for this long: every program is waiting on one."""
    max_requests: int = 50_000
    """Requests per batch file (OpenAI's limit)."""
    max_rounds: int = 3
    """Batches an item may fail in before its call fails for good."""


class NoBatchAPI(GatewayError):
    """A model whose provider has no batch API this tool can use; raised before any call."""


def batch_provider(settings: ModelSettings) -> str | None:
    """litellm's provider of the model when its batches can be sent, else None."""
    from workbench.gateway.transport import OFFLINE_MODELS, litellm_module

    if settings.model in OFFLINE_MODELS:
        return None
    try:
        _, provider, _, _ = litellm_module().get_llm_provider(model=settings.model, api_base=settings.api_base)
    except Exception:
        return None
    return provider if provider in BATCH_PROVIDERS else None


def refuse_unbatchable(endpoints: list[tuple[str, str | None]]) -> None:
    """Raise NoBatchAPI naming every (model, api_base) that cannot go in a provider batch."""
    missing = sorted({f"{model}" + (f" at {base}" if base else "") for model, base in endpoints
                      if batch_provider(ModelSettings(model=model, api_base=base or None)) is None})
    if missing:
        raise NoBatchAPI(f"--provider-batch: no batch API for {', '.join(missing)} (this tool sends batches to "
                         f"OpenAI-format Files and Batches endpoints: {', '.join(BATCH_PROVIDERS)}); nothing was "
                         "sent. Run without --provider-batch", retryable=False, attempts=0)


@dataclass
class _Pending:
    request: CallRequest
    key: str
    record: dict
    reserved: int = 0


@dataclass
class _Outcome:
    result: CallResult | None = None
    error: str | None = None
    resubmit: bool = False  # the batch itself was lost (not the item's fault): send it again, no round counted
    landed: bool = False    # recorded by another gateway's poller of the same batch: serve it from the store


@dataclass
class Batcher:
    """One per gateway and event loop: the calls waiting for the next round, and the batches in flight."""

    gateway: Any  # the workbench.gateway.client.Gateway that owns it
    config: ProviderBatchConfig
    pending: list[_Pending] = field(default_factory=list)
    waiters: dict[tuple[str | None, str], list[asyncio.Future]] = field(default_factory=dict)
    pollers: dict[str, asyncio.Task] = field(default_factory=dict)
    _flush: asyncio.Task | None = None

    @property
    def db(self):
        return self.gateway.db

    # --- a call -------------------------------------------------------------------------------
    async def call(self, request: CallRequest, key: str, sink=None) -> CallResult:
        rounds = 0
        while True:
            outcome = await self._one_round(request, key)
            if outcome.result is not None:
                return outcome.result
            if outcome.landed:
                row = call_rows.find_ok_call(self.db, key, request.study_id)
                if row is not None:
                    return self.gateway._replay(request, key, row, sink or NullSink())
            if outcome.resubmit:
                continue
            rounds += 1
            if self.config.retry == "direct":
                return await self.gateway._call_network(request, key, sink or NullSink())
            if rounds >= self.config.max_rounds:
                raise GatewayError(f"{request.settings.model}" + (f" (turn {request.turn})" if request.turn else "")
                                   + f": {outcome.error} [failed in {rounds} provider batches]", attempts=rounds)

    async def _one_round(self, request: CallRequest, key: str) -> _Outcome:
        loop = asyncio.get_running_loop()
        waiter = loop.create_future()
        self.waiters.setdefault((request.study_id, key), []).append(waiter)
        open_batch = rows.open_request_batch(self.db, request.study_id, key)
        if open_batch is not None:  # sent before a kill (or by an identical call): wait for that batch
            self._ensure_poller(open_batch)
        else:
            record = self.gateway._base_record(request, key, attempt=1, started=_now(), mode=_mode(request),
                                               stream=False)
            self.pending.append(_Pending(request, key, record))
            if self._flush is None or self._flush.done():
                self._flush = asyncio.create_task(self._send_when_settled(), name="provider batch round")
        try:
            return await asyncio.shield(waiter)
        except asyncio.CancelledError:
            waiter.cancel()
            raise

    def _resolve(self, study_id: str | None, key: str, outcome: _Outcome) -> None:
        for waiter in self.waiters.pop((study_id, key), []):
            if not waiter.done():
                waiter.set_result(outcome)

    # --- a round ------------------------------------------------------------------------------
    async def _send_when_settled(self) -> None:
        while True:
            seen = len(self.pending)
            await asyncio.sleep(self.config.settle)
            if len(self.pending) == seen or len(self.pending) >= self.config.max_requests:
                break
        round_, self.pending = self.pending, []
        groups: dict[tuple, list[_Pending]] = {}
        for p in round_:
            s = p.request.settings
            groups.setdefault((p.request.study_id, s.model, s.api_base, s.api_key_env), []).append(p)
        for group in groups.values():
            for start in range(0, len(group), self.config.max_requests):
                part = group[start:start + self.config.max_requests]
                try:
                    await self._submit(part)
                except Exception as exc:  # nobody awaits this task: every caller of the part hears it
                    for p in part:
                        for waiter in self.waiters.pop((p.request.study_id, p.key), []):
                            if not waiter.done():
                                waiter.set_exception(exc)

    async def _submit(self, group: list[_Pending]) -> None:
        settings = group[0].request.settings
        study_id = group[0].request.study_id
        provider = batch_provider(settings) or "openai"
        batch_id = uuid.uuid4().hex
        try:
            for p in group:  # never pay for replies that cannot be written (each is recorded before it is sent)
                p.reserved = self.gateway._ensure_recordable(p.request)
        except Exception as exc:  # a full disk: every caller stops with it, nothing was sent
            self._release(group)
            for p in group:
                for waiter in self.waiters.pop((study_id, p.key), []):
                    if not waiter.done():
                        waiter.set_exception(exc)
            return
        now = _now()
        rows.add_batch(self.db, {"id": batch_id, "study_id": study_id, "provider": provider,
                                 "api_base": settings.api_base, "model": settings.model, "state": "submitting",
                                 "requests": len(group), "created_at": now, "updated_at": now},
                       [(p.key, p.record) for p in group])
        self._release(group)  # the store holds the records now; room is checked again when results land
        lines = b"".join(json.dumps({"custom_id": p.key, "method": "POST", "url": "/v1/chat/completions",
                                     "body": _body(p.request)}, ensure_ascii=False).encode() + b"\n"
                         for p in group)
        try:
            api = _Api(settings, provider)
            uploaded = await api.call("acreate_file", file=(f"{batch_id}.jsonl", lines, "application/jsonl"),
                                      purpose="batch")
            rows.update_batch(self.db, batch_id, input_file_id=uploaded.id, updated_at=_now())
            created = await api.call("acreate_batch", completion_window="24h", endpoint="/v1/chat/completions",
                                     input_file_id=uploaded.id, metadata={"workbench_batch": batch_id})
        except Exception as exc:
            found = await self._find_by_metadata(batch_id)
            if found is None:  # a round lost: it counts, so an unreachable provider ends the calls in time
                self._abandon(batch_id, f"the provider did not take the batch: {_short(exc)}", resubmit=False)
                return
            created = found
        self._accepted(batch_id, created)
        self._ensure_poller(batch_id)

    def _release(self, group: list[_Pending]) -> None:
        for p in group:
            self.gateway._reserved -= p.reserved
            p.reserved = 0

    def _accepted(self, batch_id: str, created) -> None:
        rows.update_batch(self.db, batch_id, provider_batch_id=created.id, state=created.status or "validating",
                          updated_at=_now())
        self._emit(batch_id, "submitted")

    def _abandon(self, batch_id: str, why: str, *, resubmit: bool = True) -> None:
        """The provider never accepted this batch: its calls are sent again (nothing was paid); `resubmit`
        False counts it as a failed round of each call (an unreachable provider must not loop forever)."""
        rows.update_batch(self.db, batch_id, state="abandoned", updated_at=_now())
        study_id = rows.get_batch(self.db, batch_id)["study_id"]
        keys = [r["custom_id"] for r in rows.batch_requests(self.db, batch_id, state="open")]
        rows.mark_requests(self.db, batch_id, [(key, "failed") for key in keys])
        for key in keys:
            self._resolve(study_id, key, _Outcome(error=why, resubmit=resubmit))
        self._emit(batch_id, "abandoned", reason=why)

    async def _find_by_metadata(self, batch_id: str):
        """The provider's batch carrying our id, if it took it although its answer never reached us."""
        batch = rows.get_batch(self.db, batch_id)
        try:
            listed = await _Api(_settings_of(batch), batch["provider"]).call("alist_batches", limit=100)
        except Exception:
            return None
        return next((b for b in listed.data if (b.metadata or {}).get("workbench_batch") == batch_id), None)

    # --- waiting for a batch --------------------------------------------------------------------
    def _ensure_poller(self, batch_id: str) -> None:
        task = self.pollers.get(batch_id)
        if task is None or task.done():
            self.pollers[batch_id] = asyncio.create_task(self._poll(batch_id), name=f"provider batch {batch_id}")

    async def _poll(self, batch_id: str) -> None:
        batch = rows.get_batch(self.db, batch_id)
        try:
            if not batch["provider_batch_id"]:  # killed while submitting: did the provider take it?
                found = await self._find_by_metadata(batch_id)
                if found is None:
                    self._abandon(batch_id, "the batch was never accepted before the interruption")
                    return
                self._accepted(batch_id, found)
                batch = rows.get_batch(self.db, batch_id)
            api = _Api(_settings_of(batch), batch["provider"])
            failures = 0
            while True:
                try:
                    state = await api.call("aretrieve_batch", batch_id=batch["provider_batch_id"])
                    failures = 0
                except Exception as exc:
                    failures += 1
                    if failures >= self.gateway.config.retry.max_attempts:
                        raise GatewayError(f"cannot poll provider batch {batch['provider_batch_id']}: "
                                           f"{_short(exc)} (it stays open: run --resume polls it again)") from exc
                    await asyncio.sleep(min(self.config.poll_interval, 2.0 ** failures))
                    continue
                counts = state.request_counts
                rows.update_batch(self.db, batch_id, state=state.status, updated_at=_now(),
                                  completed=getattr(counts, "completed", 0) or 0,
                                  failed=getattr(counts, "failed", 0) or 0)
                self._emit(batch_id, state.status)
                if state.status in TERMINAL:
                    break
                await asyncio.sleep(self.config.poll_interval)
            await self._collect(batch_id, state, api)
        except Exception as exc:  # every waiter hears it (a full disk stays a full disk); the batch stays stored
            study_id = batch["study_id"]
            for r in rows.batch_requests(self.db, batch_id, state="open"):
                for waiter in self.waiters.pop((study_id, r["custom_id"]), []):
                    if not waiter.done():
                        waiter.set_exception(exc)

    async def _collect(self, batch_id: str, state, api: "_Api") -> None:
        """Record every item of a finished batch, waited for or not (each was paid for), `RECORD_CHUNK` at a
        time: one call-log write and one transaction for their rows and their requests' states."""
        batch = rows.get_batch(self.db, batch_id)
        results: dict[str, dict] = {}
        for file_id in (state.output_file_id, state.error_file_id):
            if file_id:
                content = await api.call("afile_content", file_id=file_id)
                for line in content.content.splitlines():
                    if line.strip():
                        item = json.loads(line)
                        results[item["custom_id"]] = item
        rows.update_batch(self.db, batch_id, output_file_id=state.output_file_id, error_file_id=state.error_file_id)
        via = f"batch {batch['provider_batch_id']}"
        spent = _Spent()
        self._adopt_logged(batch, via, spent)
        chunk: list[tuple[str, dict, str | None]] = []
        for r in rows.batch_requests(self.db, batch_id):
            key, record = r["custom_id"], dict(r["record"])
            if r["state"] != "open":  # recorded or failed by another poller of this batch (an earlier sitting)
                self._resolve(batch["study_id"], key, _Outcome(landed=r["state"] == "recorded",
                                                               error="failed in this batch"))
                continue
            chunk.append(_result_record(key, record, results.get(key), state.status, via))
            if len(chunk) == RECORD_CHUNK:
                self._record_chunk(batch, chunk, spent)
                chunk = []
        if chunk:
            self._record_chunk(batch, chunk, spent)
        previous = rows.get_batch(self.db, batch_id)
        rows.update_batch(self.db, batch_id, state="recorded", updated_at=_now(),
                          cost=(previous["cost"] or 0.0) + spent.batch if spent.priced else None,
                          direct_cost=(previous["direct_cost"] or 0.0) + spent.direct if spent.priced else None)
        self._emit(batch_id, "recorded", provider_state=state.status)

    def _record_chunk(self, batch: dict, chunk: list[tuple[str, dict, str | None]], spent: "_Spent") -> None:
        """Results in the call log (one write), then their call rows and requests' states (one commit); then
        their waiters hear them."""
        ids = self.gateway._record_many([record for _, record, _ in chunk], also=lambda: rows.mark_requests(
            self.db, batch["id"], [(key, "failed" if error else "recorded") for key, _, error in chunk]))
        self._landed(batch, [(key, record, call_id) for (key, record, _), call_id in zip(chunk, ids)], spent)

    def _adopt_logged(self, batch: dict, via: str, spent: "_Spent") -> None:
        """Results a killed sitting wrote to the call log but never committed to the store: their rows are
        recorded from the log's own lines (not written again, which would leave those lines unrecorded
        below recorded ones, and `log verify` refuses that)."""
        study_id = batch["study_id"]
        recorded = call_rows.log_record(self.db, study_id)
        entries = [e for e in self.gateway._log(study_id).entries_except(recorded) if e.get("via") == via]
        if not entries:
            return
        open_keys = {r["custom_id"] for r in rows.batch_requests(self.db, batch["id"], state="open")}
        entries = [e for e in entries if e.get("call_key") in open_keys]
        records = [{k: v for k, v in e.items() if k not in ("seq", "prev_hash", "hash")} for e in entries]
        with writer(self.db):
            ids = call_rows.add_calls(self.db, [dict(r, request=r["messages"], log_line=e["seq"], log_hash=e["hash"])
                                                for r, e in zip(records, entries)])
            rows.mark_requests(self.db, batch["id"], [
                (r["call_key"], "recorded" if r["status"] == "ok" else "failed") for r in records])
        self._landed(batch, [(r["call_key"], r, call_id) for r, call_id in zip(records, ids)], spent)

    def _landed(self, batch: dict, recorded: list[tuple[str, dict, int]], spent: "_Spent") -> None:
        """Recorded results (key, call record, call id): their cost counted, their waiters told."""
        for key, record, call_id in recorded:
            if record["status"] != "ok":
                self._resolve(batch["study_id"], key, _Outcome(error=record["error"]))
                continue
            spent.add(self.gateway, record)
            self._resolve(batch["study_id"], key, _Outcome(result=CallResult(
                text=record["response"], finish_reason=record["finish_reason"], model=record["model"],
                input_tokens=record["input_tokens"], output_tokens=record["output_tokens"], cost=record["cost"],
                latency_ms=record["latency_ms"], call_id=call_id, attempts=1, call_key=key)))

    def _emit(self, batch_id: str, what: str, **extra: Any) -> None:
        sink = self.gateway._sink
        if sink is None:
            return
        b = rows.get_batch(self.db, batch_id)
        sink.emit(Event(PROVIDER_BATCH, payload={
            "batch": batch_id, "provider_batch_id": b["provider_batch_id"], "state": b["state"], "what": what,
            "requests": b["requests"], "completed": b["completed"], "failed": b["failed"], "model": b["model"],
            "study_id": b["study_id"], **extra}))


class _Api:
    """litellm's files and batches calls for one endpoint (its key from the environment, as every call's)."""

    def __init__(self, settings: ModelSettings, provider: str) -> None:
        from workbench.gateway.transport import litellm_kwargs

        auth = litellm_kwargs(settings, [], None, stream=False)
        # max_retries 0: the OpenAI client would otherwise repeat a batch creation whose answer was lost,
        # creating (and paying for) the batch again; this module retries itself, after asking the provider.
        self.kwargs = {"custom_llm_provider": provider, "max_retries": 0,
                       **{k: auth[k] for k in ("api_base", "api_key") if k in auth}}

    async def call(self, name: str, **kwargs):
        from workbench.gateway.transport import litellm_module

        litellm = litellm_module()
        # litellm's own logging worker re-reads finished batches on its own, without our api_base, and
        # prints a traceback when it cannot: not this tool's error, and nothing a user can act on.
        logging.getLogger("LiteLLM").setLevel(logging.CRITICAL)
        return await getattr(litellm, name)(**kwargs, **self.kwargs)


def _body(request: CallRequest) -> dict:
    """The chat request a direct call would send, as one line of the batch file."""
    from workbench.gateway.transport import litellm_kwargs, litellm_module, response_format, structured_mode

    fmt = response_format(structured_mode(request.settings, request.response_schema), request.response_schema)
    kwargs = litellm_kwargs(request.settings, request.messages, None, stream=False, response_format=fmt)
    model, _, _, _ = litellm_module().get_llm_provider(model=request.settings.model,
                                                       api_base=request.settings.api_base)
    body = {k: v for k, v in kwargs.items()
            if k in ("messages", "temperature", "max_tokens", "seed", "response_format") and v is not None}
    return {"model": model, **body}


def _mode(request: CallRequest) -> str:
    from workbench.gateway.transport import structured_mode

    return structured_mode(request.settings, request.response_schema)


def _settings_of(batch: dict) -> ModelSettings:
    return ModelSettings(model=batch["model"], api_base=batch["api_base"] or None)


RECORD_CHUNK = 500
"""Results recorded per call-log write and store transaction when a batch is collected (a kill in between
loses none: the next sitting adopts the lines it finds in the log, `Batcher._adopt_logged`)."""


@dataclass
class _Spent:
    """What a collected batch cost, at the batch price and as direct calls; unknown once any price is."""

    batch: float = 0.0
    direct: float = 0.0
    priced: bool = True

    def add(self, gateway: Any, record: dict) -> None:
        """One recorded reply (its call record), also added to what its study has spent."""
        cost, study_id = record.get("cost"), record["study_id"]
        if cost is None:
            self.priced = False
            return
        self.batch += cost
        self.direct += _priced(False, record["model"], record.get("input_tokens"), record.get("output_tokens")) or 0.0
        if cost:
            gateway._spent[study_id] = gateway._study_spent(study_id) + cost


def _priced(batch: bool, model: str, input_tokens: int | None, output_tokens: int | None) -> float | None:
    """litellm's price of one reply, at the batch or the direct rate (None: the model has no price)."""
    return _price(batch, model, input_tokens, output_tokens) if _has_price(model) else None


@functools.lru_cache(maxsize=65_536)
def _price(batch: bool, model: str, input_tokens: int | None, output_tokens: int | None) -> float | None:
    # remembered per token counts: a batch repeats them often, and litellm's calculator costs more than
    # recording the reply
    from workbench.gateway.transport import batch_cost_of, cost_of

    return (batch_cost_of if batch else cost_of)(model, input_tokens, output_tokens)


@functools.lru_cache(maxsize=256)
def _has_price(model: str) -> bool:
    """Is the model in litellm's cost map? (Asked once per model: litellm answers "no" by raising, slowly.)"""
    from workbench.gateway.transport import batch_cost_of

    return batch_cost_of(model, 1, 1) is not None


def _result_record(key: str, record: dict, item: dict | None, batch_state: str, via: str) -> tuple[str, dict, str | None]:
    """(key, the call record of one batch item, its error or None): a reply as a direct call's record."""
    record.update(via=via, finished_at=_now(),
                  latency_ms=round((time.time() - _epoch(record["started_at"])) * 1000.0, 3))
    response = (item or {}).get("response") or {}
    body = response.get("body") if response.get("status_code") == 200 else None
    if body is None:
        why = _item_error(item, batch_state)
        record.update(status="error", error=why, error_kind="provider_batch")
        return key, record, why
    choice = (body.get("choices") or [{}])[0]
    usage = body.get("usage") or {}
    tokens_in, tokens_out = usage.get("prompt_tokens"), usage.get("completion_tokens")
    record.update(status="ok", response=(choice.get("message") or {}).get("content") or "",
                  finish_reason=choice.get("finish_reason"), input_tokens=tokens_in, output_tokens=tokens_out,
                  cost=_priced(True, record["model"], tokens_in, tokens_out))
    return key, record, None


def _item_error(item: dict | None, batch_state: str) -> str:
    if item is None:
        return f"missing from the batch's output (the batch {batch_state})"
    if item.get("error"):
        e = item["error"]
        return f"{e.get('code') or 'error'}: {e.get('message') or ''}".strip()
    response = item.get("response") or {}
    message = ((response.get("body") or {}).get("error") or {}).get("message") or ""
    return f"HTTP {response.get('status_code')} in the batch: {message}".strip()


def _short(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:300] if text else type(exc).__name__


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


def _epoch(iso: str) -> float:
    try:
        return datetime.fromisoformat(iso).timestamp()
    except (TypeError, ValueError):
        return time.time()


def summary_lines(batches: list[dict]) -> list[str]:
    """A study's provider batches in a few lines (`study show`, the report): their states, and what the batch
    price saved against the same tokens at the direct price."""
    if not batches:
        return []
    states: dict[str, int] = {}
    for b in batches:
        states[b["state"]] = states.get(b["state"], 0) + 1
    requests = sum(b["requests"] for b in batches)
    line = (f"provider batches: {len(batches)} ({', '.join(f'{n} {s}' for s, n in sorted(states.items()))}), "
            f"{requests} requests")
    priced = [b for b in batches if b["state"] == "recorded"]
    if priced and all(b["cost"] is not None for b in priced):
        cost = sum(b["cost"] for b in priced)
        direct = sum(b["direct_cost"] or 0.0 for b in priced)
        line += f"; ${cost:.4f} at the batch price, ${direct:.4f} direct (saved ${direct - cost:.4f})"
    elif priced:
        line += "; cost unknown (a model with no price in litellm's cost map)"
    lines = [line]
    for b in batches:
        if b["state"] not in ("recorded", "abandoned"):
            lines.append(f"batch {b['provider_batch_id'] or b['id'][:12]} ({b['model']}): {b['state']}, "
                         f"{b['completed']}/{b['requests']} done, {b['failed']} failed; run --resume polls it")
    return lines


def event_line(p: dict) -> str:
    """One provider batch event, as the run display prints it."""
    name = p.get("provider_batch_id") or p["batch"][:12]
    if p["what"] == "submitted":
        return f"batch     {name} sent: {p['requests']} requests to {p['model']}"
    if p["what"] == "abandoned":
        return f"batch     {name} not taken by the provider ({p.get('reason')}): its calls are sent again"
    if p["what"] == "recorded":
        return (f"batch     {name} {p.get('provider_state')}: {p['completed']} done, {p['failed']} failed, "
                "recorded")
    return f"batch     {name} {p['state']}: {p['completed']}/{p['requests']} done"
