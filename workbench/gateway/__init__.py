"""The model gateway: every model call in the project goes through `Gateway.call`."""

from workbench.gateway.api import (
    MOCK_MODEL,
    CallRequest,
    CallResult,
    GatewayError,
    ModelSettings,
    ReplayMiss,
)

__all__ = ["MOCK_MODEL", "CallRequest", "CallResult", "GatewayError", "ModelSettings", "ReplayMiss"]
