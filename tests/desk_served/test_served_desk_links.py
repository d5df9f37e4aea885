"""Links are credentials: issued once (256 random bits, only the hash stored), revoked and reissued, expiring;
a wrong, revoked, expired or other study's token gets 403 and no byte of the study on every route (page,
scripts, websocket); an address that keeps guessing is turned away; no token reaches a log. And the batch
commands that issue, list and revoke them."""

from __future__ import annotations

import base64
import json
import logging
import stat
from datetime import datetime, timedelta, timezone
from types import SimpleNamespace

import pytest
from served import copy_of
from served import ALL_RATERS as RATERS
from served import in_process, isolated_env

from store import open_store
from workbench.cli.main import main
from workbench.desk.links import issue_links, link_url, read_links_file, resolve, revoke, token_hash, token_of
from screens.desk_server import REFUSED, quiet_logs, redact
from workbench.desk.throttle import FREE, LONGEST, WINDOW, Throttle

ROUTES = ("", "static/js/textual.js", "static/css/xterm.css", "ws")


@pytest.fixture(scope="module")
def study(tmp_path_factory, study_template):
    tmp = tmp_path_factory.mktemp("served-links")
    with isolated_env(tmp):
        path, sid = copy_of(study_template, tmp)
        yield SimpleNamespace(path=path, sid=sid, tmp=tmp)


@pytest.fixture
def db(study):
    db = open_store(study.path)
    yield db
    db.close()


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_token_is_256_random_bits_shown_once_and_stored_only_as_its_hash(study, db):
    for rater in RATERS:
        revoke(db, study.sid, rater)
    issued = issue_links(db, study.sid, "http://127.0.0.1:1")
    tokens = [token_of(i.url) for i in issued]
    assert [i.rater for i in issued] == list(RATERS) and all(i.new for i in issued)
    assert all(len(base64.urlsafe_b64decode(t + "=")) == 32 for t in tokens) and len(set(tokens)) == len(tokens)
    db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    stored = b"".join(p.read_bytes() for p in study.path.parent.glob(study.path.name + "*"))
    assert not [t for t in tokens if t.encode() in stored]
    assert all(token_hash(t).encode() in stored for t in tokens)
    # Issued again: a live link is not shown again (its token is not kept) unless the file that holds it is.
    again = issue_links(db, study.sid, "http://127.0.0.1:1")
    assert [i.url for i in again] == [None] * len(RATERS) and not any(i.new for i in again)
    kept = issue_links(db, study.sid, "https://desk.example.org", known=dict(zip(RATERS, tokens)))
    assert [token_of(i.url) for i in kept] == tokens and kept[0].url.startswith("https://desk.example.org/r/")


def test_revoked_expired_and_reissued_links(study, db):
    rater = RATERS[3]
    live = resolve(db, _token(db, study, rater))
    assert live is not None and (live.study_id, live.rater) == (study.sid, rater)
    old = _token(db, study, rater)
    assert revoke(db, study.sid, rater) >= 1 and resolve(db, old) is None
    new = next(i for i in issue_links(db, study.sid, "http://h") if i.rater == rater)
    assert new.new and token_of(new.url) != old and resolve(db, token_of(new.url)).rater == rater
    later = (datetime.now(timezone.utc) + timedelta(days=31)).isoformat(timespec="seconds")
    assert resolve(db, token_of(new.url), later) is None  # 30 days by default
    with pytest.raises(Exception, match="not a rater"):
        revoke(db, study.sid, "nobody")


def _token(db, study, rater: str) -> str:
    """A fresh live token for `rater` (revoking the one before)."""
    revoke(db, study.sid, rater)
    return token_of(next(i for i in issue_links(db, study.sid, "http://h") if i.rater == rater).url)


