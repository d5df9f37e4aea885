"""A model's context window, known before the first call (issue 34).

Where it comes from, first that answers:

1. litellm's bundled model map (`litellm.get_model_info`, no network) for a hosted model;
2. the server, where it reports one: llama.cpp's server (`GET /props`: `n_ctx`), vLLM (`GET /v1/models`:
   `max_model_len`);
3. llama-cpp-python's server, which reports none (its `/v1/models` names the model only), but refuses a
   request whose prompt does not fit before evaluating anything: it tokenizes the prompt, compares it with
   `n_ctx` and answers 400 "This model's maximum context length is N tokens" (llama_cpp/llama.py, then
   server/errors.py's `context_length_exceeded`). The gateway sends it one deliberately oversized request
   (`PROBE_TOKENS` one-token words, `max_tokens` 1, not streamed) and reads N from the refusal: no
   generation, only tokenizing. The server is recognized by its `/extras/tokenize/count` route, so no other
   server is ever sent the oversized request;
4. an overflow error of a real call (`window_in_message`), which costs no generation either.

What is learned is kept for the process (`learned`), per model and server; so is a server's silence (it
is asked once, however many judges share it; an overflow error can still name the window later).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from workbench.gateway.api import OFFLINE_MODELS, ModelSettings
from workbench.gateway.overflow import window_in_message

# The oversized request to llama-cpp-python's server: larger than any context a local server is started
# with (its default is 2,048; 2**20 tokens is eight times the largest windows of today's open models), so
# it is refused, never evaluated. About 2 MB of text, tokenized by the server in well under a second.
PROBE_TOKENS = 2 ** 20
HTTP_TIMEOUT = 10.0   # seconds for each question to a server

@dataclass(frozen=True)
class Window:
    tokens: int
    source: str   # where it was learned, said in every message that names it

    def text(self) -> str:
        return f"{self.tokens:,} tokens ({self.source})"


learned: dict[tuple[str, str], Window] = {}
_silent: set[tuple[str, str]] = set()  # servers asked in this process that reported no window


def forget() -> None:
    """Forget every window and silence learned (as a new process would start)."""
    learned.clear()
    _silent.clear()


def _key(settings: ModelSettings) -> tuple[str, str]:
    return settings.model, (settings.api_base or "").rstrip("/")


def learn_from_error(settings: ModelSettings, message: str) -> Window | None:
    """Keep the window an overflow error names (an error, so no generation was paid for)."""
    tokens = window_in_message(message)
    if tokens is None:
        return learned.get(_key(settings))
    window = Window(tokens, "named by the server's overflow error")
    learned[_key(settings)] = window
    return window


def window_of(settings: ModelSettings, *, ask_server: bool = True) -> Window | None:
    """The model's window, or None when nothing can say (the offline models; a server that reports none and
    is not llama-cpp-python's). `ask_server`: False keeps to what is known without a request."""
    if not settings.model or settings.model in OFFLINE_MODELS:
        return None
    key = _key(settings)
    if key in learned:
        return learned[key]
    window = None
    if settings.api_base:
        if not ask_server:
            return None
        if key in _silent:
            return None
        window = _from_server(settings)
        if window is None:
            _silent.add(key)  # the judges of a panel often share one server: it is asked once
    else:
        tokens = litellm_window(settings.model)
        window = Window(tokens, "litellm's model info") if tokens else None
    if window is not None:
        learned[key] = window
    return window


def litellm_window(model: str) -> int | None:
    """The most input tokens litellm's bundled map gives for `model` (no network), or None."""
    if not model or model in OFFLINE_MODELS:
        return None
    from workbench.gateway.transport import litellm_module

    try:
        info = litellm_module().get_model_info(model)
    except Exception:  # "This model isn't mapped yet" and friends
        return None
    window = info.get("max_input_tokens") or info.get("max_tokens")
    return int(window) if window else None


# --- asking a server -------------------------------------------------------------------------------------

