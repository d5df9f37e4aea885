"""API keys live in the environment only. This module finds which provider keys are present
(by name) and scrubs key values out of any text before it is stored, logged or shown."""

from __future__ import annotations

import os
import re

SECRET_SUFFIXES = ("_KEY", "_TOKEN", "_SECRET")
# Shorter values are too likely to collide with ordinary words or numbers to be worth redacting.
MIN_SECRET_LENGTH = 6

# Provider key names litellm reads, for the Settings screen (names only, never values).
PROVIDER_KEYS = (
    "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "MISTRAL_API_KEY",
    "GROQ_API_KEY", "TOGETHERAI_API_KEY", "OPENROUTER_API_KEY", "DEEPSEEK_API_KEY", "XAI_API_KEY",
    "COHERE_API_KEY", "FIREWORKS_AI_API_KEY", "AZURE_API_KEY", "HUGGINGFACE_API_KEY",
    "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
)


def _is_secret_name(name: str) -> bool:
    upper = name.upper()
    return upper.endswith(SECRET_SUFFIXES) or upper in PROVIDER_KEYS


_found: tuple[object, list[tuple[str, str]]] | None = None  # (the environment it was read from, the secrets)


def secret_values() -> list[tuple[str, str]]:
    """(name, value) of every secret-looking variable, longest value first so overlaps redact whole.

    Asked for every call record; read again only when the environment changed (a copy of the os module's
    own mapping, compared in C: reading every variable through os.environ cost more than the record)."""
    global _found
    raw = getattr(os.environ, "_data", None)
    seen = tuple(raw.items()) if isinstance(raw, dict) else None
    if seen is not None and _found is not None and _found[0] == seen:
        return _found[1]
    found = [(k, v) for k, v in os.environ.items() if _is_secret_name(k) and len(v) >= MIN_SECRET_LENGTH]
    found.sort(key=lambda kv: len(kv[1]), reverse=True)
    _found = (seen, found) if seen is not None else None
    return found


def scrub(text: str | None, secrets: list[tuple[str, str]] | None = None) -> str | None:
    """`text` with every secret value replaced by `[redacted NAME]` (`secrets`: a `secret_values()` taken once)."""
    if not text:
        return text
    for name, value in secret_values() if secrets is None else secrets:
        if value in text:
            text = text.replace(value, f"[redacted {name}]")
    # Bearer tokens echoed back by a provider or a proxy, whatever variable they came from.
    return re.sub(r"(?i)(authorization:?\s*bearer\s+)\S+", r"\1[redacted]", text)


def present_key_names() -> list[str]:
    """Names of provider keys set (non-empty) in the environment; never their values."""
    names = {k for k in os.environ if _is_secret_name(k) and os.environ[k] and
             (k in PROVIDER_KEYS or k.upper().endswith("_API_KEY"))}
    return sorted(names)
