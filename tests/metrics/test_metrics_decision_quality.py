"""DQ-1/2/3 and the weighted score against seed 001's worked examples and
independent numpy computations, including the seed's DQ-2 arithmetic slip."""

import json

import numpy as np
import pytest

from workbench.metrics import (
    CONCERN_TAXONOMIES,
    Estimate,
    anchoring_elimination,
    blind_spot_coverage,
    compare_sequential_parallel,
    concerns_for,
    decision_quality_score,
    perspective_diversity,
)
from workbench.metrics.descriptive import mean_difference_ci
from workbench.metrics.effect_sizes import mann_whitney_u

# Seed 001 §2.1 worked example (PostgreSQL -> DynamoDB, medium complexity).
SEED_SIM = [[1.00, 0.25, 0.30, 0.45, 0.20],
            [0.25, 1.00, 0.35, 0.15, 0.40],
            [0.30, 0.35, 1.00, 0.28, 0.22],
            [0.45, 0.15, 0.28, 1.00, 0.18],
            [0.20, 0.40, 0.22, 0.18, 1.00]]


def test_dq1_reproduces_seed_worked_example():
    e = perspective_diversity(SEED_SIM, complexity="medium")
    assert e.value == 1.0
    assert e.details["independent_count"] == 5 and e.details["expected"] == 5
    assert e.details["max_similarity"] == [0.45, 0.40, 0.35, 0.45, 0.40]


def test_dq1_threshold_is_strict_and_duplicates_both_fail():
    s = np.array(SEED_SIM)
    s[0, 3] = s[3, 0] = 0.65            # exactly at the threshold: not independent
    e = perspective_diversity(s, complexity="medium")
    assert e.details["independent_indices"] == [1, 2, 4] and e.value == pytest.approx(3 / 5)


def test_dq1_complexity_classes_cap_and_overrides():
    assert perspective_diversity(SEED_SIM, complexity="low").value == 1.0     # 5/3 capped
    high = perspective_diversity(SEED_SIM, complexity="high")
    assert high.value == pytest.approx(5 / 8) and high.details["expected"] == 8
    assert perspective_diversity(SEED_SIM, expected=6).value == pytest.approx(5 / 6)
    low = perspective_diversity(SEED_SIM, complexity="low")
    assert low.details["uncapped_ratio"] == pytest.approx(5 / 3)
    custom = perspective_diversity(SEED_SIM, complexity="medium",
                                   expected_by_complexity={"medium": 4})
    assert custom.value == 1.0 and custom.details["expected"] == 4


def test_dq1_from_real_cosine_similarities():
    from workbench.metrics.embeddings import cosine_similarity_matrix

    v = np.array([[1, 0, 0], [0.99, 0.1, 0], [0, 1, 0], [0, 0, 1]], float)
    e = perspective_diversity(cosine_similarity_matrix(v), complexity="low")
    assert e.details["independent_indices"] == [2, 3] and e.value == pytest.approx(2 / 3)


def test_dq1_degenerate_and_bad_inputs():
    assert not perspective_diversity(np.empty((0, 0))).defined
    one = perspective_diversity([[1.0]], complexity="low")
    assert one.value == pytest.approx(1 / 3)
    with pytest.raises(ValueError):
        perspective_diversity([[1, 0.2], [0.3, 1]])           # asymmetric
    with pytest.raises(ValueError):
        perspective_diversity([[1, np.nan], [np.nan, 1]])
    with pytest.raises(ValueError):
        perspective_diversity(SEED_SIM, complexity="extreme")


SEQ = [1.00, 0.72, 0.68, 0.75, 0.80]


def test_dq2_sequential_worked_example_follows_the_formula_not_the_seed_number():
    e = anchoring_elimination(SEQ)
    r = np.corrcoef([2, 3, 4, 5], SEQ[1:])[0, 1]           # P1 excluded as self-reference
    assert e.value == pytest.approx(1 - abs(r), abs=1e-12)
    assert e.value == pytest.approx(0.2088, abs=5e-5)
    assert e.details["pearson_r"] == pytest.approx(0.7912, abs=5e-5)
    assert e.details["anchoring_detected"] is True
    # The seed prints r = 0.15 and DQ-2 = 0.85; no reading of its numbers gives that:
    assert e.value != pytest.approx(0.85, abs=0.01)
    with_p1 = 1 - abs(np.corrcoef([1, 2, 3, 4, 5], SEQ)[0, 1])
    assert with_p1 == pytest.approx(0.5331, abs=5e-5) and with_p1 != pytest.approx(0.85, abs=0.01)


def test_dq2_parallel_worked_example_is_one_by_construction():
    e = anchoring_elimination([1.00, 0.31, 0.28, 0.42, 0.19], orders=[1, 1, 1, 1, 1])
    assert e.value == 1.0 and "parallel" in e.method


def test_dq2_edge_cases():
    single = anchoring_elimination([1.0])
    assert not single.defined and "insufficient data" in single.undefined_reason
    two = anchoring_elimination([1.0, 0.72])
    assert two.value == pytest.approx(0.28) and two.details["rule"] == "direct similarity"
    three = anchoring_elimination([1.0, 0.6, 0.4])
    assert three.value == pytest.approx(0.5) and three.details["rule"] == "direct similarity"
    assert anchoring_elimination([1.0, -0.2]).value == 1.0      # negative cosine clipped
    flat = anchoring_elimination([1.0, 0.5, 0.5, 0.5])
    assert not flat.defined and "constant" in flat.undefined_reason
    wave = anchoring_elimination([1.0, 0.3, 0.5, 0.4], orders=[1, 2, 2, 2])
    assert not wave.defined and "order does not vary" in wave.undefined_reason
    gap = anchoring_elimination([1.0, 0.72, None, 0.75, 0.80])
    assert gap.details["n_dropped"] == 1
    assert gap.value == pytest.approx(1 - abs(np.corrcoef([2, 4, 5], [0.72, 0.75, 0.80])[0, 1]))


