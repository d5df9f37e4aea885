"""Running a shipped `studies/<protocol>-sim.toml` offline through the batch commands, for the simulator tests."""

from __future__ import annotations

import json
from pathlib import Path

import sqlite_utils

from workbench.cli.main import main

ROOT = Path(__file__).resolve().parents[2]


def sim_study(tmp_path: Path, name: str, replace: dict[str, str] | None = None, tag: str = "one") -> Path:
    """The shipped study file, copied beside the repository's cases (its relative paths still hold)."""
    text = (ROOT / "studies" / f"{name}.toml").read_text(encoding="utf-8")
    for old, new in (replace or {}).items():
        assert old in text, old
        text = text.replace(old, new)
    folder = tmp_path / tag / "studies"
    folder.mkdir(parents=True)
    (tmp_path / tag / "cases").symlink_to(ROOT / "cases")
    path = folder / f"{name}.toml"
    path.write_text(text, encoding="utf-8")
    return path


def cli(db: Path, *argv: str) -> None:
    code = main(["--batch", "--db", str(db), *argv])
    assert code == 0, argv


def run_sim(tmp_path: Path, name: str, replace: dict[str, str] | None = None, tag: str = "one") -> Path:
    """The shipped sim study `name` (with `replace`), created and run in a store of its own: the store's path."""
    db = tmp_path / f"{tag}.db"
    cli(db, "study", "create", str(sim_study(tmp_path, name, replace, tag)))
    cli(db, "run", name)
    return db


def hindsight_study(name: str, model: str, *, cases=("glenda-crock",), conditions=("B1",), raters=(),
                    judged: bool = True) -> str:
    """A small hindsight study file on `model` (seed 7), judged by `judge-a` on the same model unless not `judged`."""
    judges = f'\n[[judges]]\nname = "judge-a"\nmodel = "{model}"\n' if judged else ""
    return (f'name = "{name}"\nprotocol = "hindsight"\ncases = {json.dumps(list(cases))}\n'
            f"conditions = {json.dumps(list(conditions))}\nreplicates = 1\nraters = {json.dumps(list(raters))}\n"
            + ("" if judged else "judges = []\n") + f'\n[model]\nname = "{model}"\nseed = 7\n' + judges)


def created(tmp_path: Path, name: str, text: str) -> Path:
    """A store holding the study of TOML `text`, created from `name`.toml beside it: the store's path."""
    db = tmp_path / "store.db"
    path = tmp_path / f"{name}.toml"
    path.write_text(text, encoding="utf-8")
    cli(db, "study", "create", str(path))
    return db


def metrics_json(db: Path, study: str, capsys) -> dict:
    capsys.readouterr()
    assert main(["--batch", "--db", str(db), "--json", "metrics", study]) == 0
    return json.loads(capsys.readouterr().out)


def outputs(db: Path) -> list[tuple]:
    rows = sqlite_utils.Database(db).execute(
        "select r.case_id, r.condition, r.replicate, o.text from outputs o join runs r on r.id = o.run_id "
        "order by 1, 2, 3").fetchall()
    return [tuple(r) for r in rows]

