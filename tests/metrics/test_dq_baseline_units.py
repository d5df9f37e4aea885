"""Issue 42 item 5, found again in the audit: the sequential (B3) vs parallel (C1, C2) baseline compared runs,
so a case's C1 and C2 runs counted as two independent units; each side is now one value per case."""

from __future__ import annotations

import pytest
from scipy import stats

from workbench.metrics.estimate import Estimate
from workbench.protocols.hindsight.metrics.dq_study import RunDQ, decision_quality_report


def test_the_baseline_compares_case_means(monkeypatch):
    import workbench.protocols.hindsight.metrics.dq_study as dq

    seq = {"a": 0.30, "b": 0.50, "c": 0.40}
    par = {"a": (0.70, 0.90), "b": (0.60, 0.60), "c": (0.95, 0.75)}     # C1, C2 per case

    def run(i, case, cond, v):
        e = Estimate(v, n=1, method="x")
        return RunDQ(f"r{i}", case, cond, 4, "parallel", e, e, e, e)

    runs = [run(i, c, "B3", v) for i, (c, v) in enumerate(seq.items())]
    runs += [run(10 + i, c, cond, v) for i, (c, vs) in enumerate(par.items()) for cond, v in zip(("C1", "C2"), vs)]
    monkeypatch.setattr(dq, "run_decision_quality", lambda data, embedder, **kw: runs)
    data = type("D", (), {"blinded": False})()
    base = decision_quality_report(data, object()).baseline["dq1"]
    case_par = [sum(v) / 2 for v in par.values()]                     # 0.80, 0.60, 0.85: three units, not six
    assert base.parallel.n == 3 and base.parallel.value == pytest.approx(sum(case_par) / 3)
    ref = stats.mannwhitneyu(case_par, list(seq.values()), alternative="two-sided")
    assert base.mann_whitney.details["p_value"] == pytest.approx(ref.pvalue)
    assert base.mann_whitney.details["U"] == pytest.approx(ref.statistic)
