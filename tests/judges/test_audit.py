"""The blindness audit: an LLM guesses each item's architecture; accuracy is compared with chance."""

from __future__ import annotations

import json

from store import blind as blind_rows
from tests.blinding.study_fixture import make_study
from tests.judges.scripted import split, user_text
from workbench.gateway.api import ModelSettings
from workbench.judges.audit import audit_report, audit_study

NEUTRAL = "RECOMMENDATION: Stage it.\nREASONING: Demand may contract.\nRISKS:\n- Contraction.\nCONFIDENCE: medium."


async def test_a_leaky_scrubber_shows_up_as_accuracy_above_chance(store, loopback_server):
    db, gateway = store
    # each condition leaves a marker the scrubber does not know about
    texts = {c: NEUTRAL + f"\n(marker {c.lower()}x)" for c in ("B1", "B2", "B3", "C1", "C2", "C3")}
    sid = make_study(db, conditions=list(texts), texts=texts, replicates=1)
    for k in range(1, 4):  # more items, so the test has power
        for c in texts:
            from tests.blinding.study_fixture import add_run
            add_run(db, sid, c, texts[c] + f" #{k}", replicate=k)

    def reader(body):
        blocks, _ = split(user_text(body))
        marker = blocks["RESPONSE"].split("(marker ")[1][:2].upper()
        return json.dumps({"guess": marker, "reason": "the marker"})

    loopback_server.responder = reader
    report = await audit_study(db, gateway, sid, ModelSettings(model="openai/auditor", api_base=loopback_server.url))
    assert (report.n, report.correct, report.invalid) == (24, 24, 0)
    assert report.chance == round(1 / 6, 4) and report.accuracy == 1.0
    assert report.p_value < 1e-10 and report.leak_suspected
    assert report.by_setup["C2"] == {"n": 4, "correct": 4}
    for body in loopback_server.requests:  # the pilots are never audited, and the auditor sees only the item
        assert "Go ahead immediately" not in user_text(body)


async def test_a_blind_item_set_gives_chance_accuracy(store, loopback_server):
    db, gateway = store
    sid = make_study(db, conditions=["B1", "B2", "C2", "P1"], texts={c: NEUTRAL for c in ("B1", "B2", "C2", "P1")})
    loopback_server.responder = lambda body: json.dumps({"guess": "B1", "reason": "a guess"})
    report = await audit_study(db, gateway, sid, ModelSettings(model="openai/auditor", api_base=loopback_server.url))
    assert report.setups == ["B1", "B2", "C2"]  # P1 is C2 three times: folded
    assert (report.n, report.correct) == (4, 1) and report.chance == round(1 / 3, 4)
    assert report.majority_rate == 0.5  # C2 + P1 = half the items
    assert not report.leak_suspected and report.p_value > 0.5


async def test_invalid_replies_are_counted_apart_and_the_audit_resumes(store, loopback_server):
    db, gateway = store
    sid = make_study(db, conditions=["B1", "C2"], texts={"B1": NEUTRAL, "C2": NEUTRAL})
    loopback_server.responder = lambda body: json.dumps({"guess": "Z9"})
    settings = ModelSettings(model="openai/auditor", api_base=loopback_server.url)
    report = await audit_study(db, gateway, sid, settings)
    assert (report.n, report.invalid, report.accuracy) == (0, 2, None)
    # three attempts per item; the two items' texts are equal, so the second item's identical requests are
    # served from the call log (the gateway's replay key) and the server sees three
    assert loopback_server.count == 3
    again = await audit_study(db, gateway, sid, settings)
    assert loopback_server.count == 3 and again.invalid == 2
    assert audit_report(db, sid).model == "openai/auditor"
    assert len([i for i in blind_rows.blind_items(db, sid) if not i["pilot"]]) == 2


async def test_the_audit_command_and_the_metrics_table_use_one_chance_rate(store, loopback_server):
    """Issue 13: `judge --audit-only` said 1/6 and the metrics table 1/7 for the same study."""
    from workbench.protocols.hindsight.metrics.agreement_report import blindness_audit
    from workbench.protocols.hindsight.metrics.study_data import load_study_data

    db, gateway = store
    conds = ["B1", "B2", "B3", "C1", "C2", "C3", "P1"]
    sid = make_study(db, conditions=conds, texts={c: NEUTRAL for c in conds})
    loopback_server.responder = lambda body: json.dumps({"guess": "B1", "reason": "a guess"})
    report = await audit_study(db, gateway, sid, ModelSettings(model="openai/auditor", api_base=loopback_server.url))
    overall = [r for r in blindness_audit(load_study_data(db, sid)) if r.condition is None][0]
    assert report.chance == round(overall.chance, 4) == round(1 / 6, 4)
