"""Raters at the served desk over its websocket, as textual.js speaks it: ten at once lose no score and see
no one else; a link opens its own rater's desk only, once at a time, and a revoked one ends its sitting."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import aiohttp
import pytest
from served import copy_of
from served import ALL_RATERS, ITEMS, RATERS, WireDesk, in_process, isolated_env, pair_keys

from store import open_store
from store import scores as score_rows
from workbench import scoring
from screens import desk_server
from workbench.desk.links import issue_links, link_url, revoke, token_of

LONER, WATCHED = ALL_RATERS[10:]  # not of the ten: the single-sitting test's rater, the Studies screen's


@pytest.fixture(scope="module")
def study(tmp_path_factory, study_template):
    tmp = tmp_path_factory.mktemp("served-raters")
    with isolated_env(tmp):
        path, sid = copy_of(study_template, tmp)
        db = open_store(path)
        try:  # issued once: each test's server has its own address, and the tokens hold for any
            tokens = {i.rater: token_of(i.url) for i in issue_links(db, sid, "http://any")}
        finally:
            db.close()
        yield SimpleNamespace(path=path, sid=sid, keys={r: pair_keys(path, sid, r) for r in RATERS}, tokens=tokens)


def links_for(study, base: str) -> dict[str, str]:
    return {rater: link_url(base, token) for rater, token in study.tokens.items()}


async def a_whole_sitting(session, link: str, keys: list[str]) -> str:
    async with WireDesk(session, link) as desk:
        at = await desk.wait_for("Calibration")
        await desk.type(keys[0])
        at = await desk.wait_for("Calibration passed", at)
        await desk.type("g" + keys[1])
        at = await desk.wait_for(f"4/{ITEMS} scored", at)
        await desk.type("g" + keys[2])
        await desk.wait_for("All your items are scored", at)
        return desk.text


async def test_ten_raters_scoring_at_once_lose_no_score_and_see_no_one_else(study):
    async with in_process(study.path, study.sid) as served, aiohttp.ClientSession() as session:
        links = links_for(study, served.url)
        texts = await asyncio.gather(*(a_whole_sitting(session, links[r], study.keys[r]) for r in RATERS))
    db = open_store(study.path)
    try:
        for rater, text in zip(RATERS, texts):
            rows = score_rows.rater_rows(db, study.sid, rater)
            assert scoring.progress(db, study.sid, rater).done == ITEMS
            assert [r["action"] for r in rows] == ["score"] * 30  # every key that scored is a row: none lost
            assert f"{rater} · served" in text  # the desk's own heading names the rater ...
            assert [r for r in ALL_RATERS if r != rater and r in text] == []  # ... and no one else
        assert score_rows.count(db, study.sid) == 30 * len(RATERS)
    finally:
        db.close()


async def test_a_link_opens_its_own_raters_desk_once_at_a_time_until_revoked(study, monkeypatch):
    monkeypatch.setattr(desk_server, "RECHECK", 0.0)  # the link is checked again at every message
    async with in_process(study.path, study.sid) as served, aiohttp.ClientSession() as session:
        link = links_for(study, served.url)[LONER]
        async with WireDesk(session, link) as desk:
            await desk.wait_for("Calibration")
            assert f"{LONER} · served" in desk.text
            assert [r for r in RATERS if r in desk.text] == []

            # A second tab or browser on the link is refused while this sitting is open: page and websocket.
            async with session.get(link) as page:
                assert page.status == 409 and "already open" in await page.text()
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await session.ws_connect(link.replace("http", "ws", 1) + "ws")
            assert refused.value.status == 409

            # Revoked while open: the sitting ends at the next message, and the link opens nothing more.
            db = open_store(study.path)
            try:
                assert revoke(db, study.sid, LONER) == 1
            finally:
                db.close()
            await desk.ws.send_json(["ping", "1"])
            closing = await asyncio.wait_for(desk.ws.receive(), 30)
            while closing.type == aiohttp.WSMsgType.BINARY:
                closing = await asyncio.wait_for(desk.ws.receive(), 30)
            assert closing.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)
            assert desk.ws.close_code == 4003
        async with session.get(link) as page:
            assert page.status == 403
    db = open_store(study.path)
    try:
        assert score_rows.rater_rows(db, study.sid, LONER) == []
    finally:
        db.close()


async def test_the_studies_screen_shows_each_raters_progress_live(study, monkeypatch):
    from study_screen_helpers import OneScreenApp, wait_until
    from textual.widgets import Static

    from screens import studies as studies_screen
    from screens.studies import StudiesScreen

    monkeypatch.setattr(studies_screen, "RATER_PROGRESS_EVERY", 0.05)
    app = OneScreenApp(study.path, StudiesScreen)
    async with app.run_test(size=(140, 40)) as pilot:
        def progress() -> str:
            return str(app.screen.query_one("#study-raters", Static).render())

        await wait_until(pilot, lambda: f"{WATCHED} 0/{ITEMS}" in progress(), what="the raters' progress")
        db = open_store(study.path)  # a rater scores one item meanwhile, as a desk's own process does
        try:
            item = scoring.next_unscored(db, study.sid, WATCHED)
            for rubric in scoring.item_view(db, study.sid, WATCHED, item).rubrics:
                for criterion in rubric.criteria:
                    scoring.record_score(db, study.sid, WATCHED, item, rubric.id, criterion.id, criterion.min)
        finally:
            db.close()
        await wait_until(pilot, lambda: f"{WATCHED} 1/{ITEMS}" in progress(), what="the new score")
        assert progress().startswith("scoring     rater-a ")
