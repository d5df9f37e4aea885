"""Loopback servers that know their context window, as the three kinds of local server show it.

- "llama.cpp": `GET /props` reports `default_generation_settings.n_ctx`;
- "vllm": `GET /v1/models` reports each model's `max_model_len`;
- "llama-cpp-python": reports nothing, has `/extras/tokenize/count`, refuses a prompt of `n_ctx` tokens or more
  with its 400 "This model's maximum context length is N tokens ..." (before any generation), and shrinks
  max_tokens to the room a prompt leaves (the reply then ends "length", cut by the window).

A token is a word here. `generations` counts the replies it generated; `refused` the requests it refused."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest


@pytest.fixture
def fresh_windows(monkeypatch):
    """No window learned by an earlier test (each test is a new process, as far as windows go); a dummy key."""
    from tests.support.loopback import DUMMY_KEY
    from workbench.gateway import context_window

    monkeypatch.setenv("OPENAI_API_KEY", DUMMY_KEY)
    context_window.forget()
    yield
    context_window.forget()


def words(messages: list[dict]) -> int:
    return sum(len(str(m.get("content") or "").split()) for m in messages)


class WindowServer:
    def __init__(self, kind: str, n_ctx: int, reply_words: int = 40) -> None:
        self.kind, self.n_ctx, self.reply_words = kind, n_ctx, reply_words
        self.generations = 0
        self.refused = 0
        self.chat_bodies: list[dict] = []
        self._lock = threading.Lock()

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> "WindowServer":
        owner = self

        class Handler(_Handler):
            server_owner = owner

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


class _Handler(BaseHTTPRequestHandler):
    server_owner: WindowServer
    protocol_version = "HTTP/1.1"

    def log_message(self, *args) -> None:
        return None

    def _json(self, code: int, doc: dict) -> None:
        data = json.dumps(doc).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        s = self.server_owner
        if self.path.rstrip("/") == "/props" and s.kind == "llama.cpp":
            return self._json(200, {"default_generation_settings": {"n_ctx": s.n_ctx}, "total_slots": 1})
        if self.path.rstrip("/").endswith("/models"):
            row = {"id": "local", "object": "model", "owned_by": "me"}
            if s.kind == "vllm":
                row["max_model_len"] = s.n_ctx
            return self._json(200, {"object": "list", "data": [row]})
        return self._json(404, {"error": {"message": "not found"}})

    def do_POST(self) -> None:
        s = self.server_owner
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        if self.path.rstrip("/") == "/extras/tokenize/count" and s.kind == "llama-cpp-python":
            return self._json(200, {"count": len(str(body.get("input", "")).split())})
        if not self.path.rstrip("/").endswith("/chat/completions"):
            return self._json(404, {"error": {"message": "not found"}})
        prompt = words(body.get("messages") or [])
        with s._lock:
            s.chat_bodies.append({k: v for k, v in body.items() if k != "messages"} | {"prompt_words": prompt})
        if prompt >= s.n_ctx:  # llama_cpp/llama.py, then server/errors.py: refused before evaluating
            with s._lock:
                s.refused += 1
            mt = body.get("max_tokens")
            return self._json(400, {"error": {
                "message": f"This model's maximum context length is {s.n_ctx} tokens. However, you requested "
                           f"{prompt + (mt or 0)} tokens ({prompt} in the messages, {mt} in the completion). "
                           "Please reduce the length of the messages or completion.",
                "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}})
        room = s.n_ctx - prompt
        asked = int(body.get("max_tokens") or room)
        n = min(s.reply_words, asked, room)
        finish = "length" if n < s.reply_words else "stop"
        with s._lock:
            s.generations += 1
        text = " ".join(["word"] * n)
        return self._json(200, {
            "id": "w", "object": "chat.completion", "created": 0, "model": body.get("model", "local"),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": n, "total_tokens": prompt + n}})
