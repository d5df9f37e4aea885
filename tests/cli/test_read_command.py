"""`workbench --batch read INSTRUMENT FILE [--json]` as issue 41 names it: for b3, cruxes, second, vote and cues,
every key the issue lists is printed with a value of its kind, the options change the reading, and a file the
command cannot take is refused (exit 1) naming the file or the key, never with a traceback.

The sentence models are replaced by a fake that gives each text a unit vector drawn from its first four words,
nudged by the whole text (texts that open alike meet at cosine ~0.9, a text equal to a labelled example at 1,
any other pair near 0): what is under test here is the command, not
the models (tests/instruments/test_floors.py measures those)."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest

from workbench.cli.main import main

B3 = ("## Legal\nThe demand is coercion.\n\n## Financial\nFunders may leave.\n\n## Mission\nThe filters protect "
      "users.\n\n## Recommendation\nResist.")
# one crux reworded in each of three runs (the fake model puts texts that open alike near each other), and one
# question asked once in each run
RECURRING = ["Will the central bank raise rates before the third quarter?",
             "Will the central bank hike rates ahead of Q3?", "Will the central bank lift rates before July?"]
CRUX_RUNS = [[crux, f"Is question {i} the one that matters?"] for i, crux in enumerate(RECURRING, start=1)]
# one of glenda-crock's labelled paraphrases of coercion recognition (workbench/cue_audit/exemplars.toml)
CUE = "A threat used to force a policy change is blackmail, not a negotiation."


class FakeEmbedder:
    """A unit vector per text: its first four words' draw plus a third of its own (256 dimensions)."""

    model = "fake"

    @staticmethod
    def _draw(text: str):
        return np.random.default_rng(int(hashlib.sha256(text.casefold().encode()).hexdigest()[:8], 16)).normal(
            size=256)

    def embed(self, texts):
        v = np.array([self._draw(" ".join(t.split()[:4])) + self._draw(t) / 3 for t in texts])
        return v / np.linalg.norm(v, axis=1, keepdims=True)


@pytest.fixture(autouse=True)
def fake_models(monkeypatch):
    from workbench.cue_audit import instrument as cues
    from workbench.protocols.faultline import equivalence
    from workbench.protocols.faultline import instruments as faultline

    monkeypatch.setattr(cues, "_EMBEDDER", [FakeEmbedder()])
    monkeypatch.setattr(faultline, "_EMBEDDERS", {equivalence.CRUX_EMBEDDING: FakeEmbedder()})


def read(tmp_path, capsys, instrument, text, *options, name="input.txt"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    code = main(["--batch", "--json", "read", instrument, str(path), *options])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if code == 0 else err)


def test_b3_gives_the_perspectives_the_flag_and_its_reason_and_asked_changes_the_flag(tmp_path, capsys):
    code, doc = read(tmp_path, capsys, "b3", B3)
    assert code == 0 and doc["perspectives"] == ["Legal", "Financial", "Mission"]
    assert doc["flagged"] is False and isinstance(doc["reason"], str)
    code, doc = read(tmp_path, capsys, "b3", B3, "--asked", "4-5")
    assert doc["flagged"] is True and "3 perspectives" in doc["reason"] and "4-5" in doc["reason"]


def test_cruxes_give_cr_clusters_and_the_flag_for_each_method(tmp_path, capsys):
    text = json.dumps(CRUX_RUNS)
    code, doc = read(tmp_path, capsys, "cruxes", text, name="cruxes.json")
    assert code == 0 and {"cr", "clusters", "flagged", "reason"} <= set(doc)
    # one crux asked in all three runs of three, the three others once each: one stable cluster of four
    assert doc["cr"] == pytest.approx(0.25) and doc["flagged"] is False
    assert [c["runs"] for c in doc["clusters"]] == [[1, 2, 3]]
    code, by_embedding = read(tmp_path, capsys, "cruxes", text, "--equivalence", "embedding", name="cruxes.json")
    assert code == 0 and by_embedding["cr"] == pytest.approx(0.25)
    assert "average linkage" in by_embedding["method"] and by_embedding["method"] != doc["method"]


