"""Issue 42 item 2 for M11: the human-agreement sample counts the samples a human and the pipeline both scored;
below seed 003 §8's 20 it warns; at none the agreement (and the pass rate without a scored sample) is undefined."""

from __future__ import annotations

from workbench.protocols.m11.report import human_section, overview


def _human(n: int) -> dict:
    undefined = {"value": None, "undefined_reason": "fewer than 3 pairs", "n": n}
    return {"sample": [f"s{i}" for i in range(20)], "sample_size": 20, "seed": 11, "n": n, "pearson": undefined,
            "spearman": undefined, "target_r": 0.85, "passed": None, "ci_above_target": None}


def test_the_human_sample_is_counted_on_what_was_scored():
    none = human_section({"human": _human(0)})
    assert "Human scores on 0 samples with a pipeline score: the agreement is undefined" in none
    few = human_section({"human": _human(5)})
    assert "Human scores on 5 sample(s) with a pipeline score. **Below seed 003 §8's 20**" in few
    assert "Below" not in human_section({"human": _human(20)})


def test_the_pass_rate_is_undefined_when_no_sample_was_scored():
    na = {"value": None, "undefined_reason": "no pairs", "n": 0}
    doc = {"input_filter": {}, "samples": [{}] * 3, "module": "M11", "runs": 3, "conditions": ["likert"],
           "bands": {"pass_rate": None, "n": 0, "unscored": 3},
           "binary": {"binary_pass_rate": None, "agreement": na, "kappa": na, "agreement_without_borderline": na}}
    assert "Pass rate (Likert, Strong PASS or PASS): undefined: no sample was scored (3 without a score)" \
        in overview(doc)
