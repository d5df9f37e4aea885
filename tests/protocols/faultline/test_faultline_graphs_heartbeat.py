"""`faultline graphs` shows life while a graph is long in coming (issue 40: one static line for minutes): once a
heartbeat, a `working` line with the call's elapsed time and what it awaits, on stderr."""

from __future__ import annotations

from tests.protocols.faultline.faultline_kit import scripted
from tests.protocols.faultline.test_faultline_end_to_end import cli, write_study
from tests.support.loopback import Reply
from workbench.gateway import live_calls
from workbench.protocols.faultline import cli as graphs_cli


def slow_graphs(body: dict):
    reply = scripted(body)
    return Reply.text(reply, latency=0.3) if "Write the belief graph" in body["messages"][-1]["content"] else reply


def test_a_graph_long_in_coming_gets_a_heartbeat_line(tmp_path, fl_server, capsys, monkeypatch):
    class Soon(graphs_cli._GraphProgress):   # a call is long from 0.1 s here (5 s in use)
        def __init__(self, ctx) -> None:
            super().__init__(ctx)
            self.live.after = 0.1

    monkeypatch.setattr(graphs_cli, "_GraphProgress", Soon)
    monkeypatch.setattr(live_calls, "HEARTBEAT", 0.1)   # a beat every 0.1 s (1 s in use)
    fl_server.responder = slow_graphs
    db_path = tmp_path / "store.db"
    assert cli(db_path, "study", "create", str(write_study(tmp_path, fl_server, conditions=("graph-20",)))) == 0
    capsys.readouterr()
    assert cli(db_path, "faultline", "graphs", "fl-e2e") == 0
    working = [line for line in capsys.readouterr().err.splitlines() if line.startswith("faultline graphs: working: ")]
    assert working, "no heartbeat while a graph was in flight"
    assert all("a whole reply: no tokens until it lands" in line for line in working), working
