"""studies/README.md lists every shipped example study, the `-sim` ones included, each in one table row."""

from __future__ import annotations

import tomllib
from pathlib import Path

STUDIES = Path(__file__).resolve().parents[2] / "studies"


def test_every_shipped_study_has_one_row_naming_its_protocol():
    rows = [line for line in (STUDIES / "README.md").read_text(encoding="utf-8").splitlines()
            if line.startswith("| `") and ".toml` |" in line]
    listed = {line.split("`")[1]: line for line in rows}
    shipped = sorted(p.name for p in STUDIES.glob("*.toml"))
    assert sorted(listed) == shipped, "studies/README.md's example table and studies/*.toml differ"
    assert len(rows) == len(shipped)  # one line each
    for name in shipped:
        protocol = tomllib.loads((STUDIES / name).read_text(encoding="utf-8")).get("protocol", "hindsight")
        assert f"| {protocol} " in listed[name], name
    assert any(n.endswith("-sim.toml") for n in shipped)
