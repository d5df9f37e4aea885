"""A rater's whole sitting at the served desk, in headless Chromium, and everything the browser received.

The researcher runs `desk serve`; rater A opens their link, passes the two calibration pilots and scores
with the keyboard, tries a second tab (refused), closes the browser half-way through a pair, opens the
link again in a new browser, lands where they stopped and finishes. Their scores are in the store under
their name. A wrong and a revoked link in the same browser get 403 and nothing else. Then the traffic of
the whole sitting (the page, its scripts and styles, every websocket frame) is searched, as the blindness
walks search the screens: no condition, model name, run id, case note, sealed word, or other rater's name
or note; textual-serve's scripts and styles arrive byte for byte as the package ships them. The server's
own output never shows a token.
"""

from __future__ import annotations

import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from served_browser import Browser
from served import (ALL_RATERS, ITEMS, OTHER_NOTE, STUDY_MODEL, ServeProcess, copy_of, isolated_env, leaks, pair_keys,
                    scored_items)

from store import open_store
from store import scores as score_rows
from store.blind import read_pilot_expectations
from workbench import scoring
from workbench.desk.links import revoke, token_of
from screens.desk_server import OPEN_ELSEWHERE, REFUSED, statics_dir

ME, OTHER, REVOKED = "rater-a", "rater-j", "rater-i"


@pytest.fixture(scope="module")
def served(tmp_path_factory, study_template):
    tmp = tmp_path_factory.mktemp("served-browser")
    with isolated_env(tmp):
        path, sid = copy_of(study_template, tmp)
        db = open_store(path)
        try:  # another rater has scored everything and left a private note: none of it may reach rater A
            scoring.open_rater(db, sid, OTHER)
            expectations = read_pilot_expectations(db, sid)
            for q in scoring.queue(db, sid, OTHER):  # the pilots first: once scored, the rest opens
                view = scoring.item_view(db, sid, OTHER, q.item_id)
                high = expectations.get(q.item_id, {"direction": "high"})["direction"] == "high"
                for rubric in view.rubrics:
                    for criterion in rubric.criteria:
                        scoring.record_score(db, sid, OTHER, q.item_id, rubric.id, criterion.id,
                                             criterion.max if high else criterion.min)
                scoring.record_note(db, sid, OTHER, q.item_id, OTHER_NOTE)
            run_ids = [r["id"] for r in db.query("SELECT id FROM runs WHERE study_id = ?", [sid])]
        finally:
            db.close()
        server = ServeProcess(path, sid, tmp / "links.txt", tmp)
        try:
            yield SimpleNamespace(path=path, sid=sid, server=server, run_ids=run_ids)
        finally:
            server.stop()


def wait_for_output(server: ServeProcess, words: str, count: int = 1) -> None:
    """The server's log saying `words` (`count` times): an explicit wait on what it printed."""
    deadline = time.monotonic() + 30
    while server.output.count(words) < count:
        assert time.monotonic() < deadline, f"the server never said {words!r}:\n{server.output}"
        time.sleep(0.05)


def page_text(browser: Browser) -> str:
    from selenium.webdriver.common.by import By

    return browser.driver.find_element(By.TAG_NAME, "body").text


def test_a_sitting_in_the_browser_scores_resumes_and_receives_nothing_blind(served):
    keys = pair_keys(served.path, served.sid, ME)
    assert len(keys) == 3 and all(len(k) == 10 for k in keys)  # three pairs of two responses, five criteria
    url = served.server.links[ME]
    statics = {f"{url}static/{p.relative_to(statics_dir()).as_posix()}": p
               for p in statics_dir().rglob("*") if p.is_file()}
    captured = []

    first = Browser()
    try:
        first.open(url)
        at = first.wait_for("Calibration")
        first.type(keys[0])  # the pilot pair, the way calibration expects
        at = first.wait_for("Calibration passed", at)
        first.type("g" + keys[1][:5])  # the next pair, and its left response only
        at = first.wait_for(f"3/{ITEMS} scored", at)
        assert scored_items(served.path, served.sid, ME) == 3

        # A second tab on the same link is refused while this sitting is open; it scores nothing.
        home = first.driver.current_window_handle
        first.driver.switch_to.new_window("tab")
        first.open(url)
        assert page_text(first) == OPEN_ELSEWHERE.strip()
        first.drain()
        assert first.statuses[url] == 409
        first.driver.close()
        first.driver.switch_to.window(home)
    finally:
        captured.append(first.received(skip=set(statics)))
        used = dict(first.bodies)
        first.quit()
    wait_for_output(served.server, f"{ME} left the desk")

    again = Browser()
    try:
        again.open(url)
        at = again.wait_for(f"3/{ITEMS} scored")  # where the rater stopped: the right response of pair two
        again.type(keys[1][5:])
        at = again.wait_for(f"4/{ITEMS} scored", at)
        again.type("g" + keys[2])
        again.wait_for("All your items are scored", at)

        for link, status in ((url.replace(token_of(url), "x" * 43), 403),
                             (served.server.links[REVOKED], 403)):
            if link == served.server.links[REVOKED]:
                db = open_store(served.path)
                try:
                    assert revoke(db, served.sid, REVOKED) == 1
                finally:
                    db.close()
            again.driver.switch_to.new_window("tab")
            again.open(link)
            assert page_text(again) == REFUSED.strip()
            again.drain()
            assert again.statuses[link] == status
    finally:
        captured.append(again.received(skip=set(statics)))
        used.update(again.bodies)
        again.quit()

    # Every score is in the store, under the rater's name, as typed at a terminal desk.
    db = open_store(served.path)
    try:
        rows = score_rows.rater_rows(db, served.sid, ME)
        assert scoring.progress(db, served.sid, ME).done == ITEMS
        assert [r["action"] for r in rows] == ["score"] * 30 and {r["source"] for r in rows} == {"tui"}
        assert all(r["seconds"] is not None for r in rows)  # time on item travels too
        assert score_rows.count(db, served.sid) == 30 + len(score_rows.rater_rows(db, served.sid, OTHER))
    finally:
        db.close()

    # Blind over the wire: the page and every frame of both sittings; the files textual-serve ships as they are.
    assert any(u in used for u in statics)
    for file_url, path in statics.items():
        if file_url in used:
            assert used[file_url] == Path(path).read_bytes(), file_url
    traffic = "\n".join(captured)
    assert "Response Alpha" in traffic and "Calibration" in traffic  # the capture holds the desk itself
    others = [r for r in ALL_RATERS if r != ME and r in traffic]
    assert leaks(traffic, served.run_ids) == [] and others == [] and OTHER_NOTE not in traffic
    assert leaks(traffic + f" {STUDY_MODEL} ", served.run_ids)  # (the search would see a model name if one came)

    # No token in anything the server printed.
    output = served.server.output
    assert "opened the desk" in output and "refused a wrong" in output
    assert not [r for r, link in served.server.links.items() if token_of(link) in output]
