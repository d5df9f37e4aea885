"""One attempt of one call through litellm: streamed where someone watches the tokens, else whole.

litellm is imported lazily, with its cost map pinned to the bundled copy first
(otherwise it fetches one over the network at import time).
"""

from __future__ import annotations

import asyncio
import os
import threading
from dataclasses import dataclass
from typing import Any, Callable

from workbench.gateway.api import OFFLINE_MODELS, ModelSettings
from workbench.gateway.retry import AttemptFailed, is_retryable_status, parse_retry_after
from workbench.gateway.secrets import scrub

# litellm's model string for the offline mock: any provider prefix works with mock_response.
_MOCK_LITELLM_MODEL = "openai/mock"

_litellm = None
_importing = threading.Lock()  # one import, however many threads ask at once (a prefetch and a first call)


def litellm_module():
    """Import litellm once, offline: the bundled cost map, no telemetry, no debug banners."""
    global _litellm
    if _litellm is None:
        with _importing:
            if _litellm is None:
                os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
                os.environ.setdefault("LITELLM_TELEMETRY", "False")
                import litellm

                litellm.suppress_debug_info = True
                litellm.telemetry = False
                litellm.drop_params = True  # e.g. `seed` on a provider without it; we still record what was asked
                _litellm = litellm
    return _litellm


def prefetch_litellm() -> None:
    """Start importing litellm on a thread of its own, for a command that will call a model: the import
    (seconds, most of a short run's start-up) then overlaps the command's own start-up (the store, the
    study's freeze check, its run rows) instead of following it. The first call waits for it as before.
    A daemon thread: a command that fails before its first call exits without waiting for the import."""
    if _litellm is None:
        threading.Thread(target=litellm_module, name="litellm import", daemon=True).start()


async def load_litellm() -> None:
    """Import litellm in a thread, not on the event loop. The import takes seconds; done inside an
    attempt it blocked the loop, so the first attempt ran its whole timeout late (a 5 s timeout let
    it run 8-9 s). Called before the first attempt's clock starts, it leaves every attempt the same."""
    if _litellm is None:
        await asyncio.to_thread(litellm_module)


@dataclass
class AttemptOutcome:
    text: str
    finish_reason: str
    input_tokens: int | None
    output_tokens: int | None


# A keyless local server still gets a key: the OpenAI client refuses to send a request without one.
KEYLESS_PLACEHOLDER = "sk-no-key-needed"


def structured_mode(settings: ModelSettings, schema: dict | None) -> str:
    """How this call sends its JSON schema: the model's `structured` setting, else decided per model:
    nothing for the offline models or when no schema is asked; "json_object" for an OpenAI-compatible
    server on an `api_base` (llama.cpp, llama-cpp-python, vLLM and Ollama accept it; the first two enforce
    the schema given with it by grammar); "json_schema" where litellm's model info says the model supports
    response schemas; otherwise none (the project's choice: a prompt and the parser, no guessing)."""
    if schema is None or settings.model in OFFLINE_MODELS:
        return "none"
    if settings.structured:
        return settings.structured
    if settings.api_base:
        return "json_object"
    try:
        if litellm_module().supports_response_schema(model=settings.model):
            return "json_schema"
    except Exception:  # an unmapped model: litellm cannot say
        pass
    return "none"


def response_format(mode: str, schema: dict | None) -> dict | None:
    if schema is None or mode == "none":
        return None
    if mode == "json_schema":
        return {"type": "json_schema", "json_schema": {"name": schema["name"], "schema": schema["schema"],
                                                       "strict": False}}
    return {"type": "json_object", "schema": schema["schema"]}


