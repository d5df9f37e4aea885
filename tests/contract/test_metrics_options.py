"""`metrics`' protocol options (`--compare`, `--assess-concerns`, `--record-concerns`) go through the study's
protocol: one that names them in `metrics_options` reads them through its `analysis()`, every other
protocol's study refuses them with a usage error naming its protocol (never a traceback)."""

from __future__ import annotations

import pytest

from tests.contract.conftest import stage
from tests.contract.studies import BY_PROTOCOL, STUDIES
from workbench.cli.main import main
from workbench.protocol import registry


@pytest.mark.parametrize("protocol", [s.protocol for s in STUDIES])
def test_compare_goes_through_the_protocol(built, protocol, tmp_path, capsys):
    study = BY_PROTOCOL[protocol]
    db = stage(built, study, "judged", tmp_path)
    capsys.readouterr()
    code = main(["--batch", "--db", str(db), "metrics", study.name, "--compare", "Q1:Q2:no-such-metric"])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    if "compare" in registry.get(protocol).metrics_options:
        # its analysis reads the comparison and finds it does not fit the study (blinded, or an unknown
        # condition), naming the option
        assert code == 1 and "--compare:" in err, err
        assert registry.get(protocol).analysis() is not None
    else:
        assert code == 2 and f"not an option of {protocol} studies" in err, err
