"""The instruments' frame: the corpus loader refuses bad files by name, outcomes are counted by kind, and
`read` prints what an instrument read."""

from __future__ import annotations

import json

import pytest

from workbench.cli.main import main
from workbench.instruments import Instrument
from workbench.instruments.accuracy import CORRECT, FLAGGED, SILENT, measure
from workbench.instruments.corpus import CorpusError, Entry, load


def _entry(i, text, truth):
    return Entry("echo", f"e{i}", "hand", f"layout{i}", text, truth)


def test_each_outcome_is_counted_by_kind():
    echo = Instrument("echo", "echo", read=lambda t, o: {"word": t.strip(), "flagged": t.strip() == "?",
                                                         "reason": ""},
                      agrees=lambda d, truth: d["word"] == truth["word"], describe=str)
    a = measure(echo, [_entry(1, "a", {"word": "a"}), _entry(2, "?", {"word": "b"}), _entry(3, "c", {"word": "d"})])
    assert (a.count(CORRECT), a.count(FLAGGED), a.count(SILENT)) == (1, 1, 1)
    assert a.layouts == 3 and [o.entry.id for o in a.silent()] == ["e3"]


def test_corpus_file_missing_a_key_is_refused_by_path_and_id(tmp_path):
    (tmp_path / "vote").mkdir()
    bad = tmp_path / "vote" / "bad.toml"
    bad.write_text('[[entry]]\nid = "x"\nsource = "hand"\nlayout = "l"\ntext = "VOTE: aye"\n')
    with pytest.raises(CorpusError, match=r"bad\.toml: entry 'x': missing truth"):
        load(tmp_path, "vote")


def test_read_prints_the_reading_and_the_flag(tmp_path, capsys):
    reply = tmp_path / "reply.txt"
    reply.write_text("I would rather hear more first.\n")
    assert main(["--batch", "--json", "read", "second", str(reply)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["second"] == "unreadable" and doc["flagged"] is True and doc["instrument"] == "second"


def test_read_names_a_missing_file(tmp_path, capsys):
    assert main(["--batch", "read", "vote", str(tmp_path / "nope.txt")]) == 1
    assert "nope.txt" in capsys.readouterr().err
