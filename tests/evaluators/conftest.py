from __future__ import annotations

from tests.judges.conftest import db, store  # noqa: F401  (the same fixtures: a memory store; a file store and gateway)
from tests.support.loopback import loopback_server  # noqa: F401  (the fixture)
