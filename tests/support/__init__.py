"""Shared test support. `tests.support.loopback` is the loopback OpenAI-compatible server:

    from tests.support import LoopbackServer, Reply, loopback
    # pytest fixture: in your conftest.py
    from tests.support.loopback import loopback_server  # noqa: F401
"""

from tests.support.loopback import DUMMY_KEY, LoopbackServer, Reply, loopback

__all__ = ["DUMMY_KEY", "LoopbackServer", "Reply", "loopback"]
