"""A loopback OpenAI-compatible chat server for tests: real HTTP on 127.0.0.1, no network.

It answers `POST /v1/chat/completions` (streamed as SSE, or as one JSON body)
with scripted replies, and can misbehave on purpose: 429 with Retry-After,
500, a hang past the client's timeout, a malformed body, 401, a stream cut
after N chunks, a stream that ends with no finish reason, a corrupted chunk.
Every request body is recorded and counted.

Usage (the gateway reaches it through litellm's "openai/" provider):

    from tests.support.loopback import Reply, loopback

    with loopback() as server:                      # sets OPENAI_API_KEY to a dummy
        server.queue(Reply.status(429, retry_after=1), Reply.text("hello"))
        settings = ModelSettings(model="openai/test", api_base=server.url)
        ...
        assert server.count == 2
        assert server.requests[0]["messages"][0]["content"] == "..."

Or as a pytest fixture: in your conftest.py, `from tests.support.loopback import
loopback_server  # noqa: F401` and take `loopback_server` as an argument.

Replies come first from the queue (in order), then from `responder`, a
callable `(request_json) -> Reply | str` (a str becomes `Reply.text(str)`),
then the default: a short echo of the last user message.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import socket
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Iterator

Responder = Callable[[dict], "Reply | str"]

DUMMY_KEY = "sk-loopback-dummy-key"


@dataclass
class Reply:
    """What the server does with one request."""

    content: str = "ok"
    chunks: list[str] | None = None      # the stream's content pieces; default: split on words
    finish_reason: str | None = "stop"   # None: the stream ends with no finish reason
    status_code: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    raw_body: bytes | None = None        # sent as-is instead of a well-formed reply (malformed body)
    latency: float | None = None         # seconds before the first byte (None: the server's default)
    chunk_delay: float = 0.0             # seconds between stream chunks
    hang: float | None = None            # seconds to stall before answering (past the client's timeout)
    cut_after: int | None = None         # close the connection after this many content chunks
    corrupt_at: int | None = None        # send an unparseable SSE data line in place of chunk N
    usage: dict[str, int] | None = None  # default: counted from words

    # --- constructors for the common cases -------------------------------------------------
    @classmethod
    def text(cls, content: str, **kw: Any) -> "Reply":
        return cls(content=content, **kw)

    @classmethod
    def status(cls, code: int, *, retry_after: float | None = None, message: str | None = None) -> "Reply":
        headers = {"Retry-After": _fmt_seconds(retry_after)} if retry_after is not None else {}
        body = json.dumps({"error": {"message": message or f"loopback status {code}",
                                     "type": "loopback_error", "code": code}}).encode()
        return cls(status_code=code, headers=headers, raw_body=body)

    @classmethod
    def rate_limited(cls, retry_after: float = 1) -> "Reply":
        return cls.status(429, retry_after=retry_after, message="rate limited")

    @classmethod
    def server_error(cls) -> "Reply":
        return cls.status(500, message="internal server error")

    @classmethod
    def unauthorized(cls) -> "Reply":
        return cls.status(401, message="invalid api key")

    @classmethod
    def hung(cls, seconds: float = 5.0) -> "Reply":
        return cls(hang=seconds)

    @classmethod
    def malformed(cls) -> "Reply":
        return cls(raw_body=b"{this is not json", headers={"Content-Type": "application/json"})

    @classmethod
    def cut(cls, after: int = 3, content: str = "one two three four five six") -> "Reply":
        return cls(content=content, cut_after=after)

    @classmethod
    def no_finish(cls, content: str = "an answer that never says it is done") -> "Reply":
        return cls(content=content, finish_reason=None)

    @classmethod
    def corrupted(cls, at: int = 1, content: str = "alpha beta gamma delta") -> "Reply":
        return cls(content=content, corrupt_at=at)

    def pieces(self) -> list[str]:
        if self.chunks is not None:
            return list(self.chunks)
        words = self.content.split(" ")
        return [w if i == 0 else " " + w for i, w in enumerate(words)] if self.content else []


def _fmt_seconds(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def _count_words(messages: list[dict]) -> int:
    total = 0
    for m in messages or []:
        content = m.get("content")
        if isinstance(content, str):
            total += len(content.split())
    return max(total, 1)


class LoopbackServer:
    """The server. `url` is the api_base to give litellm (it ends in /v1)."""

    def __init__(self, responder: Responder | None = None, *, latency: float = 0.0,
                 model_name: str = "loopback-model", single_slot: bool = False) -> None:
        """`single_slot`: behave like llama-cpp-python's server with one slot. A new request cuts the
        stream being served (a role-only chunk, then `data: [DONE]`, no finish reason); whole replies
        wait their turn, one at a time."""
        self.single_slot = single_slot
        self.interrupted = 0           # streams cut by a newer request (single_slot)
        self.client_closed = 0         # replies whose client closed the connection first (a cancel, a kill)
        self._generation = 0
        self._arrival = threading.local()  # each handler thread's request generation
        self._slot = threading.Lock()
        self.responder = responder
        self.latency = latency
        self.model_name = model_name
        self.requests: list[dict] = []
        self.request_headers: list[dict[str, str]] = []
        self.request_times: list[float] = []  # time.monotonic() at each request's arrival
        self.in_flight = 0
        self.max_in_flight = 0  # the most requests the server was answering at once
        self.replies: list[Reply] = []
        self._queue: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- control ------------------------------------------------------------------------------
    @property
    def url(self) -> str:
        assert self._httpd is not None, "server not started"
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    @property
    def count(self) -> int:
        """How many chat requests reached the server."""
        with self._lock:
            return len(self.requests)

    def queue(self, *replies: Reply | str) -> "LoopbackServer":
        with self._lock:
            for r in replies:
                self._queue.append(Reply.text(r) if isinstance(r, str) else r)
        return self

    def reset(self) -> None:
        with self._lock:
            self.requests.clear()
            self.request_headers.clear()
            self.request_times.clear()
            self.max_in_flight = 0
            self.replies.clear()
            self._queue.clear()

    thread_name = "loopback-llm"

    def handler(self) -> type:
        """The request handler class this server answers with (a subclass serves more endpoints)."""
        return _Handler

    def start(self) -> "LoopbackServer":
        server = self

        class Handler(self.handler()):
            owner = server

        self._httpd = _QuietServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._httpd.serve_forever, name=self.thread_name,
                                        kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()  # wakes any hung handler
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> "LoopbackServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- used by the handler ----------------------------------------------------------------
    def _next_reply(self, body: dict, headers: dict[str, str]) -> Reply:
        with self._lock:
            self._generation += 1
            self._arrival.generation = self._generation
            self.requests.append(body)
            self.request_headers.append(headers)
            self.request_times.append(time.monotonic())
            reply = self._queue.popleft() if self._queue else None
        if reply is None and self.responder is not None:
            got = self.responder(body)
            reply = Reply.text(got) if isinstance(got, str) else got
        if reply is None:
            last_user = next((m.get("content", "") for m in reversed(body.get("messages") or [])
                              if m.get("role") == "user"), "")
            reply = Reply.text("echo: " + " ".join(str(last_user).split()[:12]))
        with self._lock:
            self.replies.append(reply)
        return reply

    def _sleep(self, seconds: float) -> bool:
        """Sleep unless the server is stopping; False if it is."""
        return not self._stopping.wait(seconds) if seconds > 0 else not self._stopping.is_set()


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256

    def handle_error(self, request, client_address) -> None:
        # Clients that give up (timeouts, cut streams) reset connections: expected here, not news.
        import sys

        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError, OSError)):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    owner: LoopbackServer
    protocol_version = "HTTP/1.1"  # keep-alive, as real providers do

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        return None

    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("/models"):
            self._send_json(200, {"object": "list", "data": [{"id": self.owner.model_name, "object": "model"}]})
        else:
            self._send_json(404, {"error": {"message": "not found"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send_json(404, {"error": {"message": f"no route {self.path}"}})
            return
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            self._send_json(400, {"error": {"message": "request body is not JSON"}})
            return
        owner = self.owner
        reply = owner._next_reply(body, {k.lower(): v for k, v in self.headers.items()})
        with owner._lock:
            owner.in_flight += 1
            owner.max_in_flight = max(owner.max_in_flight, owner.in_flight)
        try:
            self._answer(body, reply)
        finally:
            with owner._lock:
                owner.in_flight -= 1

    def _answer(self, body: dict, reply: Reply) -> None:
        owner = self.owner
        if owner.single_slot and not body.get("stream"):
            with owner._slot:  # whole replies queue for the one slot
                return self._answer_now(body, reply)
        return self._answer_now(body, reply)

    def _answer_now(self, body: dict, reply: Reply) -> None:
        owner = self.owner
        if reply.hang is not None:
            owner._sleep(reply.hang)
            self.close_connection = True
            return  # answer nothing: the client's timeout fires first
        latency = owner.latency if reply.latency is None else reply.latency
        if not owner._sleep(latency):
            return
        if self._client_gone():  # the reply is ready and nobody waits for it: a real server has generated it
            return
        if reply.raw_body is not None:
            self._send_raw(reply.status_code, reply.raw_body, reply.headers)
        elif body.get("stream"):
            self._stream(body, reply)
        else:
            self._send_json(reply.status_code, self._completion(body, reply), reply.headers)

    # --- replies ------------------------------------------------------------------------------
    def _usage(self, body: dict, reply: Reply) -> dict:
        if reply.usage is not None:
            return dict(reply.usage)
        prompt = _count_words(body.get("messages") or [])
        completion = len(reply.pieces())
        if reply.finish_reason == "length" and body.get("max_tokens"):
            # a real server that stops at max_tokens has spent exactly max_tokens (fewer: its context window
            # stopped it, runs/truncation.py's cut_by); a test of a window cut sets `usage` itself
            completion = int(body["max_tokens"])
        return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}

    def _completion(self, body: dict, reply: Reply) -> dict:
        return {
            "id": "chatcmpl-loopback", "object": "chat.completion", "created": int(time.time()),
            "model": body.get("model") or self.owner.model_name,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": reply.content},
                         "finish_reason": reply.finish_reason}],
            "usage": self._usage(body, reply),
        }

    def _chunk(self, body: dict, delta: dict, finish_reason: str | None) -> dict:
        return {"id": "chatcmpl-loopback", "object": "chat.completion.chunk", "created": int(time.time()),
                "model": body.get("model") or self.owner.model_name,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]}

    def _stream(self, body: dict, reply: Reply) -> None:
        self.send_response(reply.status_code)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        for k, v in reply.headers.items():
            self.send_header(k, v)
        self.end_headers()
        pieces = reply.pieces()
        mine = getattr(self.owner._arrival, "generation", 0)
        try:
            self._event(self._chunk(body, {"role": "assistant", "content": ""}, None))
            for i, piece in enumerate(pieces):
                if self.owner.single_slot and self.owner._generation != mine:  # a newer request took the slot
                    with self.owner._lock:
                        self.owner.interrupted += 1
                    self._event(self._chunk(body, {"role": "assistant"}, None))
                    self._write_chunked(b"data: [DONE]\n\n")
                    self.wfile.write(b"0\r\n\r\n")
                    self.wfile.flush()
                    return
                if reply.cut_after is not None and i >= reply.cut_after:
                    self._drop()
                    return
                if i and reply.chunk_delay and not self.owner._sleep(reply.chunk_delay):
                    self._drop()
                    return
                if self._client_gone():  # the client closed the stream: stop sending, as a server stops generating
                    return
                if reply.corrupt_at is not None and i == reply.corrupt_at:
                    self._write_chunked(b'data: {"id": "chatcmpl-loopback", "choices": [{"delta": {"cont\n\n')
                    continue
                self._event(self._chunk(body, {"content": piece}, None))
            if reply.cut_after is not None:  # cut at or after the last piece: still never finish
                self._drop()
                return
            if reply.finish_reason is not None:
                self._event(self._chunk(body, {}, reply.finish_reason))
                if (body.get("stream_options") or {}).get("include_usage"):
                    usage_chunk = self._chunk(body, {}, None)
                    usage_chunk["choices"] = []
                    usage_chunk["usage"] = self._usage(body, reply)
                    self._event(usage_chunk)
            self._write_chunked(b"data: [DONE]\n\n")
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            self._client_gone()
            self.close_connection = True

    def _client_gone(self) -> bool:
        """Has the client closed this connection (it reads as ended)? Counted once per reply, in
        `client_closed`; a client on a kept-alive connection sends nothing while it waits for a reply."""
        try:
            poll = select.poll()  # not select.select: a long test process holds descriptors past 1024
            poll.register(self.connection, select.POLLIN | select.POLLHUP)
            gone = bool(poll.poll(0)) and self.connection.recv(1, socket.MSG_PEEK) == b""
        except OSError:
            gone = True
        if gone and not getattr(self, "_counted_gone", False):
            self._counted_gone = self.close_connection = True
            with self.owner._lock:
                self.owner.client_closed += 1
        return gone

    def _event(self, doc: dict) -> None:
        self._write_chunked(b"data: " + json.dumps(doc).encode() + b"\n\n")

    def _write_chunked(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def _drop(self) -> None:
        """End the connection mid-body: no terminating chunk, so the client sees a broken stream."""
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.wfile.flush()
            self.connection.shutdown(2)

    def _send_json(self, code: int, doc: dict, headers: dict[str, str] | None = None) -> None:
        self._send_raw(code, json.dumps(doc).encode(), {"Content-Type": "application/json", **(headers or {})})

    def _send_raw(self, code: int, data: bytes, headers: dict[str, str]) -> None:
        self.send_response(code)
        headers = dict(headers)
        headers.setdefault("Content-Type", "application/json")
        for k, v in headers.items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self.wfile.write(data)
            self.wfile.flush()


@contextlib.contextmanager
def loopback(responder: Responder | None = None, *, latency: float = 0.0,
             api_key: str = DUMMY_KEY) -> Iterator[LoopbackServer]:
    """Start a server and set OPENAI_API_KEY to a dummy (restored afterwards)."""
    old = os.environ.get("OPENAI_API_KEY")
    os.environ["OPENAI_API_KEY"] = api_key
    server = LoopbackServer(responder, latency=latency).start()
    try:
        yield server
    finally:
        server.stop()
        if old is None:
            os.environ.pop("OPENAI_API_KEY", None)
        else:
            os.environ["OPENAI_API_KEY"] = old


def _fixture():
    import pytest

    @pytest.fixture
    def loopback_server(monkeypatch) -> Iterator[LoopbackServer]:
        """A started LoopbackServer with OPENAI_API_KEY set to a dummy for the test."""
        monkeypatch.setenv("OPENAI_API_KEY", DUMMY_KEY)
        with LoopbackServer() as server:
            yield server

    return loopback_server


try:  # only define the fixture where pytest is importable (benchmarks may run without it)
    loopback_server = _fixture()
except ImportError:  # pragma: no cover
    pass

__all__ = ["DUMMY_KEY", "LoopbackServer", "Reply", "loopback", "loopback_server"]