def litellm_kwargs(settings: ModelSettings, messages: list[dict], mock_text: str | None, *, stream: bool = True,
                   response_format: dict | None = None) -> dict[str, Any]:
    kwargs: dict[str, Any] = {
        "messages": messages,
        "stream": stream,
        "temperature": settings.temperature,
        "max_tokens": settings.max_tokens,
        "timeout": settings.timeout,
        # The gateway owns retries: neither litellm nor the OpenAI client may retry on their own.
        "num_retries": 0,
        "max_retries": 0,
    }
    if stream:
        kwargs["stream_options"] = {"include_usage": True}
    if settings.seed is not None:
        kwargs["seed"] = settings.seed
    if response_format is not None:
        kwargs["response_format"] = response_format
    if settings.model in OFFLINE_MODELS:
        kwargs["model"] = _MOCK_LITELLM_MODEL
        kwargs["mock_response"] = _mock_stream_chunk(mock_text or "") if stream else (mock_text or "")
    else:
        kwargs["model"] = settings.model
        if settings.api_base:
            kwargs["api_base"] = settings.api_base
        if settings.api_key_env == "none":
            kwargs["api_key"] = KEYLESS_PLACEHOLDER
        elif settings.api_key_env:
            value = os.environ.get(settings.api_key_env)
            if not value:
                raise AttemptFailed(f"environment variable {settings.api_key_env} (the key for "
                                    f"{settings.model}) is not set", retryable=False, kind="config")
            kwargs["api_key"] = value
    return kwargs


def _mock_stream_chunk(text: str):
    """The mock's whole reply as one stream chunk. Given a plain string, litellm streams it three
    characters at a time at about 1 ms of CPU per chunk, which made an offline dry run of a study
    spend most of its time in litellm's stream wrapper."""
    from litellm.types.utils import Delta, ModelResponseStream, StreamingChoices

    return ModelResponseStream(choices=[StreamingChoices(
        index=0, delta=Delta(role="assistant", content=text), finish_reason="stop")])


@dataclass(frozen=True)
class Timers:
    """A call's three timers, each named in the message when it fires."""

    total: float             # the whole attempt (`timeout`)
    first_token: float       # sending to the first token (`first_token_timeout`); queueing counts here
    stall: float             # between two tokens once they flow (`stall_timeout`)
    first_token_key: str = "first_token_timeout"   # the setting that bounds the first token

    @classmethod
    def of(cls, settings: ModelSettings, default_stall: float) -> "Timers":
        first = settings.first_token_timeout
        stall = settings.stall_timeout if settings.stall_timeout is not None else default_stall
        if first is None or first >= settings.timeout:  # unset or looser: the whole call's timeout bounds it
            return cls(total=settings.timeout, first_token=settings.timeout, stall=stall, first_token_key="timeout")
        return cls(total=settings.timeout, first_token=first, stall=stall)


def _timed_out(which: str, seconds: float, partial: str, *, kind: str, first_token: bool = False) -> AttemptFailed:
    words = {"timeout": (f"no first token within {seconds:g}s (timeout)" if first_token
                         else f"no whole reply within {seconds:g}s (timeout)"),
             "first_token_timeout": f"no first token within {seconds:g}s (first_token_timeout)",
             "stall_timeout": f"the stream stalled for more than {seconds:g}s between tokens (stall_timeout)"}
    return AttemptFailed(words[which], retryable=True, status=None, kind=kind, partial=partial)


async def complete_attempt(settings: ModelSettings, messages: list[dict], *, timers: Timers,
                           mock_text: str | None = None, response_format: dict | None = None) -> AttemptOutcome:
    """One non-streamed completion: the whole reply at once, the provider's own finish reason and usage.
    Batch work calls this: no one watches the tokens, and litellm's per-chunk wrapper costs CPU."""
    litellm = litellm_module()
    kwargs = litellm_kwargs(settings, messages, mock_text, stream=False, response_format=response_format)
    try:
        async with asyncio.timeout(timers.total):
            if settings.model in OFFLINE_MODELS:
                # litellm's mock, the reply `mock_response` makes, asked for directly: `acompletion` wraps it in
                # a thread hop, its callbacks' logging payload and its own pricing (~2 ms of CPU a call, most of
                # a study on `mock`), none of which the gateway reads (it prices the offline models itself:
                # `cost_of`). The reply, finish reason and usage are the same.
                response = litellm.mock_completion(model=kwargs["model"], messages=messages,
                                                   mock_response=kwargs["mock_response"])
                # Still a call that waits: parallel turns start together and finish after, as with a server
                # (and as `acompletion`'s thread hop had them), so a transcript's order is what it was.
                await asyncio.sleep(0)
            else:
                response = await litellm.acompletion(**kwargs)
    except (TimeoutError, asyncio.TimeoutError) as exc:
        raise _timed_out("timeout", timers.total, "", kind="timeout") from exc
    except asyncio.CancelledError:
        raise
    except AttemptFailed:
        raise
    except Exception as exc:
        raise classify(exc) from exc
    choice = (response.choices or [None])[0]
    finish = getattr(choice, "finish_reason", None) if choice is not None else None
    if choice is None or not finish:
        raise AttemptFailed("the reply carried no choice or no finish reason (malformed or cut)",
                            retryable=True, kind="incomplete_reply")
    text = getattr(getattr(choice, "message", None), "content", None) or ""
    usage = getattr(response, "usage", None)
    return AttemptOutcome(text, finish, getattr(usage, "prompt_tokens", None),
                          getattr(usage, "completion_tokens", None))


