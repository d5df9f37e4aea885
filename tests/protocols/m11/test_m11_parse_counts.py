"""Parse counts per structured step, end to end on the batch path (issue 19 item 4): a run's replies are
recorded as parsed, repaired or unparsed, and `metrics` (text and --json) and the report show them per step."""

from __future__ import annotations

import json

from tests.protocols.m11 import m11kit
from tests.protocols.m11.m11kit import EXAMPLE_A
from tests.protocols.m11.test_m11_end_to_end import STUDY
from workbench.cli.main import main


def test_parsed_repaired_and_unparsed_replies_are_counted_and_shown(m11_server, tmp_path, capsys):
    # Critic, Defender and MetaJudge answer with the JSON object alone; the scripted Judge fences it (repaired);
    # the binary judge answers in prose twice (unparsed, then unparsed again on the retry).
    m11_server.responder = lambda body: m11kit.scripted(body, {"binary": "It looks fine to me: PASS."})
    db = str(tmp_path / "store.db")
    m11kit.write_items(tmp_path / "items.jsonl", [EXAMPLE_A])
    study = tmp_path / "m11-counts.toml"
    study.write_text(STUDY.format(name="m11-counts", api_base=m11_server.url, runs=1), encoding="utf-8")
    assert main(["--batch", "--db", db, "study", "create", str(study)]) == 0
    assert main(["--batch", "--db", db, "run", "m11-counts"]) == 0
    assert m11_server.count == 4 + 2
    capsys.readouterr()

    assert main(["--batch", "--db", db, "--json", "metrics", "m11-counts"]) == 0
    counts = {c["step"]: (c["parsed"], c["repaired"], c["unparsed"], c["replies"])
              for c in json.loads(capsys.readouterr().out)["structured_replies"]}
    assert counts == {"m11 binary": (0, 0, 2, 2), "m11 critic": (1, 0, 0, 1), "m11 defender": (1, 0, 0, 1),
                      "m11 judge": (0, 1, 0, 1), "m11 metajudge": (1, 0, 0, 1)}

    assert main(["--batch", "--db", db, "metrics", "m11-counts"]) == 0
    text = capsys.readouterr().out
    assert "## Structured replies" in text
    assert "| m11 judge | 0 | 1 | 0 | 0 | 1 |" in text and "| m11 binary | 0 | 0 | 0 | 2 | 2 |" in text

    report = tmp_path / "report.md"
    assert main(["--batch", "--db", db, "report", "m11-counts", "--out", str(report)]) == 0
    written = report.read_text()
    assert "## Structured replies" in written
    assert "| m11 critic | 1 | 0 | 0 | 0 | 1 |" in written and "| m11 binary | 0 | 0 | 0 | 2 | 2 |" in written

    # a run resumed after an interruption replays its replies: each is read again but counted once
    from store import open_store
    from store.runs import finish_run, list_runs

    store = open_store(db)
    for run in list_runs(store, "m11-counts"):
        finish_run(store, run["id"], "interrupted", error="interrupted: test")
    assert main(["--batch", "--db", db, "run", "m11-counts", "--resume", "--replay"]) == 0
    assert m11_server.count == 6
    capsys.readouterr()
    assert main(["--batch", "--db", db, "--json", "metrics", "m11-counts"]) == 0
    again = {c["step"]: c["replies"] for c in json.loads(capsys.readouterr().out)["structured_replies"]}
    assert again == {step: c[3] for step, c in counts.items()}