async def test_a_wrong_revoked_expired_or_other_study_token_gets_403_and_nothing_else(study, db):
    import aiohttp

    rater = RATERS[4]
    revoked = _token(db, study, rater)
    good = _token(db, study, rater)  # (revokes the one before)
    revoke(db, study.sid, RATERS[5])  # an expired link: issued 31 days ago, for 30
    long_ago = datetime.now(timezone.utc) - timedelta(days=31)
    expired = token_of(next(i for i in issue_links(db, study.sid, "http://h", now=long_ago)
                            if i.rater == RATERS[5]).url)
    wrong = good[:-4] + ("AAAA" if not good.endswith("AAAA") else "BBBB")
    said = []
    async with in_process(study.path, "another-study", say=said.append) as other, aiohttp.ClientSession() as s:
        async with s.get(link_url(other.url, good)) as r:  # a live link, but to another study than served
            assert r.status == 403 and await r.text() == REFUSED
    async with in_process(study.path, study.sid, say=said.append) as served, aiohttp.ClientSession() as s:
        for token in (wrong, revoked, expired, "short"):
            for route in ROUTES:
                async with s.get(link_url(served.url, token) + route) as r:
                    assert (r.status, await r.text()) == (403, REFUSED), (token, route)
                    assert r.headers["Content-Type"].startswith("text/plain")
            served.throttle.records.clear()  # (this test is not about the throttle)
        for route in ROUTES[:3]:  # the good one opens the page and its files
            async with s.get(link_url(served.url, good) + route) as r:
                assert r.status == 200 and r.headers["Cache-Control"] == "no-store"
        async with s.get(f"{served.url}/") as r:  # no route outside a link
            assert r.status == 404
    assert not [line for line in said if any(t in line for t in (good, revoked, expired, wrong))]


async def test_an_address_that_keeps_sending_wrong_tokens_is_slowed_down(study, db):
    import aiohttp

    good = _token(db, study, RATERS[6])
    clock, waits = Clock(), []

    async def sleep(seconds: float) -> None:  # the server's wait before answering, recorded, not slept
        waits.append(seconds)
        clock.now += seconds

    async with in_process(study.path, study.sid, throttle=Throttle(clock=clock), sleep=sleep) as served, \
            aiohttp.ClientSession() as s:
        async def wrong(n: int) -> None:
            async with s.get(link_url(served.url, f"wrong{n:030d}")) as r:
                assert (r.status, await r.text()) == (403, REFUSED)

        for n in range(FREE):  # a few mistakes are answered at once
            await wrong(n)
        assert waits == [0] * FREE
        for n in range(4):  # then each one later than the one before
            await wrong(FREE + n)
        assert waits[FREE:] == [1, 2, 4, 8]
        async with s.get(link_url(served.url, good)) as r:  # a good link is never held up (a proxy's raters)
            assert r.status == 200
        assert len(waits) == FREE + 4
        clock.now += WINDOW + 1  # quiet for long enough: forgiven
        await wrong(99)
        assert waits[-1] == 0
    capped = Throttle(clock=clock, free=0)
    assert [capped.wrong("a")[1] for _ in range(8)][-3:] == [LONGEST] * 3  # the wait stops growing


def test_no_token_reaches_a_log(caplog):
    quiet_logs()
    token = "T0kenT0kenT0kenT0kenT0kenT0kenT0kenT0kenT0k"
    with caplog.at_level(logging.DEBUG):
        logging.getLogger("aiohttp.access").info('127.0.0.1 "GET /r/%s/ws HTTP/1.1" 101', token)
        try:
            raise RuntimeError(f"failed on /r/{token}/static/js/textual.js")
        except RuntimeError:
            logging.getLogger("aiohttp.server").exception("Error handling request")
    assert "/r/[link]" in caplog.text and token not in caplog.text
    assert redact(f"http://h/r/{token}/") == "http://h/r/[link]/"