async def stream_attempt(settings: ModelSettings, messages: list[dict], *, on_token: Callable[[str], None],
                         timers: Timers, mock_text: str | None = None, response_format: dict | None = None,
                         on_first: Callable[[], None] | None = None) -> AttemptOutcome:
    """Stream one completion. Raises AttemptFailed, classified, for anything short of a whole answer."""
    litellm = litellm_module()
    kwargs = litellm_kwargs(settings, messages, mock_text, stream=True, response_format=response_format)
    is_mock = settings.model in OFFLINE_MODELS
    parts: list[str] = []
    stream = None
    waiting_for = "first_token_timeout"
    whole = asyncio.timeout(timers.total)
    # One deadline, moved as the stream goes: the first token's at first (queueing counts there), then
    # the stall's after each token. Same task throughout (no wait_for): a cut stream keeps its chunks.
    gap = asyncio.timeout(timers.first_token)
    loop = asyncio.get_running_loop()
    try:
        async with whole, gap:
            stream = await litellm.acompletion(**kwargs)
            chunk_finish = None
            usage = None
            async for chunk in stream:
                if getattr(chunk, "usage", None) is not None:
                    usage = chunk.usage
                for choice in chunk.choices or []:
                    delta = getattr(choice, "delta", None)
                    piece = getattr(delta, "content", None) if delta is not None else None
                    if piece:
                        if waiting_for == "first_token_timeout" and on_first:
                            on_first()
                        waiting_for = "stall_timeout"
                        gap.reschedule(loop.time() + timers.stall)
                        parts.append(piece)
                        on_token(piece)
                    if choice.finish_reason:
                        chunk_finish = choice.finish_reason
        # litellm closes every stream with a finish reason, inventing "stop" when the provider sent
        # none (a dropped or truncated stream). Only the reason the provider itself sent counts.
        finish = chunk_finish if is_mock else getattr(stream, "received_finish_reason", None)
        if not finish:
            raise AttemptFailed("the stream ended without a finish reason (dropped or truncated)",
                                retryable=True, kind="incomplete_stream", partial="".join(parts))
        return AttemptOutcome("".join(parts), finish, getattr(usage, "prompt_tokens", None),
                              getattr(usage, "completion_tokens", None))
    except AttemptFailed:
        raise
    except (TimeoutError, asyncio.TimeoutError) as exc:
        which = "timeout" if whole.expired() else waiting_for
        if which == "first_token_timeout":
            which = timers.first_token_key
        seconds = {"timeout": timers.total, "first_token_timeout": timers.first_token,
                   "stall_timeout": timers.stall}[which]
        raise _timed_out(which, seconds, "".join(parts), kind="stall" if parts else "timeout",
                         first_token=not parts) from exc
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # litellm / openai / transport errors, classified below
        raise classify(exc, "".join(parts)) from exc
    finally:
        if stream is not None and hasattr(stream, "aclose"):
            try:
                await stream.aclose()
            except Exception:  # closing a broken stream may fail again; the attempt's outcome stands
                pass


