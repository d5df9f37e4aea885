"""One attempt of one call through litellm's async streaming API.

litellm is imported lazily, with its cost map pinned to the bundled copy first
(otherwise it fetches one over the network at import time).
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass
from typing import Any, Callable

from workbench.gateway.api import OFFLINE_MODELS, ModelSettings
from workbench.gateway.retry import AttemptFailed, is_retryable_status, parse_retry_after
from workbench.gateway.secrets import scrub

# litellm's model string for the offline mock: any provider prefix works with mock_response.
_MOCK_LITELLM_MODEL = "openai/mock"

_litellm = None


def litellm_module():
    """Import litellm once, offline: the bundled cost map, no telemetry, no debug banners."""
    global _litellm
    if _litellm is None:
        os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
        os.environ.setdefault("LITELLM_TELEMETRY", "False")
        import litellm

        litellm.suppress_debug_info = True
        litellm.telemetry = False
        litellm.drop_params = True  # e.g. `seed` on a provider without it; we still record what was asked
        _litellm = litellm
    return _litellm


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


def litellm_kwargs(settings: ModelSettings, messages: list[dict], mock_text: str | None) -> dict[str, Any]:
    kwargs: dict[str, Any] = {
        "messages": messages,
        "stream": True,
        "stream_options": {"include_usage": True},
        "temperature": settings.temperature,
        "max_tokens": settings.max_tokens,
        "timeout": settings.timeout,
        # The gateway owns retries: neither litellm nor the OpenAI client may retry on their own.
        "num_retries": 0,
        "max_retries": 0,
    }
    if settings.seed is not None:
        kwargs["seed"] = settings.seed
    if settings.model in OFFLINE_MODELS:
        kwargs["model"] = _MOCK_LITELLM_MODEL
        kwargs["mock_response"] = _mock_stream_chunk(mock_text or "")
    else:
        kwargs["model"] = settings.model
        if settings.api_base:
            kwargs["api_base"] = settings.api_base
        if settings.api_key_env:
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


async def stream_attempt(settings: ModelSettings, messages: list[dict], *, on_token: Callable[[str], None],
                         stall_timeout: float, mock_text: str | None = None) -> AttemptOutcome:
    """Stream one completion. Raises AttemptFailed, classified, for anything short of a whole answer."""
    litellm = litellm_module()
    kwargs = litellm_kwargs(settings, messages, mock_text)
    is_mock = settings.model in OFFLINE_MODELS
    parts: list[str] = []
    stream = None
    try:
        async with asyncio.timeout(settings.timeout):
            stream = await litellm.acompletion(**kwargs)
            chunk_finish = None
            usage = None
            iterator = stream.__aiter__()
            while True:
                try:
                    chunk = await asyncio.wait_for(iterator.__anext__(), timeout=stall_timeout)
                except StopAsyncIteration:
                    break
                if getattr(chunk, "usage", None) is not None:
                    usage = chunk.usage
                for choice in chunk.choices or []:
                    delta = getattr(choice, "delta", None)
                    piece = getattr(delta, "content", None) if delta is not None else None
                    if piece:
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
        kind = "stall" if parts else "timeout"
        raise AttemptFailed(f"no reply within {settings.timeout:g}s" if not parts else
                            f"the stream stalled for more than {stall_timeout:g}s",
                            retryable=True, status=None, kind=kind, partial="".join(parts)) from exc
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

    status = getattr(exc, "status_code", None)
    status = status if isinstance(status, int) else None
    headers = getattr(exc, "litellm_response_headers", None) or getattr(getattr(exc, "response", None),
                                                                        "headers", None)
    retry_after = parse_retry_after(headers)
    message = scrub(_message(exc)) or type(exc).__name__
    # litellm.Timeout subclasses openai.APITimeoutError, not litellm.APIConnectionError: check it first.
    if isinstance(exc, (litellm.Timeout, openai.APITimeoutError, httpx.TimeoutException)):
        return AttemptFailed(message, retryable=True, status=408, kind="timeout", partial=partial)
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


def _message(exc: Exception) -> str:
    text = str(exc) or repr(exc)
    return " ".join(text.split())[:2000]


def cost_of(model: str, input_tokens: int | None, output_tokens: int | None) -> float | None:
    """USD from litellm's bundled cost map; None (unknown) when the model is not in it."""
    if model in OFFLINE_MODELS:
        return 0.0  # the mock and the simulator cost nothing, truly
    if input_tokens is None and output_tokens is None:
        return None
    litellm = litellm_module()
    try:
        prompt_cost, completion_cost = litellm.cost_per_token(
            model=model, prompt_tokens=input_tokens or 0, completion_tokens=output_tokens or 0)
    except Exception:  # "This model isn't mapped yet" and friends: unknown, never a guess
        return None
    return float(prompt_cost) + float(completion_cost)