def _root(api_base: str) -> str:
    base = api_base.rstrip("/")
    return base[:-3] if base.endswith("/v1") else base


def _headers(settings: ModelSettings) -> dict[str, str]:
    name = settings.api_key_env
    key = os.environ.get(name) if name and name != "none" else None
    return {"Authorization": f"Bearer {key}"} if key else {}


def _served_name(model: str) -> str:
    """The model's name on an OpenAI-compatible server: litellm's provider prefix removed."""
    return model.split("/", 1)[1] if "/" in model else model


def _from_server(settings: ModelSettings) -> Window | None:
    import httpx

    base, root = settings.api_base.rstrip("/"), _root(settings.api_base)
    try:
        with httpx.Client(timeout=HTTP_TIMEOUT, headers=_headers(settings)) as client:
            return (_llama_cpp_props(client, root) or _vllm_models(client, base, settings.model)
                    or _llama_cpp_python_refusal(client, base, root, settings.model))
    except (httpx.HTTPError, ValueError):  # no server there, or an answer that is not JSON: nothing learned
        return None


def _llama_cpp_props(client, root: str) -> Window | None:
    r = client.get(f"{root}/props")
    if r.status_code != 200:
        return None
    doc = r.json()
    n_ctx = (doc.get("default_generation_settings") or {}).get("n_ctx") or doc.get("n_ctx")
    return Window(int(n_ctx), "the server's /props (llama.cpp)") if n_ctx else None


def _vllm_models(client, base: str, model: str) -> Window | None:
    r = client.get(f"{base}/models")
    if r.status_code != 200:
        return None
    rows = [m for m in (r.json().get("data") or []) if isinstance(m, dict) and m.get("max_model_len")]
    row = next((m for m in rows if m.get("id") == _served_name(model)), rows[0] if rows else None)
    return Window(int(row["max_model_len"]), "the server's /v1/models max_model_len (vLLM)") if row else None


def _llama_cpp_python_refusal(client, base: str, root: str, model: str) -> Window | None:
    """llama-cpp-python's server: recognized by its tokenizer route, asked one request too large to evaluate."""
    r = client.post(f"{root}/extras/tokenize/count", json={"input": "a"})
    if r.status_code != 200 or "count" not in r.json():
        return None
    r = client.post(f"{base}/chat/completions", json={
        "model": _served_name(model), "max_tokens": 1, "stream": False,
        "messages": [{"role": "user", "content": " a" * PROBE_TOKENS}]})
    tokens = window_in_message(r.text) if r.status_code == 400 else None
    return Window(tokens, "the server's refusal of an oversized request (llama-cpp-python)") if tokens else None


# --- what a user is told ---------------------------------------------------------------------------------

def fixes(settings: ModelSettings, needed: int | None = None,
          shorter: str = "fewer rounds or a shorter program") -> str:
    """The ways out of a window too small: the server's context flag, a shorter prompt (`shorter`: how), a
    smaller max_tokens."""
    size = 1 << max(needed or 0, 1).bit_length() if needed else None
    flag = (f"start the server with a larger context (llama-cpp-python: --n_ctx {size or 'N'}; llama.cpp: "
            f"-c {size or 'N'}; vLLM: --max-model-len {size or 'N'})" if settings.api_base
            else "choose a model with a larger context window")
    return f"{flag}; {shorter}; a smaller max_tokens (now {settings.max_tokens})"


def overflow_message(settings: ModelSettings, window: Window | None, detail: str = "") -> str:
    """An overflow error, as every run of the endpoint is told it (the same words for all of them)."""
    where = f" at {settings.api_base}" if settings.api_base else ""
    size = f"its context window of {window.text()}" if window else "its context window"
    said = f" ({detail})" if detail else ""
    return (f"{settings.model}{where}: a prompt does not fit {size}{said}; the endpoint's other runs are "
            f"stopped with this message. Fix: {fixes(settings)}")
