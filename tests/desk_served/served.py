"""Helpers of the served-desk tests: one small blinded study, the desk server as the researcher starts it,
what a desk sends read as text, and the keys that score a rater's pairs.

The study is the scoring screen tests' (tests/screens/scoring_seed.py): one case, conditions B1 and C2
whose final outputs are full of condition tells and the study's model name, the calibration pilots, and
gold and attention items planted among the real ones; six items per rater in three pairs.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# The scoring screen tests' helpers (the seeded study, the leak check) import each other by their own names.
sys.path.insert(0, str(ROOT / "tests" / "screens"))

from scoring_seed import STUDY_MODEL, seed_study  # noqa: E402,F401
from test_scoring_blindness import OTHER_NOTE, leaks  # noqa: E402,F401  (the desk's own leak check)

from store import open_store  # noqa: E402
from workbench.scoring import RaterDesk  # noqa: E402
from workbench.scoring.session import cells_of, group_pairs  # noqa: E402

RATERS = tuple(f"rater-{c}" for c in "abcdefghij")  # the ten who score at once
ALL_RATERS = RATERS + ("rater-k", "rater-l")  # and two for tests of their own
QUALITY = "\n[quality]\ngold_rate = 0.5\nattention_rate = 0.5\n"
ITEMS = 6  # two pilots, the two real items, one gold and one attention item
# Terminal control sequences: CSI (colours, cursor moves), OSC, charset selection and the one-byte ones.
_CONTROL = re.compile(r"\x1b(?:\[[0-9;?<=>]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[()][0-9A-Za-z]|[=>78])")


@contextmanager
def isolated_env(tmp: Path):
    """What tests/conftest.py's per-test fixture sets, for a fixture that outlives one test."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("WORKBENCH_DB", str(tmp / "default-store.db"))
        mp.setenv("WORKBENCH_CASE_LIBRARY", str(tmp / "case-library"))
        yield


def build_study(path: Path, raters: tuple[str, ...] = ALL_RATERS) -> str:
    """The frozen, run and blinded study in a store at `path`; returns its id."""
    return seed_study(path, name="served", conditions=("B1", "C2"), raters=raters, pilot_items=True,
                      extra=QUALITY)["study_id"]


def copy_of(template: tuple[Path, str], where: Path) -> tuple[Path, str]:
    """The template store (`study_template`, conftest.py) copied into `where`, with any write-ahead log."""
    path, study_id = template
    for part in path.parent.glob(path.name + "*"):
        shutil.copyfile(part, where / part.name.replace(path.stem, "store", 1))
    return where / "store.db", study_id


def screen_text(data: bytes) -> str:
    """What a desk wrote, without the terminal's control sequences (the text a screen shows, in order)."""
    return _CONTROL.sub("", data.decode("utf-8", "replace"))


def pair_keys(db_path: Path, study_id: str, rater: str) -> list[str]:
    """The digits that score each of the rater's pairs, pilots first: a pilot the way its sealed expectation
    goes (so calibration passes), any other item 1 on every criterion. Typing a pair's digits fills it,
    left response first (the desk moves on after each score)."""
    from store.blind import read_pilot_expectations

    db = open_store(db_path)
    try:
        desk = RaterDesk(db, study_id, rater)
        expectations = read_pilot_expectations(db, study_id)
        desk_entries = desk.queue_entries()
        units = group_pairs(desk_entries)
        pilots = {q["item_id"] for q in desk.pilots()}
        units.sort(key=lambda u: not set(u.items) <= pilots)  # the pilot pair first: the desk opens on it
        keys = []
        for unit in units:
            digits = ""
            for view in sorted((desk.view(i) for i in unit.items), key=lambda v: v.position):
                high = expectations.get(view.item_id, {}).get("direction") == "high"
                for cell in cells_of(view):
                    if view.item_id in expectations:
                        digits += str(cell.max if high else cell.min)
                    else:
                        digits += "1"
            keys.append(digits)
        return keys
    finally:
        db.close()


def scored_items(db_path: Path, study_id: str, rater: str) -> int:
    db = open_store(db_path)
    try:
        return RaterDesk(db, study_id, rater).progress().done
    finally:
        db.close()


class ServeProcess:
    """`workbench --batch desk serve STUDY --port 0 --links FILE` in a process of its own, as a researcher
    runs it; everything it prints is kept (`output`), to be searched for tokens."""

    def __init__(self, db_path: Path, study_id: str, links: Path, tmp: Path):
        env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               "WORKBENCH_CASE_LIBRARY": str(tmp / "case-library")}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "screens.launch", "--batch", "--db", str(db_path), "desk", "serve", study_id,
             "--port", "0", "--links", str(links)],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env, cwd=ROOT)
        self.lines: list[str] = []
        for raw in self.process.stdout:  # until it says it serves (the links are written before that)
            self.lines.append(raw.decode("utf-8", "replace"))
            if "serving the scoring desk" in self.lines[-1]:
                break
        else:
            raise AssertionError("the desk server ended before serving:\n" + "".join(self.lines))
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        self.links = dict(line.split() for line in links.read_text().splitlines())

    def _read(self) -> None:
        for raw in self.process.stdout:
            self.lines.append(raw.decode("utf-8", "replace"))

    @property
    def output(self) -> str:
        return "".join(self.lines)

    def stop(self) -> int:
        self.process.terminate()
        code = self.process.wait(timeout=30)
        self.reader.join(timeout=5)
        return code


@asynccontextmanager
async def in_process(db_path: Path, study_id: str, **options):
    """The desk server's application on a loopback port in this process (`options`: DeskServer's, a throttle
    with a test clock, say); yields it with `.url` (its base address)."""
    from aiohttp.test_utils import TestServer

    from screens.desk_server import DeskServer, quiet_logs

    quiet_logs()
    db = open_store(db_path)
    served = DeskServer(db, db_path, study_id, "", **options)
    server = TestServer(served.application(), host="127.0.0.1")
    await server.start_server()
    served.url = str(server.make_url("")).rstrip("/")
    served.set_public_url(served.url)
    try:
        yield served
    finally:
        await server.close()
        db.close()


class WireDesk:
    """A rater's desk driven over the served websocket, the way textual.js drives it: keys as `stdin`
    messages one by one, and what the desk writes read as screen text."""

    def __init__(self, session, link: str) -> None:
        self.session, self.link = session, link
        self.data = b""

    async def __aenter__(self) -> "WireDesk":
        self.ws = await self.session.ws_connect(re.sub(r"^http", "ws", self.link) + "ws?width=120&height=36")
        return self

    async def __aexit__(self, *exc) -> None:
        await self.ws.close()

    @property
    def text(self) -> str:
        return screen_text(self.data)

    async def wait_for(self, words: str, after: int = 0, timeout: float = 60) -> int:
        """Read until the desk has written `words` after text offset `after`; returns the offset past it."""
        import asyncio

        from aiohttp import WSMsgType

        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while (at := self.text.find(words, after)) < 0:
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise AssertionError(f"the desk never showed {words!r}; it showed:\n{self.text[after:][-2000:]}")
            try:
                message = await asyncio.wait_for(self.ws.receive(), remaining)
            except asyncio.TimeoutError:
                continue
            if message.type == WSMsgType.BINARY:
                self.data += message.data
            elif message.type in (WSMsgType.CLOSE, WSMsgType.CLOSED, WSMsgType.CLOSING, WSMsgType.ERROR):
                raise AssertionError(f"the desk closed before showing {words!r}:\n{self.text[after:][-2000:]}")
        return at + len(words)

    async def type(self, keys: str) -> None:
        for key in keys:
            await self.ws.send_json(["stdin", key])
