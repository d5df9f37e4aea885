"""The result type: undefined is explicit, NaN never gets in, JSON always works."""

import json
import math
import subprocess
import sys

import numpy as np
import pytest

from workbench.metrics import Estimate, to_jsonable, undefined


def test_defined_estimate_round_trips_through_json():
    e = Estimate(0.5, 0.25, 0.75, n=12, method="mean", confidence=0.95,
                 details={"sd": np.float64(0.3), "k": np.int64(4), "ok": np.bool_(True)})
    d = json.loads(json.dumps(e.to_dict()))
    assert d["value"] == 0.5 and d["ci_low"] == 0.25 and d["ci_high"] == 0.75
    assert d["n"] == 12 and d["details"] == {"sd": 0.3, "k": 4, "ok": True}
    assert d["undefined_reason"] is None
    assert e.defined and e.has_ci
    assert str(e) == "0.500 [0.250, 0.750] (n=12)"


def test_undefined_estimate_says_why_and_has_no_number():
    e = undefined("fewer than 2 raters", n=1, method="kappa")
    assert not e.defined and e.value is None and e.ci_low is None
    d = json.loads(json.dumps(e.to_dict()))
    assert d["value"] is None and d["undefined_reason"] == "fewer than 2 raters"
    assert "undefined" in str(e) and "fewer than 2 raters" in str(e)


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -math.inf])
def test_non_finite_values_are_rejected(bad):
    with pytest.raises(ValueError):
        Estimate(bad)
    with pytest.raises(ValueError):
        Estimate(0.1, bad, 0.2)


def test_inconsistent_states_are_rejected():
    with pytest.raises(ValueError):
        Estimate(None)                                 # no value, no reason
    with pytest.raises(ValueError):
        Estimate(0.3, undefined_reason="x")            # value and a reason
    with pytest.raises(ValueError):
        Estimate(0.3, 0.1, None)                       # half a CI
    with pytest.raises(ValueError):
        Estimate(0.3, 0.5, 0.1)                        # inverted CI


def test_to_jsonable_refuses_nan_leaking_from_details():
    with pytest.raises(ValueError):
        to_jsonable({"p": float("nan")})
    assert to_jsonable([np.array([1.0, 2.0]), (np.int32(3),)]) == [[1.0, 2.0], [3]]


def test_importing_the_metric_core_stays_light():
    code = ("import sys, workbench.metrics, workbench.metrics.embeddings;"
            "heavy = [m for m in ('scipy', 'krippendorff', 'torch', 'sentence_transformers',"
            " 'textual') if m in sys.modules]; print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
