"""API keys come from the environment only and never reach the store, the logs or error messages."""

from __future__ import annotations

import pytest

from tests.support.loopback import Reply
from workbench.gateway import CallRequest, GatewayError, ModelSettings
from workbench.gateway.secrets import present_key_names, scrub

FAKE_KEY = "sk-test-DISTINCTIVE-9f3c1a77e2b54d08"


def files_containing(root, needle: bytes) -> list[str]:
    return [str(p) for p in root.rglob("*") if p.is_file() and needle in p.read_bytes()]


async def test_key_is_used_but_never_written(tmp_path, monkeypatch, make_gateway, loopback_server):
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)

    def echo_the_key(body):
        # A careless provider or proxy that puts the caller's credentials in its error message.
        auth = loopback_server.request_headers[-1].get("authorization", "")
        if "fail" in body["messages"][0]["content"]:
            return Reply.status(401, message=f"key rejected: {auth} ({auth.split()[-1]})")
        return Reply.text(f"fine, you sent {len(auth)} characters")

    loopback_server.responder = echo_the_key
    settings = ModelSettings(model="openai/loopback-test", api_base=loopback_server.url, timeout=5.0)
    gateway = make_gateway()
    await gateway.call(CallRequest(messages=[{"role": "user", "content": "hello"}], settings=settings,
                                   study_id="keyed"))
    with pytest.raises(GatewayError) as info:
        await gateway.call(CallRequest(messages=[{"role": "user", "content": "fail please"}], settings=settings,
                                       study_id="keyed"))
    assert loopback_server.request_headers[0]["authorization"] == f"Bearer {FAKE_KEY}"  # the key was used
    assert FAKE_KEY not in str(info.value) and "[redacted" in str(info.value)
    gateway.db.execute("PRAGMA wal_checkpoint(FULL)")
    assert files_containing(tmp_path, FAKE_KEY.encode()) == []
    assert gateway.log_path("keyed").exists()


def test_scrub_and_key_names(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "ant-secret-value-123")
    monkeypatch.setenv("MY_SERVICE_TOKEN", "tok-abcdef-999")
    text = scrub("boom ant-secret-value-123 and tok-abcdef-999")
    assert "ant-secret" not in text and "tok-abcdef" not in text
    assert "[redacted ANTHROPIC_API_KEY]" in text
    names = present_key_names()
    assert "ANTHROPIC_API_KEY" in names and "MY_SERVICE_TOKEN" not in names  # provider keys only
    assert all("secret" not in n for n in names)
