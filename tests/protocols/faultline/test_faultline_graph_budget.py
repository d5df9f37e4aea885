"""The belief graphs' token budget said before it is spent (issue 40): `study create` warns beside the study's
max_tokens, and `faultline graphs` prints the budget per graph before its first call."""

from __future__ import annotations

from tests.protocols.faultline.test_faultline_end_to_end import cli, write_study


def test_create_and_graphs_state_the_graphs_budget_first(tmp_path, fl_server, capsys):
    db_path = tmp_path / "store.db"
    path = write_study(tmp_path, fl_server, name="fl-budget", conditions=("graph-20",))
    assert cli(db_path, "study", "create", str(path)) == 0
    err = capsys.readouterr().err
    budget = err.splitlines().index("belief graphs: 20 nodes at up to 1,200 tokens each (60 a node, whatever "
                                    "the study's max_tokens 256)")
    assert err.splitlines()[budget + 1] == ("warning: `faultline graphs` asks a graph for up to 5x a debate turn's "
                                            "tokens (1,200 against max_tokens 256): minutes a graph on a CPU model")
    assert cli(db_path, "faultline", "graphs", "fl-budget") == 0
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("faultline graphs:")]
    assert lines[0] == ("faultline graphs: belief graphs: 2 graphs, 20 nodes at up to 1,200 tokens each "
                        "(60 a node, whatever the study's max_tokens 256); up to 2,400 tokens in all")
    assert "belief graph of" in lines[1]  # the first graph is asked for after the budget


def test_create_states_the_budget_when_the_graphs_fit(tmp_path, fl_server, capsys):
    """The budget is stated beside max_tokens even when no graph asks for more (no warning then)."""
    db_path = tmp_path / "store.db"
    path = write_study(tmp_path, fl_server, name="fl-fits", conditions=("graph-20",))
    path.write_text(path.read_text().replace("max_tokens = 256", "max_tokens = 1500"))
    assert cli(db_path, "study", "create", str(path)) == 0
    err = capsys.readouterr().err
    assert ("belief graphs: 20 nodes at up to 1,500 tokens each (60 a node, whatever the study's max_tokens "
            "1,500)") in err.splitlines()
    assert "warning:" not in err
