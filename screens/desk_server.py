"""The served desk: rater mode in a browser, through textual-serve (a Textual-family module, so it lives in
the screens; screens/launch.py hands `serve_study` to `workbench --batch desk serve` as it hands the TUI).

textual-serve (by Textual's authors) relays a Textual app's terminal to xterm.js in a page: per websocket,
its `AppService` runs the app's command in a subprocess under Textual's web driver and passes its packets
both ways. Its own `Server` would serve one fixed command to anyone, at fixed routes, with aiohttp's access
log on (which prints every path, and so every token). So the aiohttp application is built here, with
what textual-serve provides: `AppService`, its static files (xterm.js, textual.js) and its page
(`desk_page/desk.html`, a copy without its web-font link, so no request leaves for a third party).

Every route sits under a link, `/r/TOKEN/...`, and `guard` resolves the token before any handler runs:
a wrong, revoked or expired token gets 403 and no byte of the page, its scripts or the websocket, and an
address that keeps sending wrong ones gets its answers ever later (throttle.py). The command a websocket
spawns is built from the link alone, `workbench --rater NAME --study STUDY` (screens/rater_desk.py: the
terminal desk itself, locked); no query parameter reaches it. One sitting per rater (sittings.py).
"""

from __future__ import annotations

import asyncio
import logging
import re
import shlex
import signal
import sys
from pathlib import Path
from string import Template
from typing import Awaitable, Callable

import sqlite_utils
from aiohttp import WSMsgType, web

from workbench.desk.links import Link, resolve
from workbench.desk.sittings import Sittings
from workbench.desk.throttle import Throttle
from workbench.scoring.rater_lock import RaterLockRefused, check_rater_lock

PAGE = Template((Path(__file__).parent / "desk_page" / "desk.html").read_text(encoding="utf-8"))
HEARTBEAT = 15.0    # seconds between websocket pings: a browser gone without closing frees its sitting
RECHECK = 5.0       # seconds between checks, while a sitting types, that its link still holds
STOP_WAIT = 15.0    # seconds a desk process gets to end once its browser has gone
REFUSED = ("This link is not valid: it may have been revoked or have expired, or it was copied wrongly. "
           "Ask the researcher for a new one.\n")
OPEN_ELSEWHERE = ("This link is already open in another tab or browser. Close it there (every score is "
                  "saved), then reload this page.\n")
NO_STORE_HEADERS = {"Cache-Control": "no-store", "Referrer-Policy": "no-referrer", "X-Frame-Options": "DENY"}
LINK = web.RequestKey("link", Link)  # what `guard` resolved, for the handlers
_LINK_PATH = re.compile(r"/r/[^/\s?#]+")


def redact(text: str) -> str:
    """Text with every link's token replaced, for anything logged."""
    return _LINK_PATH.sub("/r/[link]", text)


