"""Issue 33, item 2: nothing in an output folder that the workbench did not write is ever replaced or deleted
(workbench.files.write_folder and its manifest), and the TUI's proposed folders are absolute and distinct."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench.files import FolderNotEmpty, ForeignFile, folder_state, write_folder
from workbench.files.folder import MANIFEST


def files(names: dict[str, str]):
    def fill(tmp: Path) -> list[Path]:
        out = []
        for name, text in names.items():
            (tmp / name).parent.mkdir(parents=True, exist_ok=True)
            (tmp / name).write_text(text)
            out.append(tmp / name)
        return out
    return fill


def test_a_new_folder_gets_its_files_and_a_manifest_of_them(tmp_path):
    out = tmp_path / "out"
    written = write_folder(out, files({"a.csv": "1\n", "sub/b.txt": "2"}))
    assert written == [out / "a.csv", out / "sub" / "b.txt"]
    manifest = json.loads((out / MANIFEST).read_text())
    assert set(manifest["files"]) == {"a.csv", "sub/b.txt"}
    assert folder_state(out).ours == ("a.csv", "sub/b.txt") and folder_state(out).theirs == ()


def test_a_folder_holding_anything_is_written_only_when_asked_and_names_what_it_holds(tmp_path):
    out = tmp_path / "out"
    write_folder(out, files({"a.csv": "1\n"}))
    (out / "notes.txt").write_text("mine")
    with pytest.raises(FolderNotEmpty) as refused:
        write_folder(out, files({"a.csv": "new\n"}))
    assert "a.csv" in str(refused.value) and "notes.txt" in str(refused.value)
    assert (out / "a.csv").read_text() == "1\n"  # nothing written
    assert refused.value.state.ours == ("a.csv",) and refused.value.state.theirs == ("notes.txt",)


def test_replacing_touches_only_the_workbenchs_unchanged_files(tmp_path):
    out = tmp_path / "out"
    write_folder(out, files({"a.csv": "1\n", "old.csv": "stale\n", "edited.csv": "x\n"}))
    (out / "notes.txt").write_text("mine")
    (out / "edited.csv").write_text("the user's edit\n")  # edited since: no longer the workbench's
    write_folder(out, files({"a.csv": "2\n"}), replace=True)
    assert (out / "a.csv").read_text() == "2\n"
    assert not (out / "old.csv").exists()  # the workbench's, no longer written: removed
    assert (out / "notes.txt").read_text() == "mine" and (out / "edited.csv").read_text() == "the user's edit\n"
    assert set(json.loads((out / MANIFEST).read_text())["files"]) == {"a.csv"}


def test_a_file_of_the_users_is_never_replaced_even_when_asked(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "a.csv").write_text("mine\n")
    with pytest.raises(ForeignFile) as refused:
        write_folder(out, files({"a.csv": "theirs\n", "b.csv": "2\n"}), replace=True)
    assert str(out / "a.csv") in str(refused.value)
    assert (out / "a.csv").read_text() == "mine\n" and not (out / "b.csv").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]  # no temporary folder left


def test_the_proposed_folders_are_absolute_distinct_and_under_the_output_folder(tmp_path, monkeypatch):
    from workbench.exports.catalog import EXPORTS
    from workbench.files.defaults import default_output

    monkeypatch.setenv("WORKBENCH_OUTPUT_DIR", str(tmp_path / "outputs"))
    proposed = [default_output("s", e.id) for e in EXPORTS] + [default_output("s", "metrics-screen")]
    assert all(p.is_absolute() and p.is_relative_to(tmp_path / "outputs" / "s") for p in proposed)
    assert len(set(proposed)) == len(proposed)  # the Metrics save and the "Metrics" export differ
    monkeypatch.delenv("WORKBENCH_OUTPUT_DIR")
    assert default_output("s", "table").is_absolute()