def classify(exc: Exception, partial: str = "") -> AttemptFailed:
    """Retry 429, 5xx, connection errors and timeouts; fail at once on every other error."""
    litellm = litellm_module()
    import httpx
    import openai

    from workbench.gateway.overflow import is_overflow

    status = getattr(exc, "status_code", None)
    status = status if isinstance(status, int) else None
    headers = getattr(exc, "litellm_response_headers", None) or getattr(getattr(exc, "response", None),
                                                                        "headers", None)
    retry_after = parse_retry_after(headers)
    message = scrub(_message(exc)) or type(exc).__name__
    # litellm.Timeout subclasses openai.APITimeoutError, not litellm.APIConnectionError: check it first.
    if isinstance(exc, (litellm.Timeout, openai.APITimeoutError, httpx.TimeoutException)):
        return AttemptFailed(message, retryable=True, status=408, kind="timeout", partial=partial)
    if isinstance(exc, litellm.AuthenticationError) or "Missing credentials" in message or status == 401:
        hint = ("set the key's environment variable (the model's `api_key_env`, else the provider's usual one, "
                "e.g. OPENAI_API_KEY), or api_key_env = \"none\" for a keyless local server")
        return AttemptFailed(f"{message} ({hint})", retryable=False, status=status or 401, kind="auth",
                             partial=partial)
    if isinstance(exc, litellm.ContextWindowExceededError) or (status == 400 and is_overflow(message)):
        # the server refused before evaluating anything: no retry can fit, and no generation was paid for
        return AttemptFailed(message, retryable=False, status=status, kind="context_window", partial=partial)
    if _rejects_response_format(status, message):
        return AttemptFailed(message, retryable=True, status=status, kind="response_format", partial=partial)
    if isinstance(exc, litellm.RateLimitError) or status == 429:
        return AttemptFailed(message, retryable=True, status=429, retry_after=retry_after, kind="rate_limit",
                             partial=partial)
    if isinstance(exc, (litellm.APIConnectionError, openai.APIConnectionError, httpx.TransportError,
                        ConnectionError)):
        return AttemptFailed(message, retryable=True, status=status, retry_after=retry_after, kind="connection",
                             partial=partial)
    if isinstance(exc, (litellm.InternalServerError, litellm.ServiceUnavailableError,
                        litellm.BadGatewayError)) or (status is not None and status >= 500):
        return AttemptFailed(message, retryable=True, status=status, retry_after=retry_after, kind="server",
                             partial=partial)
    if status is not None:
        return AttemptFailed(message, retryable=is_retryable_status(status), status=status,
                             retry_after=retry_after, kind="client" if status < 500 else "server", partial=partial)
    return AttemptFailed(message, retryable=False, kind="error", partial=partial)


def _rejects_response_format(status: int | None, message: str) -> bool:
    """A server that refuses the request because of its response_format (llama-cpp-python answers 500 with
    a validation error naming it; others 400 or 422): the gateway asks again without the schema."""
    return status in (400, 422, 500) and "response_format" in message


def _message(exc: Exception) -> str:
    text = str(exc) or repr(exc)
    return " ".join(text.split())[:2000]


def batch_cost_of(model: str, input_tokens: int | None, output_tokens: int | None) -> float | None:
    """USD at the provider's batch price (litellm's cost map: `*_cost_per_token_batches`, else half the
    direct price, as litellm prices batches); None (unknown) when the model is not in the map."""
    if input_tokens is None and output_tokens is None:
        return None
    litellm = litellm_module()
    try:
        litellm.get_model_info(model=model)
    except Exception:  # not mapped: unknown, never a guess (litellm's calculator would say 0.0)
        return None
    from litellm.cost_calculator import batch_cost_calculator
    from litellm.types.utils import Usage

    usage = Usage(prompt_tokens=input_tokens or 0, completion_tokens=output_tokens or 0,
                  total_tokens=(input_tokens or 0) + (output_tokens or 0))
    prompt_cost, completion_cost = batch_cost_calculator(usage, model)
    return float(prompt_cost) + float(completion_cost)


# Models litellm's cost map does not price, learned once: the map is the bundled copy, fixed for the process,
# and asking it about an unmapped model (a local server's, typically) walks every provider's lookup and raises,
# about a millisecond of CPU each time, twice a call (the journal's estimate and the record).
_unpriced: set[str] = set()


def cost_of(model: str, input_tokens: int | None, output_tokens: int | None) -> float | None:
    """USD from litellm's bundled cost map; None (unknown) when the model is not in it."""
    if model in OFFLINE_MODELS:
        return 0.0  # the mock and the simulator cost nothing, truly
    if (input_tokens is None and output_tokens is None) or model in _unpriced:
        return None
    litellm = litellm_module()
    try:
        prompt_cost, completion_cost = litellm.cost_per_token(
            model=model, prompt_tokens=input_tokens or 0, completion_tokens=output_tokens or 0)
    except Exception:  # "This model isn't mapped yet" and friends: unknown, never a guess
        _unpriced.add(model)
        return None
    return float(prompt_cost) + float(completion_cost)
