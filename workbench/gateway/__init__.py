"""The model gateway: every model call in the project goes through `Gateway.call`.

    from workbench.gateway import CallRequest, ModelSettings, build_gateway
    gateway = build_gateway(db, db_path)                 # limits from the stored settings
    result = await gateway.call(CallRequest(messages=[...], settings=ModelSettings(model="mock")), sink)

`build_gateway(..., replay_only=True)` forbids the network (`--replay`).
"""

from __future__ import annotations

from pathlib import Path

import sqlite_utils

from workbench.gateway.api import (
    MOCK_MODEL,
    CallRequest,
    CallResult,
    ContextOverflow,
    CostCeilingReached,
    GatewayError,
    ModelSettings,
    ReplayMiss,
)
from workbench.gateway.calllog import VerifyResult, verify_log
from workbench.gateway.client import Gateway, GatewayConfig, call_key, default_log_dir
from workbench.gateway.provider_batch import NoBatchAPI, ProviderBatchConfig, refuse_unbatchable


def load_model_library() -> None:
    """Import litellm now (offline: the bundled cost map). The first import takes seconds, so a screen
    calls this in a thread before its first call instead of stalling its event loop."""
    from workbench.gateway.transport import litellm_module

    litellm_module()


def prefetch_model_library() -> None:
    """Start importing litellm on a thread of its own and return at once: a command that will call a model
    does its own start-up meanwhile, and its first call waits for what is left of the import."""
    from workbench.gateway.transport import prefetch_litellm

    prefetch_litellm()


def decodes_by_schema(settings: ModelSettings) -> bool:
    """Whether a call on `settings` sends a JSON schema the model decodes by (an api_base server, a model
    litellm says supports response schemas, or the `structured` setting): a step that is worth making only
    when its reply is held to a schema asks this first."""
    from workbench.gateway.transport import structured_mode

    return structured_mode(settings, {}) != "none"


def build_gateway(db: sqlite_utils.Database, db_path: Path | str | None, *, replay_only: bool = False,
                  config: GatewayConfig | None = None, max_connections: int | None = None,
                  stream: bool = False, provider_batch: ProviderBatchConfig | None = None) -> Gateway:
    """A gateway over `db` whose call logs live beside the store at `db_path` (`logs_dir`).

    `config` defaults to the limits saved in the store's settings (workbench/gateway/settings.py);
    `max_connections` and `stream` are a command's `--max-connections N` and `--stream`; `provider_batch` its
    `--provider-batch` options.
    """
    if config is None:
        from workbench.gateway.settings import load_settings

        config = load_settings(db).gateway_config()
    if max_connections is not None:
        config.max_connections = max_connections
    config.stream = config.stream or stream
    if provider_batch is not None:
        config.provider_batch = provider_batch
    return Gateway(db, default_log_dir(db, db_path), replay_only=replay_only, config=config)


__all__ = [
    "MOCK_MODEL", "CallRequest", "CallResult", "ContextOverflow", "CostCeilingReached", "Gateway", "GatewayConfig", "GatewayError",
    "ModelSettings", "NoBatchAPI", "ProviderBatchConfig", "ReplayMiss", "VerifyResult", "build_gateway", "call_key",
    "decodes_by_schema", "prefetch_model_library",
    "default_log_dir", "refuse_unbatchable", "verify_log",
]
