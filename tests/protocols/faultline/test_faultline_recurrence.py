"""Crux recurrence on the `sim` model (issue 31): the planted recurrence's exact mean against the measure on
fixed vectors, and the shipped five-repeat example run by its header commands, whose report shows CR."""

from __future__ import annotations

import shlex
from pathlib import Path

import numpy as np
import pytest

from workbench.protocols.faultline.measures import crux_recurrence
from workbench.protocols.faultline.power import expected_cr

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "studies" / "faultline-repeats-sim.toml"


@pytest.mark.parametrize("p, size", [(0.5, 2), (0.8, 2), (0.6, 3)])
def test_expected_cr_is_the_mean_the_measure_reads_under_the_plant(p, size):
    """The sim's rule (a card asks its claim's own question with chance p, else a one-off) on far-apart fixed
    vectors, measured by crux_recurrence: its mean over many debates is expected_cr's exact value."""
    rng = np.random.default_rng(7)
    runs, claims, n = 5, 2, 200
    got = []
    for _ in range(n):
        own = rng.standard_normal((claims, 64))
        vectors, labels = [], []
        for r in range(runs):
            for c in range(claims):
                vectors.append(own[c] if rng.random() < p else rng.standard_normal(64))
                labels.append(f"r{r}")
        got.append(crux_recurrence(np.array(vectors), labels, min_cluster_size=size).value)
    sd = np.std(got) / np.sqrt(n)
    assert np.mean(got) == pytest.approx(expected_cr(p, runs, claims, size), abs=4 * sd)


def test_expected_cr_at_the_ends():
    assert expected_cr(1.0, 5, 2) == 1.0 and expected_cr(0.0, 5, 2) == 0.0
    # one claim, three runs, p = 1/2 by hand: k = 3 → 1/1; k = 2 → 0/(1 + 1); k = 1 → 0; k = 0 → 0
    assert expected_cr(0.5, 3, 1) == pytest.approx(1 / 8)


def header_commands() -> list[list[str]]:
    lines = [ln[1:].strip() for ln in EXAMPLE.read_text(encoding="utf-8").splitlines() if ln.startswith("#")]
    return [shlex.split(ln)[1:] for ln in lines if ln.startswith("workbench --batch ")]


def test_the_five_repeat_example_reports_crux_recurrence(tmp_path, monkeypatch):
    from workbench.cli.main import main

    (tmp_path / "studies").mkdir()
    (tmp_path / "studies" / EXAMPLE.name).write_text(EXAMPLE.read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "cases").symlink_to(ROOT / "cases")
    monkeypatch.chdir(tmp_path)
    commands = header_commands()
    assert [c[1] for c in commands] == ["study", "run", "metrics", "report"]
    for argv in commands:   # each header command as written, with the test's store
        assert main([argv[0], "--db", str(tmp_path / "store.db"), *argv[1:]]) == 0, argv
    report = (tmp_path / "faultline-repeats-sim-report.md").read_text(encoding="utf-8")
    section = report.split("## Faultline crux recurrence", 1)[1].split("\n## ", 1)[0]
    lines = [ln for ln in section.splitlines() if ln.startswith("- ")]
    # each line counts clusters and questions in words, never as an "(n=…)" that the table uses for debates
    assert len(lines) == 2 and all("(5 runs)" in ln and "stable of" in ln and "asked once" in ln and "(n=" not in ln
                                   for ln in lines)
    assert 'Crux equivalence (crux_equivalence = "matching", the offline default): all-mpnet-base-v2' in section
    assert "differ only in direction" in section and "kept apart by the project's direction stage" in section
    assert "CR (> 0.4; same crux at cos ≥ 0.45, all-mpnet-base-v2)" in report
    assert "| crux_recurrence.graph-20 | 0.9 | mean CR over repeated debates | 0.728 |" in report
    assert "| crux_recurrence.plain | 0.4 | mean CR over repeated debates | 0.099 |" in report
    assert 'ACC rule (acc_tie = "coin"' in report and "## Faultline semantic spread per round" in report
    # ACC on equal terms: the headline against self-consistency on 2 votes, the seed's five-vote row beside it
    head = report.split("## Faultline: does debate beat self-consistency?", 1)[1].split("\n## ", 1)[0]
    assert head.lstrip().startswith("Debate beats self-consistency on equal votes (ACC): **")
    assert "ACC: all debate conditions − self-consistency on 2 votes: mean difference" in head
    assert 'Headline (acc_headline = "equal-votes", the project\'s choice)' in head
    assert ("Seed 002's comparison (five-vote majority; not the verdict): ACC: all debate conditions − "
            "self-consistency on 5 votes (seed 002): mean difference") in head
    assert "**Belief-graph nodes per persona" in report and "CR: graph-20 − plain" in report
    # issue 42 item 6: the designed power names its comparisons, CR's among them, and the study says it is a
    # demonstration with the power it has
    power = next(ln for ln in report.splitlines() if ln.startswith("> Designed power: "))
    assert "CR: graph-20 − plain Δ=0.6" in power and "ACC: all debate conditions − self-consistency on 2 votes" in power
    assert "comparison 1" not in power
    # over independent units: one topic × pair against one, so even BA's large planted Δ cannot be detected
    # (over the five repeats as if independent it read power 1.00)
    assert "BA: graph-20 − plain Δ=0.60: 0.00" in power
    assert "A demonstration with one topic and one persona pair" in report
