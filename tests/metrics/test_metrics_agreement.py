"""Kappa, percent agreement and Krippendorff's alpha against published output:
SAS PROC FREQ (via statsmodels' test suite), R irr (RExRepos interRaterICC.md
and statsmodels' irr comparisons), the krippendorff package docstring, and
hand computations."""

import json

import numpy as np
import pytest
from scipy import stats

from workbench.metrics import cohens_kappa, krippendorff_alpha, percent_agreement


def _from_table(table, labels=None):
    """Expand a contingency table (rows: rater A, cols: rater B) into two label lists."""
    labels = labels or list(range(len(table)))
    a, b = [], []
    for i, row in enumerate(table):
        for j, count in enumerate(row):
            a += [labels[i]] * count
            b += [labels[j]] * count
    return a, b


SAS_TABLE10 = [[0, 4, 1], [0, 8, 0], [0, 1, 5]]


def test_unweighted_kappa_matches_sas_proc_freq():
    # SAS: Kappa 0.4842, ASE 0.1380, 95% CL 0.2137-0.7547; H0: ASE 0.1484, Z 3.2626, p 0.0011
    e = cohens_kappa(*_from_table(SAS_TABLE10))
    assert e.value == pytest.approx(0.4842, abs=5e-5)
    assert e.details["ase"] == pytest.approx(0.1380, abs=5e-5)
    assert (e.ci_low, e.ci_high) == pytest.approx((0.2137, 0.7547), abs=5e-5)
    assert e.details["ase_h0"] == pytest.approx(0.1484, abs=5e-5)
    assert e.details["z"] == pytest.approx(3.2626, abs=5e-5)
    assert e.details["p_value"] == pytest.approx(0.0011, abs=5e-5)
    assert e.n == 19


def test_linear_weighted_kappa_matches_sas_proc_freq():
    # SAS weighted kappa (Cicchetti-Allison = linear): 0.4701, ASE 0.1457, CL 0.1845-0.7558
    e = cohens_kappa(*_from_table(SAS_TABLE10), weights="linear")
    assert e.value == pytest.approx(0.4701, abs=5e-5)
    assert e.details["ase"] == pytest.approx(0.1457, abs=5e-5)
    assert (e.ci_low, e.ci_high) == pytest.approx((0.1845, 0.7558), abs=5e-5)
    assert e.details["ase_h0"] == pytest.approx(0.1426, abs=5e-5)
    assert e.details["z"] == pytest.approx(3.2971, abs=5e-5)


VNP = [[53, 5, 2], [11, 14, 5], [1, 6, 3]]


def test_kappa_and_agreement_match_irr_and_hand_computation():
    a, b = _from_table(VNP, ["V", "N", "P"])
    e = cohens_kappa(a, b)
    # by hand: p_o = (53+14+3)/100; p_e = (60*65 + 30*25 + 10*10)/100^2
    p_o, p_e = 0.70, (60 * 65 + 30 * 25 + 10 * 10) / 100 ** 2
    assert e.value == pytest.approx((p_o - p_e) / (1 - p_e), abs=1e-12)
    assert round(e.value, 3) == 0.429                       # irr::kappa2 -> Kappa = 0.429
    assert round(e.details["z"], 2) == 5.46                 # irr: z = 5.46
    pa = percent_agreement(a, b)
    assert pa.value == 0.70                                 # irr::agree -> %-agree = 70
    ci = stats.binomtest(70, 100).proportion_ci(method="wilson")
    assert (pa.ci_low, pa.ci_high) == pytest.approx((ci.low, ci.high), abs=1e-12)


def test_linear_weighted_kappa_6x6_matches_irr():
    table = [[5, 8, 1, 2, 4, 2], [3, 5, 3, 5, 5, 0], [1, 2, 6, 11, 2, 1],
             [0, 1, 5, 4, 3, 3], [0, 0, 1, 2, 5, 2], [0, 0, 1, 2, 1, 4]]
    e = cohens_kappa(*_from_table(table), weights="linear")
    assert round(e.value, 3) == 0.316                       # irr::kappa2(weight="equal")
    assert round(e.details["z"], 2) == 5.38


# Anxiety ratings (irr package data), raters 2 and 3; values from irr::kappa2.
ANX_R2 = [3, 6, 4, 6, 2, 4, 2, 4, 3, 3, 2, 3, 3, 3, 2, 2, 1, 3, 3, 4]
ANX_R3 = [2, 1, 4, 4, 3, 2, 1, 6, 1, 1, 1, 2, 3, 3, 1, 1, 3, 3, 2, 2]


