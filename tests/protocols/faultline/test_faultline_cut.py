"""A belief graph cut at max_tokens is a named state (issue 40): counted as cut, not as a parse error, and asked
again with a larger max_tokens within the window (workbench/structured/cut.py), never the same request again; the
graph so mended is stored whole."""

from __future__ import annotations

from tests.protocols.faultline.faultline_kit import scripted
from tests.protocols.faultline.test_faultline_end_to_end import cli, write_study
from tests.support.loopback import Reply
from workbench.structured.counts import parse_counts


def graphs_cut_below(tokens: int):
    def respond(body):
        whole = scripted(body)
        if "Write the belief graph" in body["messages"][-1]["content"] and body["max_tokens"] < tokens:
            return Reply.text(whole[: len(whole) // 2], finish_reason="length")
        return whole
    return respond


def test_a_cut_graph_is_counted_cut_and_asked_again_with_more_room(tmp_path, fl_server, capsys):
    from store import open_store
    from workbench.protocols.faultline.graphs import stored_graphs

    fl_server.responder = graphs_cut_below(2400)
    db_path = tmp_path / "store.db"
    assert cli(db_path, "study", "create", str(write_study(tmp_path, fl_server, name="fl-cut",
                                                          conditions=("graph-20",)))) == 0
    assert cli(db_path, "faultline", "graphs", "fl-cut") == 0
    assert sorted(r["max_tokens"] for r in fl_server.requests) == [1200, 1200, 2400, 2400]  # the cause changed
    db = open_store(db_path)
    assert all(len(g["nodes"]) == 20 and g["error"] is None for g in stored_graphs(db, "fl-cut").values())
    [counts] = parse_counts(db, "fl-cut")
    assert (counts["step"], counts["cut"], counts["cut_asked_again"], counts["unparsed"]) == ("belief graph", 2, 2, 0)
    assert counts["parsed"] + counts["repaired"] == 2
