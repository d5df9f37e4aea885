"""Issue 24 item 7: faultline's metrics say what they are doing while they embed (the first computation
takes a minute): the embedding model's loading and each run measured, on stderr through the same
progress callback and wording as hindsight's (`workbench.metrics.embeddings.progress_text`), while
`--json` keeps stdout to one parsable document."""

from __future__ import annotations

import json

from tests.protocols.faultline.faultline_kit import make_study
from tests.protocols.faultline.test_faultline_analysis import run_all
from tests.protocols.faultline.test_faultline_programs import build_graphs
from workbench.cli.main import main
from workbench.metrics.embeddings import LOADING, MEASURING, progress_text
from workbench.protocols.faultline import PROTOCOL


async def test_metrics_progress_goes_to_stderr_and_json_stays_clean(tmp_path, fl_server, capsys):
    db, db_path, sid, d = make_study(tmp_path, api_base=fl_server.url, conditions=("plain", "self-consistency"),
                                     rounds=1)
    await build_graphs(db, db_path, sid, d)
    await run_all(db, db_path, sid, d)
    runs = db.execute("SELECT count(*) FROM runs WHERE study_id = ? AND status = 'done'", [sid]).fetchone()[0]
    assert runs == 2

    capsys.readouterr()
    assert main(["--batch", "--db", str(db_path), "--json", "metrics", sid]) == 0
    out, err = capsys.readouterr()
    doc = json.loads(out)                       # stdout: one JSON document and nothing else
    assert doc["study"] == sid and len(doc["debates"]) == runs
    lines = err.splitlines()
    # each model is told once, for its first texts: the study's embedding model, then CR's crux model (mpnet)
    assert lines.count(progress_text(LOADING, 0, 0)) == 2
    measured = [line for line in lines if line.endswith("runs measured")]
    assert measured == [progress_text(MEASURING, k, runs) for k in range(runs + 1)]
    assert lines.index(progress_text(LOADING, 0, 0)) > lines.index(measured[0])

    # computed again from the store's embedding cache: no model to load, the runs still counted
    heard = []
    PROTOCOL.metrics(db, sid, {"progress": lambda *step: heard.append(step)})
    assert heard == [(MEASURING, k, runs) for k in range(runs + 1)]