@pytest.mark.parametrize("weights, kappa, z", [
    (None, -0.006289308, -0.0604067),
    ("linear", 0.1459075, 1.282472),
    ("quadratic", 0.2520325, 1.437451),
])
def test_kappa_on_irr_anxiety_data(weights, kappa, z):
    e = cohens_kappa(ANX_R2, ANX_R3, weights=weights)
    assert e.value == pytest.approx(kappa, abs=5e-8)
    assert e.details["z"] == pytest.approx(z, abs=5e-6)


def test_quadratic_kappa_equals_its_moment_identity():
    # For equally spaced scores, quadratic kappa = 2 cov / (var_a + var_b + (mean_a - mean_b)^2)
    # with 1/n moments -- a route that never builds the weight matrix.
    rng = np.random.default_rng(4)
    a = rng.integers(0, 4, 60)
    b = np.clip(a + rng.integers(-1, 2, 60), 0, 3)
    e = cohens_kappa(a.tolist(), b.tolist(), weights="quadratic", categories=[0, 1, 2, 3])
    cov = np.mean((a - a.mean()) * (b - b.mean()))
    ref = 2 * cov / (a.var() + b.var() + (a.mean() - b.mean()) ** 2)
    assert e.value == pytest.approx(ref, abs=1e-12)


def test_unused_category_matters_for_linear_weights_only_when_declared():
    a, b = [0, 1, 3, 3, 1, 0], [0, 3, 3, 1, 1, 0]
    observed = cohens_kappa(a, b, weights="linear")
    full = cohens_kappa(a, b, weights="linear", categories=[0, 1, 2, 3])
    assert observed.details["categories"] == ["0", "1", "3"]
    assert full.value != pytest.approx(observed.value)


def test_kappa_pairwise_deletion_and_degenerate_cases():
    e = cohens_kappa([1, 2, None, 1, 2, 2], [1, 2, 1, float("nan"), 1, 2])
    assert e.n == 4 and e.details["n_dropped"] == 2
    assert e.value == pytest.approx(cohens_kappa([1, 2, 2, 2], [1, 2, 1, 2]).value)
    none = cohens_kappa([1, None], [None, 2])
    assert not none.defined and "both raters" in none.undefined_reason
    single = cohens_kappa([2, 2, 2], [2, 2, 2])
    assert not single.defined and "chance agreement is 1" in single.undefined_reason
    perfect = cohens_kappa([0, 1, 2, 1], [0, 1, 2, 1])
    assert perfect.value == 1.0 and not perfect.has_ci
    with pytest.raises(ValueError):
        cohens_kappa([0, 5], [0, 1], categories=[0, 1, 2])


def test_percent_agreement_with_tolerance():
    e = percent_agreement([0, 1, 2, 3], [1, 1, 0, 3], tolerance=1)
    assert e.value == 0.75 and e.details["n_agree"] == 3
    assert not percent_agreement([None], [1]).defined


# krippendorff package docstring example (its README/docstring values).
KRIPP_DOC = [[np.nan, np.nan, np.nan, np.nan, np.nan, 3, 4, 1, 2, 1, 1, 3, 3, np.nan, 3],
             [1, np.nan, 2, 1, 3, 3, 4, 3, np.nan, np.nan, np.nan, np.nan, np.nan, np.nan, np.nan],
             [np.nan, np.nan, 2, 1, 3, 4, 4, np.nan, 2, 1, 1, 3, 3, np.nan, 4]]