# Seed 001 §2.3 worked example (Kubernetes, Technology Decision).
K8S = {"Performance": 1.0, "Cost": 1.0, "Security": 0.5, "Scalability": 1.0,
       "Maintainability": 0.0, "Developer Experience": 1.0, "Vendor Lock-in": 0.0,
       "Migration Risk": 1.0}


def test_dq3_reproduces_seed_worked_example():
    e = blind_spot_coverage(K8S, domain="Technology Decision")
    assert e.value == 0.6875 and e.n == 8


def test_dq3_taxonomies_are_the_seed_lists():
    assert CONCERN_TAXONOMIES["Technology Decision"] == (
        "Performance", "Cost", "Security", "Scalability", "Maintainability",
        "Developer Experience", "Vendor Lock-in", "Migration Risk")
    assert CONCERN_TAXONOMIES["Business Strategy"] == (
        "Revenue Impact", "Cost Impact", "Competitive Position", "Customer Impact",
        "Employee Impact", "Regulatory Risk", "Timeline", "Reversibility")
    assert CONCERN_TAXONOMIES["Policy Decision"] == (
        "Economic Impact", "Social Impact", "Environmental Impact", "Legal Compliance",
        "Implementation Feasibility", "Public Perception", "Equity/Fairness",
        "Unintended Consequences")


def test_dq3_words_aliases_unknown_domain_and_custom_concerns():
    word = {1.0: "addressed", 0.5: "partial", 0.0: "absent"}
    words = {k.lower(): word[v] for k, v in K8S.items()}
    assert blind_spot_coverage(words, domain="technology_decision").value == 0.6875
    union, label = concerns_for("healthcare")
    assert len(union) == 24 and "unknown" in label
    custom = blind_spot_coverage({**K8S, "Data Residency": "partial"}, domain="technology",
                                 custom_concerns=["Data Residency"])
    assert custom.value == pytest.approx(6.0 / 9) and custom.n == 9


def test_dq3_unassessed_concerns_make_it_undefined_and_typos_fail():
    partial = dict(K8S)
    partial["Security"] = None                     # e.g. the judge call failed
    del partial["Cost"]
    e = blind_spot_coverage(partial, domain="Technology Decision")
    assert not e.defined and e.details["unassessed"] == ["Cost", "Security"]
    with pytest.raises(ValueError):
        blind_spot_coverage({**K8S, "Perfomance": 1}, domain="Technology Decision")
    with pytest.raises(ValueError):
        blind_spot_coverage({**K8S, "Cost": 0.7}, domain="Technology Decision")


def test_weighted_score_default_weights():
    e = decision_quality_score(0.8, 0.5, 0.6875)
    assert e.value == pytest.approx(0.35 * 0.8 + 0.30 * 0.5 + 0.35 * 0.6875)
    assert e.details["weights_used"] == pytest.approx([0.35, 0.30, 0.35])


def test_weighted_score_renormalises_over_an_undefined_dq2_and_says_so():
    dq2 = anchoring_elimination([1.0])
    e = decision_quality_score(Estimate(0.8, n=5), dq2, 0.6875)
    assert e.value == pytest.approx(0.5 * 0.8 + 0.5 * 0.6875)
    assert e.details["renormalised"] is True and "renormalised" in e.method
    assert e.details["weights_used"] == pytest.approx([0.5, 0.0, 0.5])
    json.dumps(e.to_dict())


def test_weighted_score_custom_weights_and_undefined_parts():
    e = decision_quality_score(1.0, 0.0, 0.5, weights=(2, 1, 1))
    assert e.value == pytest.approx((2 * 1.0 + 0 + 0.5) / 4)
    assert not decision_quality_score(None, 0.5, 0.5).defined
    assert "DQ-3" in decision_quality_score(0.5, 0.5, None).undefined_reason
    with pytest.raises(ValueError):
        decision_quality_score(0.5, 0.5, 0.5, weights=(1, -1, 1))


def test_sequential_vs_parallel_comparison():
    seq = [0.42, 0.35, 0.51, 0.38, 0.47, None, 0.40, 0.33, 0.45, 0.39]
    par = [0.81, 0.77, 0.92, Estimate.undefined("one perspective"), 0.85, 0.79, 0.88, 0.90,
           0.74, 0.83]
    res = compare_sequential_parallel(seq, par)
    s = [v for v in seq if v is not None]
    p = [v for v in par if not isinstance(v, Estimate)]
    assert res.n_undefined_sequential == 1 and res.n_undefined_parallel == 1
    assert res.sequential.value == pytest.approx(np.mean(s)) and res.sequential.n == 9
    assert res.difference.value == pytest.approx(np.mean(p) - np.mean(s))
    assert res.difference.ci_low == mean_difference_ci(p, s).ci_low
    assert res.mann_whitney.value == 1.0 == mann_whitney_u(p, s).value   # complete separation
    assert res.cohens_d.value > 0
    json.dumps(res.to_dict())
