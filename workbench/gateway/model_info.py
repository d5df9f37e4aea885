"""What litellm's bundled model map knows of a model's context window (no network: the local cost map)."""

from __future__ import annotations

from workbench.gateway.api import OFFLINE_MODELS


def context_window(model: str) -> int | None:
    """The most input tokens `model` accepts, or None when unknown (the offline models, a local server's
    model, anything litellm's map does not list): then nothing can be checked, and nothing is refused."""
    if not model or model in OFFLINE_MODELS:
        return None
    from workbench.gateway.transport import litellm_module

    try:
        info = litellm_module().get_model_info(model)
    except Exception:  # "This model isn't mapped yet" and friends
        return None
    window = info.get("max_input_tokens") or info.get("max_tokens")
    return int(window) if window else None
