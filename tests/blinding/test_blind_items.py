"""Blinding a study: opaque items, a sealed key with the scrub log, pilots, and refusals."""

from __future__ import annotations

import re

import pytest

from store import blind as blind_rows
from tests.blinding.study_fixture import CONDITIONS, add_run, make_study
from workbench.blinding.context import BlindingError
from workbench.blinding.items import prepare_study


def test_every_finished_output_becomes_one_opaque_item_plus_two_pilots(db):
    sid = make_study(db, extra_runs={("B1", "failed"): 1})
    summary = prepare_study(db, sid)
    assert (summary.items_created, summary.pilots_created, summary.items_total) == (7, 2, 9)
    assert summary.runs_excluded == 1
    items = blind_rows.blind_items(db, sid)
    assert all(re.fullmatch(r"i-[0-9a-f]{12}", i["id"]) for i in items)
    assert set(items[0]) == {"id", "case_id", "text", "pilot"}  # nothing about the run
    key = blind_rows.read_sealed_key(db, sid)
    assert sorted(k["condition"] for k in key if not k["pilot"]) == sorted(CONDITIONS)
    assert {k["pilot_expectation"]["direction"] for k in key if k["pilot"]} == {"high", "low"}


def test_the_scrub_log_is_sealed_in_the_key_not_on_the_item(db):
    sid = make_study(db)
    prepare_study(db, sid)
    key = {k["condition"]: k for k in blind_rows.read_sealed_key(db, sid) if not k["pilot"]}
    c2_item = blind_rows.blind_item(db, key["C2"]["item_id"])
    assert "committee" not in c2_item["text"].lower() and "4-1" not in c2_item["text"]
    found = {e.get("found", "").lower() for e in key["C2"]["scrub_log"]}
    assert any("committee" in f for f in found) and any("4-1" in f for f in found)
    assert not any("committee" in str(v) for v in c2_item.values())


def test_blinding_twice_creates_nothing_new_and_later_outputs_are_appended(db):
    sid = make_study(db)
    prepare_study(db, sid)
    again = prepare_study(db, sid)
    assert (again.items_created, again.pilots_created, again.items_total) == (0, 0, 9)
    add_run(db, sid, "B1", "RECOMMENDATION: wait.", replicate=5)
    later = prepare_study(db, sid)
    assert (later.items_created, later.pilots_created, later.items_total) == (1, 0, 10)
    for rater in ("rater-a", "rater-b"):
        queue = blind_rows.assignments(db, sid, rater)
        assert [q["position"] for q in queue] == list(range(10))
        assert len({q["item_id"] for q in queue}) == 10


def test_a_study_that_is_not_frozen_is_refused(db):
    sid = make_study(db, frozen=False)
    with pytest.raises(BlindingError, match="not frozen"):
        prepare_study(db, sid)
    assert blind_rows.blind_items(db, sid) == []


def test_unfinished_runs_are_refused_and_nothing_is_blinded(db):
    sid = make_study(db, extra_runs={("C2", "running"): 1, ("B1", "pending"): 1})
    with pytest.raises(BlindingError, match="2 run"):
        prepare_study(db, sid)
    assert blind_rows.blind_items(db, sid) == []


def test_an_unknown_study_is_named(db):
    with pytest.raises(BlindingError, match="no study 'nope'"):
        prepare_study(db, "nope")


def test_pilots_can_be_turned_off(db):
    sid = make_study(db, pilot_items=False)
    assert prepare_study(db, sid).pilots_created == 0
    assert not any(i["pilot"] for i in blind_rows.blind_items(db, sid))


def test_two_processes_blinding_at_once_make_one_set_of_items(file_db):
    import subprocess
    import sys

    db, path = file_db
    sid = make_study(db)
    db.close()
    code = ("import sys; from store import open_store; from workbench.blinding.items import prepare_study; "
            f"prepare_study(open_store(sys.argv[1]), {sid!r})")
    procs = [subprocess.Popen([sys.executable, "-c", code, str(path)]) for _ in range(3)]
    assert [p.wait(timeout=120) for p in procs] == [0, 0, 0]
    from store import open_store

    assert len(blind_rows.blind_items(open_store(path), sid)) == 9


def test_an_output_scrubbed_to_nothing_is_held_back_from_raters_and_judges(db):
    """Issue 13: a committee response that was all procedure emptied to nothing and still went to raters."""
    from workbench.blinding.context import load_study
    from workbench.blinding.items import held_back_outputs
    from workbench.judges.run import judge_items

    procedural = ("The committee followed Robert's Rules. The chair called the question. "
                  "Four members voted in favour (4 in favour, 1 against).")
    sid = make_study(db, conditions=["B1", "C2"],
                     texts={"B1": "RECOMMENDATION: Stage it.\nRISKS:\n- Contraction.", "C2": procedural})
    summary = prepare_study(db, sid)
    assert summary.items_created == 1 and len(summary.held_back) == 1
    assert summary.held_back[0]["case_id"] == "harbor-expansion"
    assert summary.held_back[0]["reason"].startswith("the scrubber kept 5 of 20 words (less than a third)")
    assert "C2" not in str(summary.to_dict()) and "run-" not in str(summary.to_dict())
    texts = [i["text"] for i in blind_rows.blind_items(db, sid)]
    assert not any("Robert" in t or t.strip() == "" for t in texts)
    key = blind_rows.read_sealed_key(db, sid)
    assert [k["condition"] for k in key if not k["pilot"]] == ["B1"]   # no item, no key row for the emptied one
    queued = {a["item_id"] for a in blind_rows.assignments(db, sid)}
    assert queued == {i["id"] for i in blind_rows.blind_items(db, sid)}
    assert all(item.response.strip() for item, _, _ in judge_items(db, load_study(db, sid)))  # real items only
    # it stays held back at every later blinding, and the researcher can list it
    assert prepare_study(db, sid).held_back == summary.held_back
    assert held_back_outputs(db, sid) == summary.held_back


@pytest.mark.parametrize("headed", [True, False])
def test_the_pilots_are_written_in_the_layout_of_the_real_items(db, headed):
    """Issue 30: a pilot in a layout no real item has tells the rater it is a pilot. Real items in the report
    headings (a study that pre-registered the report layout) get headed pilots; prose items get prose pilots."""
    from workbench.pilots.calibration import HEADINGS

    prose = {c: f"I would stage the rollout ({c}).\n\nDemand may contract, so keep a fallback ready." for c in CONDITIONS}
    sid = make_study(db, **({} if headed else {"texts": prose}))
    prepare_study(db, sid)
    pilots = [i["text"] for i in blind_rows.blind_items(db, sid) if i["pilot"]]
    assert len(pilots) == 2
    for text in pilots:
        carries = [bool(re.search(rf"^{h}\b", text, re.MULTILINE)) for h in HEADINGS]
        assert carries == [headed] * 4
    if not headed:  # the same easy distinction, in paragraphs
        assert any("structural" in t and "My confidence is medium." in t for t in pilots)
        assert any("There are no risks of significance." in t for t in pilots)