class RedactLinks(logging.Filter):
    """On aiohttp's and textual-serve's loggers: no token reaches a log, whatever a library writes."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg, record.args = redact(record.getMessage()), ()
        if record.exc_info:
            record.exc_text = redact(logging.Formatter().formatException(record.exc_info))
            record.exc_info = None
        return True


def statics_dir() -> Path:
    import textual_serve

    return Path(textual_serve.__file__).parent / "static"


def rater_command(db_path: Path, link: Link) -> list[str]:
    """The terminal desk locked to the link's rater (the `workbench` command's own module)."""
    return [sys.executable, "-m", "screens.launch", "--db", str(db_path), "--rater", link.rater,
            "--study", link.study_id]


class DeskServer:
    """Serves one study's desk to its raters' links."""

    def __init__(self, db: sqlite_utils.Database, db_path: Path, study_id: str, public_url: str, *,
                 say: Callable[[str], None] = lambda _: None, throttle: Throttle | None = None,
                 command: Callable[[Path, Link], list[str]] = rater_command,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> None:
        self.db, self.db_path, self.study_id = db, Path(db_path), study_id
        self.set_public_url(public_url)
        self.say = say
        self.throttle = throttle or Throttle()
        self.command = command
        self.sleep = sleep
        self.sittings = Sittings()
        self.sockets: set[web.WebSocketResponse] = set()
        self.statics = statics_dir().resolve()

    def set_public_url(self, public_url: str) -> None:
        """Where raters reach the server (http://HOST:PORT, or a reverse proxy's https address): the page's
        websocket address is built from it (ws:// or wss://)."""
        self.websocket_base = re.sub(r"^http", "ws", public_url.rstrip("/"))

    def application(self) -> web.Application:
        app = web.Application(middlewares=[self.guard])
        app.add_routes([
            web.get("/r/{token}", self.to_page),
            web.get("/r/{token}/", self.page),
            web.get("/r/{token}/ws", self.websocket),
            web.get("/r/{token}/static/{path:.+}", self.static),
        ])
        app.on_shutdown.append(self.end_sittings)
        return app

    # -- the gate --------------------------------------------------------------------------------

    @web.middleware
    async def guard(self, request: web.Request, handler) -> web.StreamResponse:
        token = request.match_info.get("token")
        if token is None:  # not a link's route: nothing here, and not counted as a guess
            return web.Response(status=404, text="Not found.\n", headers=NO_STORE_HEADERS)
        link = resolve(self.db, token)
        if link is None or link.study_id != self.study_id:
            address = request.remote or "?"
            count, wait = self.throttle.wrong(address)
            self.say(f"refused a wrong, revoked or expired link from {address} ({count} lately"
                     + (f"; answered after {wait:g} s)" if wait else ")"))
            await self.sleep(wait)
            return web.Response(status=403, text=REFUSED, headers=NO_STORE_HEADERS)
        request[LINK] = link
        response = await handler(request)
        if not response.prepared:
            response.headers.update(NO_STORE_HEADERS)
        return response

    # -- the page and its files ------------------------------------------------------------------

    async def to_page(self, request: web.Request) -> web.StreamResponse:
        raise web.HTTPFound(request.path + "/")

    async def page(self, request: web.Request) -> web.StreamResponse:
        link = request[LINK]
        try:
            check_rater_lock(self.db, link.lock)  # unblinded since the link was issued: scoring is closed
        except RaterLockRefused as exc:
            return web.Response(status=403, text=f"The desk cannot open: {exc}.\n")
        if not await self.sittings.free((link.study_id, link.rater)):
            return web.Response(status=409, text=OPEN_ELSEWHERE)
        base = f"/r/{request.match_info['token']}/"
        html = PAGE.substitute(static=f"{base}static/", websocket=f"{self.websocket_base}{base}ws", font_size=16)
        return web.Response(text=html, content_type="text/html")

    async def static(self, request: web.Request) -> web.StreamResponse:
        path = (self.statics / request.match_info["path"]).resolve()
        if not path.is_relative_to(self.statics) or not path.is_file():
            raise web.HTTPNotFound()
        return web.FileResponse(path)

    # -- the sitting -----------------------------------------------------------------------------

    async def websocket(self, request: web.Request) -> web.StreamResponse:
        from textual_serve.app_service import AppService
        from textual_serve.download_manager import DownloadManager

        link = request[LINK]
        sitting = await self.sittings.claim((link.study_id, link.rater))
        if sitting is None:
            return web.Response(status=409, text=OPEN_ELSEWHERE)
        ws = web.WebSocketResponse(heartbeat=HEARTBEAT)
        service = None
        try:
            await ws.prepare(request)
            self.sockets.add(ws)
            service = AppService(shlex.join(self.command(self.db_path, link)), write_bytes=ws.send_bytes,
                                 write_str=ws.send_str, close=ws.close, download_manager=DownloadManager())
            await service.start(_size(request, "width", 80), _size(request, "height", 24))
            self.say(f"{link.rater} opened the desk from {request.remote}")
            await self.relay(ws, service, request.match_info["token"])
        finally:
            # Shielded: a handler cancelled when its browser drops still ends its desk process before the
            # sitting is released.
            await asyncio.shield(asyncio.ensure_future(self.close_sitting(sitting, service, ws, link.rater)))
        return ws

    async def close_sitting(self, sitting, service, ws: web.WebSocketResponse, rater: str) -> None:
        sitting.closing = True
        try:
            if service is not None:
                await self.ended(service, rater)
                self.say(f"{rater} left the desk")
        finally:
            self.sockets.discard(ws)
            self.sittings.release(sitting)

    async def ended(self, service, rater: str) -> None:
        """The desk process told to quit (killed if it has not within STOP_WAIT), reaped, its pipes closed.
        textual-serve 1.1.3's `AppService.stop()` returns once the process's output ends, before it is reaped,
        and leaves its stdin open; a sitting is over only when its process is (so one rater never has two
        desks at once), hence the wait on the process it keeps."""
        process = getattr(service, "_process", None)
        try:
            await asyncio.wait_for(service.stop(), STOP_WAIT)
        except asyncio.TimeoutError:
            self.say(f"{rater}'s desk did not end within {STOP_WAIT:.0f} s: stopped")
            if process is not None and process.returncode is None:
                process.kill()
        if process is not None:
            if process.stdin is not None:
                process.stdin.close()
            await process.wait()
            if process.stderr is not None:  # read to its end, so that its pipe is closed too
                await process.stderr.read()

    async def relay(self, ws: web.WebSocketResponse, service, token: str) -> None:
        """The browser's messages to the desk process, as textual-serve's own server relays them (keys,
        resizes, focus, pings); a link revoked meanwhile ends the sitting."""
        loop = asyncio.get_running_loop()
        checked = loop.time()
        async for message in ws:
            if message.type != WSMsgType.TEXT:
                continue
            try:
                kind, *rest = message.json()
            except (ValueError, TypeError):
                continue
            if loop.time() - checked > RECHECK:
                checked = loop.time()
                if resolve(self.db, token) is None:
                    await ws.close(code=4003, message=b"link revoked")
                    break
            data = rest[0] if rest else None
            if kind == "stdin" and isinstance(data, str):
                await service.send_bytes(data.encode("utf-8"))
            elif kind == "resize" and isinstance(data, dict):
                await service.set_terminal_size(_bounded(data.get("width"), 80), _bounded(data.get("height"), 24))
            elif kind == "ping":
                await ws.send_json(["pong", data])
            elif kind == "blur":
                await service.blur()
            elif kind == "focus":
                await service.focus()

    async def end_sittings(self, app: web.Application) -> None:
        """On shutdown, before aiohttp cancels the handlers: every browser told, every desk process ended."""
        for ws in list(self.sockets):
            await ws.close(code=1001, message=b"the desk server is stopping")
        waits = [asyncio.create_task(s.ended.wait()) for s in list(self.sittings.open.values())]
        if waits:
            await asyncio.wait(waits, timeout=2 * STOP_WAIT)  # each ends within STOP_WAIT, killed if need be
            for wait in waits:
                wait.cancel()


def _size(request: web.Request, key: str, default: int) -> int:
    return _bounded(request.query.get(key), default)


def _bounded(value, default: int) -> int:
    try:
        return max(10, min(int(value), 1000))
    except (TypeError, ValueError):
        return default


def quiet_logs() -> None:
    """No access log line (aiohttp's prints the path); every library log line redacted."""
    for name in ("aiohttp", "aiohttp.access", "aiohttp.server", "aiohttp.web", "aiohttp.websocket",
                 "textual-serve"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactLinks) for f in logger.filters):
            logger.addFilter(RedactLinks())


async def serve(server: DeskServer, host: str, port: int, *, ssl_context=None,
                ready: Callable[[int], None] = lambda _: None, stop: asyncio.Event | None = None) -> None:
    """Serve until SIGINT/SIGTERM (or `stop`); `ready(port)` once bound (port 0 picks a free one)."""
    quiet_logs()
    runner = web.AppRunner(server.application(), access_log=None, handle_signals=False)
    await runner.setup()
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        site = web.TCPSite(runner, host, port, ssl_context=ssl_context)
        await site.start()
        ready(runner.addresses[0][1])
        await stop.wait()
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(sig)
        await runner.cleanup()


def serve_study(db: sqlite_utils.Database, db_path: Path, study_id: str, host: str, port: int, *,
                public_url: Callable[[int], str], ready: Callable[[int], None],
                say: Callable[[str], None], ssl_context=None) -> None:
    """`desk serve`: STUDY's desk on HOST:PORT until SIGINT/SIGTERM; once bound, its public address is
    `public_url(port)` and `ready(port)` is told (OSError when it cannot listen)."""
    server = DeskServer(db, db_path, study_id, "", say=say)

    def bound(port: int) -> None:
        server.set_public_url(public_url(port))
        ready(port)

    asyncio.run(serve(server, host, port, ssl_context=ssl_context, ready=bound))
