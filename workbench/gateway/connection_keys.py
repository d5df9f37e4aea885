"""The keys of a model's settings about reaching the model: `api_key_env`, `max_connections`,
`first_token_timeout`, `stall_timeout` and `structured`. One set of rules for a study file's `[model]`, every
`[[judges]]` and a protocol's role tables (faultline's extractor and belief-graph builder), and for the roles
of the gateway settings (the Settings screen, `settings set`). Only the keys a table sets are kept, so a
definition without them is what it was before they existed."""

from __future__ import annotations

import re
from typing import Callable

from workbench.gateway.api import CONNECTION_KEYS, STRUCTURED_MODES

ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def check_connection_keys(table: dict, path: str, bad: Callable[[str, str], None]) -> dict:
    """The connection keys `table` sets, checked; each problem reported as `bad(f"{path}.{key}", why)`."""
    out: dict = {}
    for key in CONNECTION_KEYS:
        if key not in table:
            continue
        v = table[key]
        where = f"{path}.{key}"
        if key == "api_key_env":
            if not isinstance(v, str) or not (v == "none" or ENV_NAME.match(v)):
                bad(where, 'must name an environment variable (e.g. "OPENAI_API_KEY"), or "none" for a keyless server')
                continue
        elif key == "max_connections":
            if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 1024:
                bad(where, f"must be a whole number from 1 to 1024 (got {v!r})")
                continue
        elif key in ("first_token_timeout", "stall_timeout"):
            if isinstance(v, bool) or not isinstance(v, (int, float)) or v <= 0:
                bad(where, f"must be a number of seconds above 0 (got {v!r})")
                continue
            v = float(v)
        elif key == "structured":
            if v not in STRUCTURED_MODES:
                bad(where, f"must be one of {', '.join(STRUCTURED_MODES)} (got {v!r})")
                continue
        out[key] = v
    return out
