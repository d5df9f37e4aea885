"""A graph condition that lost its treatment says so or does not run (issue 25 item 4): refused before its
debates when a persona's belief graph failed, run only with --allow-missing-graphs and then marked in every
report table; crux cards and the QBAF map get their own token budgets."""

from __future__ import annotations

import json

from tests.protocols.faultline.faultline_kit import PAIR, TOPIC, scripted
from tests.protocols.faultline.test_faultline_end_to_end import cli, write_study
from workbench.protocols.faultline.treatment import (
    CRUX_CARDS_MAX_TOKENS, QBAF_MAX_TOKENS, label, lost_treatments, mark,
)


def failing_ethicist_graph(body: dict) -> str:
    """The ethicist's graph stops short (16 of 20 nodes, as the real run's did); everything else scripted."""
    first = body["messages"][0]["content"]   # the retry's last message is the note; the ask comes first
    if "Write the belief graph" in first and "Precautionary ethicist" in first:
        doc = json.loads(scripted({"messages": body["messages"][:1]}))
        doc["nodes"] = doc["nodes"][:16]
        return json.dumps(doc)
    return scripted(body)


def test_lost_treatments_name_the_persona_and_labels_mark_whole_ids_only():
    personas = [{"id": "tech-optimist"}, {"id": "precautionary-ethicist"}]
    graphs = {"tech-optimist:20": {"nodes": [{"id": "n1"}], "error": None},
              "precautionary-ethicist:20": {"nodes": [], "error": "16 nodes, 20 asked"}}
    lost = lost_treatments(graphs, personas, ["plain", "graph-20", "qbaf-20", "single"])
    assert lost == {"graph-20": "no graph for precautionary-ethicist", "qbaf-20": "no graph for precautionary-ethicist"}
    assert label("graph-20", lost) == "graph-20 (no graph for precautionary-ethicist)" and label("plain", lost) == "plain"
    assert mark("ACC: graph-20 − plain", {"graph-20": "x"}) == "ACC: graph-20 (x) − plain"
    assert mark("qbaf-20 − plain", {"graph-20": "x"}) == "qbaf-20 − plain"


def test_a_graph_condition_without_its_graph_is_refused_then_run_marked(tmp_path, loopback_server, capsys):
    loopback_server.responder = failing_ethicist_graph
    db_path = tmp_path / "store.db"
    assert cli(db_path, "study", "create", str(write_study(tmp_path, loopback_server,
                                                             conditions=("plain", "graph-20")))) == 0
    capsys.readouterr()
    assert cli(db_path, "run", "fl-e2e") == 1
    err = capsys.readouterr().err
    assert "graph-20 (no graph for precautionary-ethicist)" in err and "--allow-missing-graphs" in err
    debates = [b for b in loopback_server.requests if "opening statement" in b["messages"][-1]["content"]]
    assert debates == []   # refused before any debate call

    assert cli(db_path, "run", "fl-e2e", "--resume", "--allow-missing-graphs") == 0
    capsys.readouterr()
    out_file = tmp_path / "report.md"
    assert cli(db_path, "report", "fl-e2e", "--out", str(out_file)) == 0
    report = out_file.read_text(encoding="utf-8")
    assert "| graph-20 (no graph for precautionary-ethicist) |" in report
    assert "graph-20 (no graph for precautionary-ethicist) − plain" in report
    tables = report.split("## Treatment fidelity", 1)[0]  # that table's own row says why, in its detail
    assert "| graph-20 |" not in tables and "Faultline conditions without their treatment" in report
    # the fidelity table (issue 45): graph-20's debates ran without the ethicist's graph; plain injects nothing
    import sqlite_utils
    from workbench.fidelity.study import study_fidelity

    table = study_fidelity(sqlite_utils.Database(db_path), "fl-e2e")
    graph, plain = table.row("graph-20"), table.row("plain")
    assert graph.runs and graph.delivered == 0 and "no graph for precautionary-ethicist" in graph.detail
    assert plain.runs and plain.delivered == plain.runs
    assert "| graph-20 | every persona's 20-node belief graph used | 0 of" in report


def test_crux_cards_and_the_argument_map_get_their_own_max_tokens(tmp_path, loopback_server):
    loopback_server.responder = scripted
    db_path = tmp_path / "store.db"
    assert cli(db_path, "study", "create", str(write_study(tmp_path, loopback_server, conditions=("qbaf",)))) == 0
    assert cli(db_path, "run", "fl-e2e") == 0
    by_kind = {}
    for b in loopback_server.requests:
        last = b["messages"][-1]["content"]
        kind = ("crux" if "Write crux cards" in last else "qbaf" if "Map its arguments" in last else
                "speech" if "statement" in last else None)
        if kind:
            by_kind.setdefault(kind, set()).add(b["max_tokens"])
    assert by_kind == {"crux": {CRUX_CARDS_MAX_TOKENS}, "qbaf": {QBAF_MAX_TOKENS}, "speech": {256}}


def test_exclude_leaves_the_debates_without_their_graphs_out_of_the_tables(monkeypatch):
    """on_missing_treatment = "exclude" (issue 45): a debate read as not delivered leaves the measured runs."""
    from workbench.protocol.base import TreatmentReading
    from workbench.protocols.faultline import analysis, treatment

    runs = [{"id": "s/t--p/graph-20/0", "condition": "graph-20"}, {"id": "s/t--p/plain/0", "condition": "plain"}]
    reports = {"s/t--p/graph-20/0": {"personas": ["a"], "graphs": {"a": None}}, "s/t--p/plain/0": {}}
    monkeypatch.setattr(treatment, "fidelity_readings", lambda db, rs: [
        TreatmentReading(r["id"], r["condition"], *treatment.fidelity_reading(r["condition"], reports[r["id"]]))
        for r in rs])
    assert analysis.without_undelivered(None, runs, {"on_missing_treatment": "exclude"}) == runs[1:]
    assert analysis.without_undelivered(None, runs, {"on_missing_treatment": "mark"}) == runs
    assert analysis.without_undelivered(None, runs, {}) == runs


def test_a_debate_reads_as_delivered_only_with_its_graphs_and_qbaf_maps():
    from workbench.protocols.faultline.treatment import fidelity_reading

    graph = {"nodes": [{"id": "n1"}], "error": None}
    both = {"personas": ["a", "b"], "graphs": {"a": graph, "b": graph}}
    assert fidelity_reading("graph-20", both)[0]
    assert fidelity_reading("graph-20", {**both, "graphs": {"a": graph, "b": {"nodes": [], "error": "short"}}}) == (
        False, "no graph for b", False)
    assert fidelity_reading("qbaf", {"qbaf": [{"round": 1}, {"round": 2, "error": "no JSON"}]}) == (
        False, "QBAF map unread in 1 of 2 round(s)", False)
    assert fidelity_reading("qbaf", {"qbaf": [{"round": 1}]})[0]
    assert fidelity_reading("plain", None) == (True, "", False)
