"""Evaluator quality as text: `evaluators qc STUDY` prints `quality_text`, the study report adds
`report_section`; both from `study.study_quality`, the numbers the evaluator panel shows."""

from __future__ import annotations

import sqlite_utils

from workbench.evaluators.study import COLUMNS, StudyQuality, share, study_quality


def table_text(headings: tuple[str, ...] | list[str], body: list[list[str]]) -> list[str]:
    widths = [max(len(str(c)) for c in col) for col in zip(headings, *body)]
    line = lambda cells: "  ".join(str(c).ljust(w) for c, w in zip(cells, widths)).rstrip()  # noqa: E731
    return [line(headings), line(["-" * w for w in widths]), *(line(r) for r in body)]


def head_lines(sq: StudyQuality) -> list[str]:
    """What the study pre-registered and planted (the lines above the table)."""
    s = sq.settings
    lines = [f"evaluator quality of {sq.study_id}"]
    if sq.simulated is not None:
        planted = ", ".join(f"{r} {k}" for r, k in sorted(sq.simulated.items())) or "none"
        lines.append(f"SIMULATED: the raters are simulated, with planted quality ({planted}); the judges are the "
                     "`sim` model")
    source = (f"gold file {s['gold_file']}" if s.get("gold_file") else "built from each case's outcome record")
    lines.append(f"planted: {sq.planted['gold']} gold item(s) (rate {s['gold_rate']:g}, {source}), "
                 f"{sq.planted['attention']} attention item(s) (rate {s['attention_rate']:g}, raters only); "
                 f"time floor {s['time_floor_seconds']:g} s")
    if sq.lengths:
        n = sq.lengths
        lines.append(f"length band: real items {n['real'][0]}-{n['real'][1]} characters, planted "
                     f"{n['planted'][0]}-{n['planted'][1]}; {n['outside']} planted item(s) outside the band"
                     + (" (a length can tell them apart: adjust the gold file's texts)" if n["outside"] else ""))
    for o in sq.gold_left_out:
        lines.append(f"gold file {s['gold_file']}: item '{o['name']}' left out: {o['length']} characters, outside "
                     f"the real items' length band {o['band'][0]}-{o['band'][1]} characters (a length would tell "
                     "it apart)")
    lines.append("exclusion rules: " + ("; ".join(sq.rules) if sq.rules else "none pre-registered"))
    if sq.rules:
        lines.append("decisions: " + ("recorded (they decide what leaves the tables)" if sq.recorded else
                                      "not recorded yet: provisional; they are taken by `evaluators qc STUDY "
                                      "--apply` or at unblinding"))
    return lines


def tail_lines(sq: StudyQuality) -> list[str]:
    """The rules that fired, the judges' review agreement and the deviations (the lines below the table)."""
    lines: list[str] = []
    fired_lines = [f"  {q.evaluator}: {', '.join(sq.decision(q)[1])}" for q in sq.evaluators if sq.decision(q)[1]]
    if fired_lines:
        lines += ["rules that fired:", *fired_lines]
    if sq.reviews:
        lines += ["blind review of judge verdicts (" + ("tables read corrected verdicts" if
                  sq.settings["verdicts"] == "corrected" else "tables read the original verdicts") + "):"]
        lines += [f"  {r.judge}: {r.reviewed} reviewed, {r.right} right, {r.corrected} corrected; agreement "
                  f"{share(r.agreement)}" + (f", mean correction {r.mean_abs_correction:.2f} points"
                                              if r.mean_abs_correction is not None else "") for r in sq.reviews]
    if sq.deviations():
        lines += ["DEVIATIONS (overrides of the pre-registered rules):", *(f"  {d}" for d in sq.deviations())]
    return lines


def quality_text(sq: StudyQuality) -> str:
    """What `evaluators qc STUDY` prints, and the body of the report's section."""
    tail = tail_lines(sq)
    return "\n".join([*head_lines(sq), "", *table_text(COLUMNS, sq.rows()), *([""] + tail if tail else [])])


def report_section(db: sqlite_utils.Database, study_id: str) -> str:
    """The report's "Evaluator quality" section (markdown): every evaluator, their quality, excluded or not."""
    sq = study_quality(db, study_id)
    if not sq.evaluators:
        return ""
    return "## Evaluator quality\n\n```\n" + quality_text(sq) + "\n```\n" + _choices(sq)


def _choices(sq: StudyQuality) -> str:
    notes = ["The definitions of the figures are the project's own (workbench/evaluators/quality.py): gold accuracy "
             "over the criteria a gold item expects; time per item from the desk's open-to-save time (or a "
             "packet's seconds); straight-lining over the evaluator's values in their own order; agreement as "
             "Spearman's rho with the mean of the other evaluators on the real items; drift as gold accuracy of "
             "the second half of the gold items minus the first."]
    if not sq.settings.get("gold_file") and sq.planted["gold"]:
        notes.append("Gold items were built from each case's outcome record (the project's own choice): one "
                     "that names every outcome point as a risk and stages the plan around it, expected at the top "
                     "of every criterion, and one that names no risk and claims certainty, expected at the bottom.")
    return "\n" + "\n\n".join(notes) + "\n"