KRIPP_PAGE8 = [[1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
               [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
               [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
               [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None]]


def test_krippendorff_alpha_matches_package_documentation():
    assert round(krippendorff_alpha(KRIPP_DOC, level="nominal").value, 6) == 0.691358
    assert round(krippendorff_alpha(KRIPP_DOC, level="interval").value, 6) == 0.810845
    assert round(krippendorff_alpha(KRIPP_PAGE8, level="ordinal").value, 3) == 0.815
    assert round(krippendorff_alpha(KRIPP_PAGE8, level="ratio").value, 3) == 0.797


def test_krippendorff_alpha_on_labels():
    words = {1: "very low", 2: "low", 3: "mid", 4: "high", 5: "very high"}
    labelled = [[None if v is None else words[v] for v in row] for row in KRIPP_PAGE8]
    domain = ["very low", "low", "mid", "high", "very high"]
    ordinal = krippendorff_alpha(labelled, level="ordinal", value_domain=domain)
    assert round(ordinal.value, 3) == 0.815
    assert round(krippendorff_alpha(labelled, level="nominal").value, 3) == 0.743
    with pytest.raises(ValueError):
        krippendorff_alpha(labelled, level="ordinal")           # order unknown


def test_krippendorff_alpha_counts_pairable_units_and_takes_a_mapping():
    e = krippendorff_alpha({"a": KRIPP_DOC[0], "b": KRIPP_DOC[1], "c": KRIPP_DOC[2]},
                           level="nominal")
    assert e.n == 12 and e.details["n_units"] == 15 and e.details["n_raters"] == 3
    json.dumps(e.to_dict())


def test_krippendorff_bootstrap_ci_is_seeded_and_brackets_the_estimate():
    a = krippendorff_alpha(KRIPP_PAGE8, level="interval", n_boot=300, seed=3)
    b = krippendorff_alpha(KRIPP_PAGE8, level="interval", n_boot=300, seed=3)
    assert a.has_ci and (a.ci_low, a.ci_high) == (b.ci_low, b.ci_high)
    assert a.ci_low <= a.value <= a.ci_high


def test_krippendorff_degenerate_cases():
    assert "fewer than 2 raters" in krippendorff_alpha([[1, 2, 3]]).undefined_reason
    no_pairs = krippendorff_alpha([[1, None], [None, 2]])
    assert not no_pairs.defined and "at least two raters" in no_pairs.undefined_reason
    same = krippendorff_alpha([[2, 2, 2], [2, 2, None]])
    assert not same.defined and "identical" in same.undefined_reason


def test_interval_closed_form_equals_the_package(monkeypatch):
    import workbench.metrics.agreement as agreement

    rng = np.random.default_rng(12)
    truth = rng.random(40)
    data = [np.clip(truth + rng.normal(0, 0.2, 40), 0, 1).tolist() for _ in range(3)]
    data[1][5] = None
    data[2][7] = data[0][7] = None                 # unit 7 has one rating: not pairable
    via_package = krippendorff_alpha(data, level="interval").value
    monkeypatch.setattr(agreement, "_DENSE_LIMIT", 0)
    assert krippendorff_alpha(data, level="interval").value == pytest.approx(via_package, abs=1e-12)
    assert round(krippendorff_alpha(KRIPP_DOC, level="interval").value, 6) == 0.810845
    with pytest.raises(ValueError):
        krippendorff_alpha(data, level="ratio")


def test_large_continuous_panel_stays_cheap():
    # 1000 items x 3 judges of continuous scores: ~3000 distinct values.
    rng = np.random.default_rng(1)
    truth = rng.random(1000)
    data = [(truth + rng.normal(0, 0.1, 1000)).tolist() for _ in range(3)]
    e = krippendorff_alpha(data, level="interval")
    assert 0.8 < e.value < 0.95 and e.n == 1000


def test_kappa_over_a_single_item_is_undefined_not_zero():
    """Issue 13: one item with two different scores gave p_o = p_e = 0, printed as kappa 0.000."""
    from workbench.metrics.agreement import cohens_kappa

    est = cohens_kappa([2], [3], categories=[0, 1, 2, 3])
    assert est.value is None and "only 1 item" in est.undefined_reason
    est = cohens_kappa([2, None], [3, 1])   # one pairable item after deletion
    assert est.value is None and "only 1 item" in est.undefined_reason
    # two items is the smallest defined case: [0,1] vs [0,1] agree perfectly -> kappa 1 (p_o 1, p_e 1/2)
    assert cohens_kappa([0, 1], [0, 1]).value == 1.0


def test_alpha_over_a_single_pairable_unit_is_undefined():
    from workbench.metrics.agreement import krippendorff_alpha

    est = krippendorff_alpha([[1, None, 2], [2, 3, None]], level="ordinal")
    assert est.value is None and "only 1 unit" in est.undefined_reason
    # two pairable units, hand-computed (nominal): values {1,1},{2,3}: o_11 = 2, o_23 = o_32 = 1, n = 4;
    # D_o = 2/4, D_e = (n_1 n_2 + n_1 n_3 + n_2 n_3) * 2 / (4*3) = (2+2+1)*2/12 = 10/12 -> alpha = 1 - 0.5/(10/12) = 0.4
    est = krippendorff_alpha([[1, 2], [1, 3]], level="nominal")
    assert est.value == pytest.approx(0.4)
