"""Suite-wide guards: no test touches the user's store, and no test reaches the network."""

from __future__ import annotations

import ipaddress
import os
import socket

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex


def _check(address) -> None:
    if isinstance(address, (str, bytes)):  # unix socket
        return
    host = address[0]
    try:
        if ipaddress.ip_address(host).is_loopback:
            return
    except ValueError:
        if host == "localhost":
            return
    raise ConnectionRefusedError(f"tests never reach the network (attempted {host})")


def _guarded_connect(self, address):
    _check(address)
    return _real_connect(self, address)


def _guarded_connect_ex(self, address):
    _check(address)
    return _real_connect_ex(self, address)


socket.socket.connect = _guarded_connect
socket.socket.connect_ex = _guarded_connect_ex


@pytest.fixture(autouse=True)
def _isolated_store(tmp_path, monkeypatch):
    """Every test gets its own default store path and case library; nothing lands in the user data dir,
    and no user's case library reaches a test."""
    monkeypatch.setenv("WORKBENCH_DB", str(tmp_path / "default-store.db"))
    if "WORKBENCH_CASE_LIBRARY" not in os.environ:  # a test's own choice (tests/screens/conftest.py) stays
        monkeypatch.setenv("WORKBENCH_CASE_LIBRARY", str(tmp_path / "case-library"))


@pytest.fixture(autouse=True)
def _no_window_from_an_earlier_test():
    """Each test starts as a new process would, as far as context windows go: what an earlier test's
    server taught (a window, a silence) is keyed by its address, and a later test's server may be given the
    same port."""
    import sys

    yield
    module = sys.modules.get("workbench.gateway.context_window")
    if module is not None:  # never imported: nothing learned
        module.forget()


@pytest.fixture(scope="session", autouse=True)
def _mpnet_vectors_on_disk(tmp_path_factory):
    """all-mpnet-base-v2's sentence vectors kept on disk for the session (tests/support/vector_cache.py). The cue
    audit embeds every prompt of a study with it (`study show`, the report, the cue corpus's floors): a minute
    of CPU each time, and each test's fresh store starts with an empty cache. Beneath the store's cache, what
    one test or xdist worker encoded another reads; the Embedder's own caching and counts are unchanged."""
    from tests.support.vector_cache import encode_through_disk

    with pytest.MonkeyPatch.context() as patch:
        encode_through_disk(patch, tmp_path_factory.getbasetemp())
        yield
