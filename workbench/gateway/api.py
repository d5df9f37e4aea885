"""The gateway's public types. Architectures, judges and probes build a `CallRequest`
and await `Gateway.call(request, sink)` (see `workbench/gateway/client.py`;
`build_gateway` in `workbench/gateway/__init__.py` makes one).

The replay key of a call is (model, messages, sampling settings, replicate,
sample): `sample` separates independent draws of one identical prompt inside
a run (e.g. five respondents given the same text), so replicates and samples
are never collapsed into one call. Each sample also draws with its own seed
(`workbench/gateway/seeds.py`), applied by the gateway and recorded with the call.
A judge's call (role "judge") also keys on the judge's name: two judges are two draws.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

from workbench.simmodel.params import SIM_MODEL  # the seeded simulator: offline, labelled SIMULATED

MOCK_MODEL = "mock"
OFFLINE_MODELS = (MOCK_MODEL, SIM_MODEL)


@dataclass(frozen=True)
class ModelSettings:
    """One role's model: a litellm model string and its sampling settings."""

    model: str = MOCK_MODEL
    api_base: str | None = None
    temperature: float = 0.7
    seed: int | None = None
    max_tokens: int = 1024
    timeout: float = 120.0  # seconds: one attempt's whole deadline, from sending to the last token
    # The NAME of an environment variable holding this model's key; None lets litellm read the
    # provider's usual variable; "none" is a keyless server (a local one). The value is never stored.
    api_key_env: str | None = None
    # Connections to this model's endpoint at most (None: the gateway's global ceiling). The gateway
    # adapts below it on its own when the endpoint interrupts streams or refuses (see connections.py).
    max_connections: int | None = None
    # A streamed attempt's timers: the first token within `first_token_timeout` (None: `timeout`;
    # waiting in the server's queue counts here, never as a stall), then no gap between tokens longer
    # than `stall_timeout` (None: the gateway's setting).
    first_token_timeout: float | None = None
    stall_timeout: float | None = None
    # How a step whose reply must be JSON sends its schema: "json_schema" (OpenAI's response_format),
    # "json_object" ({"type": "json_object", "schema": ...}: llama.cpp and llama-cpp-python enforce it by
    # grammar), "none" (the prompt and the parser alone); None decides per model (transport.structured_mode).
    structured: str | None = None

    def sampling(self) -> dict[str, Any]:
        """The settings that shape the reply (part of the replay key and recorded with every call)."""
        return {"temperature": self.temperature, "seed": self.seed, "max_tokens": self.max_tokens}

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ModelSettings":
        known = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        return cls(**known)


@dataclass
class CallRequest:
    messages: list[dict[str, str]]
    settings: ModelSettings
    role: str = "architecture"  # architecture | judge | probe | classifier | audit | test
    study_id: str | None = None
    run_id: str | None = None
    turn: str | None = None
    agent: str | None = None
    replicate: int = 0
    sample: int = 0
    metadata: dict[str, Any] = field(default_factory=dict)
    # False: always make a fresh call and never serve this request from the log (e.g. the
    # Settings screen's connection test). The call is still logged.
    cache: bool = True
    # The JSON schema the reply must follow, {"name": ..., "schema": {...}}, for steps that parse JSON.
    # Sent as response_format where the model supports it; part of the replay key only when given.
    response_schema: dict[str, Any] | None = None
    # Stream the tokens (someone watches them)? None: when the sink says it watches this run.
    stream: bool | None = None


@dataclass
class CallResult:
    text: str
    finish_reason: str | None
    model: str
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost: float | None = None  # None means unknown: never a made-up number
    latency_ms: float = 0.0
    call_id: int | None = None
    replayed: bool = False
    attempts: int = 1
    placeholder: bool = False  # True for the built-in mock model's text
    call_key: str | None = None


class GatewayError(Exception):
    """A call that failed for good (after any retries); the message never contains a key."""

    def __init__(self, message: str, *, status: int | None = None, retryable: bool = False,
                 attempts: int = 1):
        super().__init__(message)
        self.status = status
        self.retryable = retryable
        self.attempts = attempts


class ContextOverflow(GatewayError):
    """A prompt did not fit the model's context window: this run fails, and every other call to the same
    model and server fails at once with the same message, before it is sent (workbench/gateway/context_window.py)."""


class ReplayMiss(GatewayError):
    """`--replay` forbids the network and this call is not in the log."""


STRUCTURED_MODES = ("json_schema", "json_object", "none")
# A model table's keys about reaching the model (study files' [model], [[judges]], protocols' role tables).
# All but `structured` only limit how calls are made, never what they answer: a frozen study may change them.
CONNECTION_KEYS = ("api_key_env", "max_connections", "first_token_timeout", "stall_timeout", "structured")
OPERATIONAL_CONNECTION_KEYS = ("api_key_env", "max_connections", "first_token_timeout", "stall_timeout")


def connection_options(table: dict) -> dict[str, Any]:
    """The connection keys a study's model table sets, as ModelSettings keywords."""
    return {k: table[k] for k in CONNECTION_KEYS if table.get(k) is not None}


class CostCeilingReached(GatewayError):
    """The study's cost ceiling is reached: no new calls are made."""


class GatewayLike(Protocol):
    """What run programs, judges and probes need of a gateway: one awaited call per turn.
    `workbench.gateway.client.Gateway` is the real one; tests may pass any object with this method."""

    async def call(self, request: CallRequest, sink: Any = None) -> CallResult: ...