def test_cruxes_by_the_model_s_check_need_the_model_named(tmp_path, capsys):
    """(The check itself, asked through the gateway of the built-in mock model, is
    tests/protocols/faultline/test_crux_equivalence.py's: a litellm import is too slow for here.)"""
    code, err = read(tmp_path, capsys, "cruxes", json.dumps(CRUX_RUNS), "--equivalence", "model",
                     name="cruxes.json")
    assert code == 1 and "cruxes.json" in err and "--equivalence model needs --model" in err


@pytest.mark.parametrize("text, second", [("SECOND: yes\nIt deserves debate.", "yes"),
                                          ("SECOND: no\nNot this one.", "no"),
                                          ("I would like to hear more before deciding.", "unreadable")])
def test_second_is_yes_no_or_unreadable_and_only_unreadable_is_flagged(tmp_path, capsys, text, second):
    code, doc = read(tmp_path, capsys, "second", text)
    assert code == 0 and doc["second"] == second and doc["flagged"] is (second == "unreadable")


@pytest.mark.parametrize("text, vote", [("VOTE: aye\nIt protects users.", "aye"), ("VOTE: nay\nToo risky.", "nay"),
                                        ("VOTE: abstain\nI am conflicted.", "abstain"),
                                        ("VOTE: aye\nVOTE: nay", "unreadable")])
def test_vote_is_aye_nay_abstain_or_unreadable_and_only_unreadable_is_flagged(tmp_path, capsys, text, vote):
    code, doc = read(tmp_path, capsys, "vote", text)
    assert code == 0 and doc["vote"] == vote and doc["flagged"] is (vote == "unreadable")


def test_cues_list_each_criterion_with_the_sentence_that_cues_it(tmp_path, capsys):
    code, doc = read(tmp_path, capsys, "cues", f"Read the case.\n{CUE}", "--rubric", "glenda-crock")
    assert code == 0 and doc["cues"] == [{**doc["cues"][0], "criterion": "coercion_recognition", "sentence": CUE}]
    assert doc["flagged"] is False and doc["sentences"] == 2


@pytest.mark.parametrize("instrument", ["b3", "cruxes", "second", "vote", "cues"])
def test_a_missing_file_is_named(tmp_path, capsys, instrument):
    options = ["--rubric", "glenda-crock"] if instrument == "cues" else []
    assert main(["--batch", "read", instrument, str(tmp_path / "nowhere.txt"), *options]) == 1
    err = capsys.readouterr().err
    assert "nowhere.txt" in err and "Traceback" not in err


@pytest.mark.parametrize("text, says", [('[["Will rates rise?"', "not JSON"),
                                        ('{"runs": 5}', "must be a JSON list of runs"),
                                        ('[["Will rates rise?", 7]]', "run 1, crux 2")])
def test_a_crux_file_that_is_not_runs_of_questions_is_refused_by_name(tmp_path, capsys, text, says):
    code, err = read(tmp_path, capsys, "cruxes", text, name="bad.json")
    assert code == 1 and "bad.json" in err and says in err


def test_an_unknown_rubric_is_refused_naming_it_and_the_shipped_ones(tmp_path, capsys):
    code, err = read(tmp_path, capsys, "cues", CUE, "--rubric", "no-such-rubric")
    assert code == 1 and "'no-such-rubric'" in err and "glenda-crock" in err
    code, err = read(tmp_path, capsys, "cues", CUE)
    assert code == 1 and "--rubric is required" in err


def test_an_invalid_rubric_file_is_refused_naming_the_file_and_line(tmp_path, capsys):
    broken = tmp_path / "mine.toml"
    broken.write_text('id = "mine"\n[[criteria\n', encoding="utf-8")
    code, err = read(tmp_path, capsys, "cues", CUE, "--rubric", str(broken))
    assert code == 1 and "mine.toml:" in err and "invalid TOML" in err and "Traceback" not in err
    incomplete = tmp_path / "incomplete.toml"
    incomplete.write_text('name = "x"\n', encoding="utf-8")
    code, err = read(tmp_path, capsys, "cues", CUE, "--rubric", str(incomplete))
    assert code == 1 and "incomplete.toml:1: criteria: is required" in err