def test_desk_links_and_revoke_commands(study, capsys):
    links = study.tmp / "raters.txt"
    db_args = ["--batch", "--db", str(study.path)]
    for rater in RATERS:  # a clean start: no live link
        assert main(db_args + ["desk", "revoke", study.sid, rater]) == 0
    capsys.readouterr()
    assert main(db_args + ["desk", "links", study.sid, "--links", str(links), "--port", "9000"]) == 0
    assert stat.S_IMODE(links.stat().st_mode) == 0o600
    first = read_links_file(links)
    assert list(first) == list(RATERS)
    assert all(line.split()[1].startswith("http://127.0.0.1:9000/r/") for line in links.read_text().splitlines())
    out = capsys.readouterr()
    assert not [t for t in first.values() if t in out.out + out.err]  # the file holds them, not the terminal

    # Again with the same file: every link that still holds is kept as it is.
    assert main(db_args + ["desk", "links", study.sid, "--links", str(links), "--port", "9000"]) == 0
    assert read_links_file(links) == first

    # Revoked, then reissued: that rater's link only changes.
    assert main(db_args + ["--json", "desk", "revoke", study.sid, RATERS[0]]) == 0
    assert json.loads(capsys.readouterr().out)["revoked"] == 1
    assert main(db_args + ["desk", "links", study.sid, "--links", str(links), "--port", "9000"]) == 0
    second = read_links_file(links)
    assert second[RATERS[0]] != first[RATERS[0]] and {r: second[r] for r in RATERS[1:]} == {
        r: first[r] for r in RATERS[1:]}

    # Without --links, the new lines go to standard output; a link already out is named on stderr, not shown.
    assert main(db_args + ["desk", "revoke", study.sid, RATERS[1]]) == 0
    capsys.readouterr()
    assert main(db_args + ["desk", "links", study.sid]) == 0
    out = capsys.readouterr()
    assert out.out.count("\n") == 1 and out.out.startswith(f"{RATERS[1]} http://127.0.0.1:8044/r/")
    assert f"{RATERS[2]}: a live link issued" in out.err


@pytest.mark.parametrize("args, code, why", [
    (["desk", "serve", "no-such-study", "--port", "0"], 1, "no study 'no-such-study'"),
    (["desk", "serve", "served", "--cert", "c.pem", "--port", "0"], 2, "--cert and --key go together"),
    # the server is the screens' (textual-serve): only the `workbench` command (screens/launch.py) hands it
    (["desk", "serve", "served", "--port", "0"], 1, "served by the `workbench` command"),
    (["desk", "revoke", "served", "nobody"], 1, "'nobody' is not a rater"),
    (["desk", "links", "served", "--days", "0"], 1, "--days must be at least 1"),
])
def test_desk_commands_refuse_what_they_cannot_do(study, capsys, args, code, why):
    assert main(["--batch", "--db", str(study.path)] + args) == code
    assert why in capsys.readouterr().err


async def test_the_desk_serves_https_with_a_certificate_and_key(study, db, tmp_path):
    import asyncio
    import subprocess

    import aiohttp

    from screens.desk_server import DeskServer, serve
    from workbench.cli.desk_cmd import tls_context

    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                    "-nodes", "-keyout", str(key), "-out", str(cert), "-days", "1", "-subj", "/CN=127.0.0.1"],
                   check=True, capture_output=True)
    token = _token(db, study, RATERS[7])
    server, stop, bound = DeskServer(db, study.path, study.sid, ""), asyncio.Event(), asyncio.Future()

    def ready(port: int) -> None:
        server.set_public_url(f"https://127.0.0.1:{port}")
        bound.set_result(port)

    serving = asyncio.create_task(serve(server, "127.0.0.1", 0, ssl_context=tls_context(cert, key), ready=ready,
                                        stop=stop))
    try:
        port = await asyncio.wait_for(bound, 30)
        async with aiohttp.ClientSession() as s:
            async with s.get(link_url(f"https://127.0.0.1:{port}", token), ssl=False) as r:
                page = await r.text()
                assert r.status == 200 and f'"wss://127.0.0.1:{port}/r/{token}/ws"' in page
            with pytest.raises(aiohttp.ClientError):  # plain HTTP is not served
                async with s.get(link_url(f"http://127.0.0.1:{port}", token)) as r:
                    await r.text()
    finally:
        stop.set()
        await asyncio.wait_for(serving, 30)
