"""An M11 stage's reply cut at max_tokens is a named state (issue 40): counted as cut, not as a parse error, in
the run's counts, `metrics` and the report, and asked again with a larger max_tokens (workbench/structured/cut.py),
never the same request again."""

from __future__ import annotations

from tests.protocols.m11 import m11kit
from tests.protocols.m11.m11kit import EXAMPLE_A
from tests.protocols.m11.test_m11_end_to_end import STUDY
from tests.support.loopback import Reply
from workbench.cli.main import main


def judge_cut_below(tokens: int):
    """The scripted pipeline, but a Judge asked with fewer than `tokens` is stopped mid-object."""
    def respond(body):
        whole = m11kit.scripted(body)
        if m11kit.stage_of(body) == "judge" and body["max_tokens"] < tokens:
            return Reply.text(whole[: len(whole) // 2], finish_reason="length")
        return whole
    return respond


def test_a_cut_verdict_is_counted_cut_and_asked_again_with_more_room(m11_server, tmp_path, capsys):
    m11_server.responder = judge_cut_below(300)
    db = str(tmp_path / "store.db")
    m11kit.write_items(tmp_path / "items.jsonl", [EXAMPLE_A])
    study = tmp_path / "m11-cut.toml"
    study.write_text(STUDY.format(name="m11-cut", api_base=m11_server.url, runs=1).replace(
        'conditions = ["likert", "binary"]', 'conditions = ["likert"]'), encoding="utf-8")
    assert main(["--batch", "--db", db, "study", "create", str(study)]) == 0
    assert main(["--batch", "--db", db, "run", "m11-cut"]) == 0
    out = capsys.readouterr().out
    judged = [r["max_tokens"] for r in m11_server.requests if m11kit.stage_of(r) == "judge"]
    assert judged == [256, 512]                                   # what cut it changed, once
    line = "structured replies cut at max_tokens: 1 (m11 judge 1); 1 asked again with a larger max_tokens"
    assert f"study {line}" in out, out
    assert main(["--batch", "--db", db, "metrics", "m11-cut"]) == 0
    metrics = capsys.readouterr().out
    assert "| m11 judge | 0 | 1 | 0 | 1 | 0 | 2 |" in metrics and line[1:] in metrics
    assert main(["--batch", "--db", db, "report", "m11-cut", "--out", str(tmp_path / "r.md")]) == 0
    assert "S" + line[1:] in (tmp_path / "r.md").read_text()
