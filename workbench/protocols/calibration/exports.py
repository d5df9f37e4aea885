"""The files downstream studies read: the fidelity folder, judge_scores.csv, and the joined CSV with its schema.

    <out>/<timestamp>_calibration_fidelity/  reliability_bins.csv, k_sweep.csv, reliability.png, k_sweep.png
    <out>/<timestamp>_calibration_judge/     judge_scores.csv, joined.csv, joined.schema.json, agreement.json

The joined CSV's columns are the frozen `joined_schema` of the study; writing
refuses a row set whose columns differ from it (it cannot, by construction,
but the check is what a downstream join relies on).

A simulated study's files carry the SIMULATED mark (workbench.simulation.marks): a first column `simulated`
on every CSV (the joined CSV's too, named in its schema document), `"simulated": true` and the banner in every
JSON, the label in each plot's title.
"""

from __future__ import annotations

import csv
import json
import statistics
import time
from pathlib import Path

from workbench.protocols.calibration.results import StudyData, study_results
from workbench.protocols.calibration.sampling import p_bin

JUDGE_SCORE_COLUMNS = ["run_id", "interaction_id", "scenario", "p", "p_bin", "judge", "model", "score",
                       "judge_error", "prompt_refused", "error", "rubric_sha256", "judge_run"]
COLUMN_DOC = {
    "run_id": ("string", "the static-baseline run the interaction came from: the join key"),
    "interaction_id": ("string", "the interaction's id within its run"),
    "scenario": ("string", "the scenario the interaction belongs to"),
    "v_hat": ("number", "the proxy's score as imported"),
    "p": ("number", "sigmoid(k · v_hat) at the pre-registered k"),
    "ground_truth": ("integer", "+1 or -1, the realised label"),
    "p_bin": ("integer", "the p bin (0-based) of the stratified sample, strata_bins equal-width bins"),
    "sampled": ("integer", "1 if the interaction is in Arm B's stratified sample, else 0"),
    "judge_n": ("integer", "how many judges gave a valid score"),
    "judge_mean": ("number", "the judges' mean score; empty without a score"),
    "judge_sd": ("number", "the judges' standard deviation (n-1); empty with fewer than 2 scores"),
    "judge_errors": ("integer", "judges whose reply stayed invalid (judge_error) or whose prompt was refused"),
    "panel_alpha": ("number", "Krippendorff's alpha (interval) of the whole panel: the same on every row"),
    "panel_icc": ("number", "ICC(2,1) of the whole panel: the same on every row"),
    "panel_verdict": ("string", "the study's outcome, as the report states it: strong, poorly_calibrated, "
                                "judges_disagree, proxy_judges_disagree, or none (no pre-registered outcome holds "
                                "or can be decided); the same on every row"),
    "schema_version": ("integer", "the pre-registered schema version"),
    "simulated": ("string", "SIMULATED on every row of a study on the offline `sim` model: no number in it is a "
                            "model's or a person's"),
}


class SchemaMismatch(Exception):
    pass


def stamp() -> str:
    return time.strftime("%Y%m%dT%H%M%S")


def export_all(db, study_id: str, out: str | Path, *, when: str | None = None, data: StudyData | None = None
               ) -> dict:
    """Write both folders; returns their paths and the metrics document they were written from."""
    from workbench.protocols.calibration.results import load

    data = data or load(db, study_id)
    doc = study_results(db, study_id, data)
    when = when or stamp()
    fidelity = write_fidelity(doc["arm_a"], Path(out) / f"{when}_calibration_fidelity", data.definition)
    judge = write_judge_folder(data, doc, Path(out) / f"{when}_calibration_judge")
    return {"fidelity": str(fidelity), "judge": str(judge), "document": doc}


def write_fidelity(arm_a: dict, folder: Path, definition: dict | None = None) -> Path:
    """The fidelity folder, written whole (workbench.files): a full disk leaves no partial folder
    (`definition`: the study's, for the SIMULATED mark)."""
    from workbench.files import write_folder
    from workbench.simmodel.label import LABEL, is_simulated
    from workbench.simulation.marks import mark_json

    def fill(tmp: Path) -> list[Path]:
        bins = arm_a["calibration"]["bins"]
        bin_columns = ["bin_lower", "bin_upper", "count", "mean_p", "frequency_positive", "gap"]
        _write_csv(tmp / "reliability_bins.csv", bin_columns,
                   [dict(zip(bin_columns, [b["lower"], b["upper"], b["count"], _cell(b["mean_predicted"]),
                                           _cell(b["observed_frequency"]), _cell(b["gap"])])) for b in bins],
                   definition)
        _write_csv(tmp / "k_sweep.csv", ["k", "ece", "mce", "brier"],
                   [{"k": pt["k"], "ece": _cell(pt["ece"]["value"]), "mce": _cell(pt["mce"]["value"]),
                     "brier": _cell(pt["brier"]["value"])} for pt in arm_a["k_sweep"]["points"]], definition)
        (tmp / "summary.json").write_text(json.dumps(mark_json(arm_a, definition), indent=2), encoding="utf-8")
        plot_reliability(arm_a, tmp / "reliability.png", tmp / "k_sweep.png",
                         mark=f" ({LABEL})" if is_simulated(definition) else "")
        return [tmp / n for n in ("reliability_bins.csv", "k_sweep.csv", "summary.json", "reliability.png",
                                  "k_sweep.png")]

    write_folder(folder, fill)
    return folder


def plot_reliability(arm_a: dict, reliability_png: Path, sweep_png: Path, mark: str = "") -> None:
    """Both plots; `mark` ends each title (a simulated study's label)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    bins = [b for b in arm_a["calibration"]["bins"] if b["count"]]
    fig, ax = plt.subplots(figsize=(5, 5))
    ax.plot([0, 1], [0, 1], linestyle="--", color="grey", label="perfect calibration")
    ax.plot([b["mean_predicted"] for b in bins], [b["observed_frequency"] for b in bins], marker="o",
            label=f"p = sigmoid({arm_a['k']:g} · v_hat)")
    for b in bins:
        ax.annotate(str(b["count"]), (b["mean_predicted"], b["observed_frequency"]), fontsize=7,
                    textcoords="offset points", xytext=(4, -10))
    ece = arm_a["calibration"]["ece"]["value"]
    ax.set(xlim=(0, 1), ylim=(0, 1), xlabel="mean p in bin", ylabel="frequency of ground_truth = +1",
           title=(f"Reliability (ECE {ece:.3f})" if ece is not None else "Reliability (no data)") + mark)
    ax.legend(loc="upper left")
    fig.tight_layout()
    fig.savefig(reliability_png, dpi=100)
    plt.close(fig)
    pts = [p for p in arm_a["k_sweep"]["points"] if p["ece"]["value"] is not None]
    fig, ax = plt.subplots(figsize=(5, 3.5))
    ax.plot([p["k"] for p in pts], [p["ece"]["value"] for p in pts], marker=".")
    best = arm_a["k_sweep"]["best_k"]
    if best is not None:
        ax.axvline(best, color="grey", linestyle=":", label=f"best k = {best:g}")
        ax.legend()
    ax.set(xlabel="k", ylabel="ECE", title="ECE against the sigmoid slope k" + mark)
    fig.tight_layout()
    fig.savefig(sweep_png, dpi=100)
    plt.close(fig)


def judge_score_rows(data: StudyData) -> list[dict]:
    by_id = {i.id: i for i in data.interactions}
    n_bins = data.options["strata_bins"]
    rows = []
    for r in sorted(data.judge_rows, key=lambda r: (r["item_id"], r["judge"])):
        i = by_id.get(r["item_id"])
        rows.append({"run_id": r.get("run_id"), "interaction_id": r.get("interaction_id"),
                     "scenario": i.scenario if i else "", "p": i.p if i else "",
                     "p_bin": p_bin(i.p, n_bins) if i else "", "judge": r["judge"], "model": r.get("model", ""),
                     "score": _cell(r.get("score")), "judge_error": int(bool(r.get("judge_error"))),
                     "prompt_refused": int(bool(r.get("prompt_refused"))), "error": r.get("error", ""),
                     "rubric_sha256": r.get("rubric_sha256", ""), "judge_run": r["judge_run"]})
    return rows


def joined_rows(data: StudyData, doc: dict) -> list[dict]:
    from workbench.protocols.calibration.section import judge_column

    o = data.options
    sampled = set(data.sampled)
    alpha, icc = doc["arm_c"]["alpha"]["value"], doc["arm_c"]["icc_2_1"]["value"]
    verdict = panel_verdict(doc["outcome"])
    rows = []
    for i in sorted((i for i in data.interactions if i.accepted), key=lambda i: i.id):
        scores = data.scores.get(i.id, {})
        vals = list(scores.values())
        row = {"run_id": i.run_id, "interaction_id": i.interaction_id, "scenario": i.scenario, "v_hat": i.v_hat,
               "p": i.p, "ground_truth": i.ground_truth, "p_bin": p_bin(i.p, o["strata_bins"]),
               "sampled": int(i.id in sampled)}
        for j in data.judges:
            row[judge_column(j["name"])] = _cell(scores.get(j["name"]))
        row.update({"judge_n": len(vals), "judge_mean": _cell(sum(vals) / len(vals) if vals else None),
                    "judge_sd": _cell(statistics.stdev(vals) if len(vals) >= 2 else None),
                    "judge_errors": len(data.failures.get(i.id, {})), "panel_alpha": _cell(alpha),
                    "panel_icc": _cell(icc), "panel_verdict": verdict, "schema_version": o["schema_version"]})
        rows.append(row)
    return rows


def panel_verdict(outcome: dict) -> str:
    """The joined CSV's `panel_verdict`: the outcome `outcomes.decide` reached (the report's), never a verdict
    of its own (Arm C's α alone would call a poorly calibrated proxy with agreeing judges "strong")."""
    return outcome["holds"] or "none"


def schema_document(data: StudyData) -> dict:
    """joined.csv's schema: its columns as written (a simulated study's first column `simulated` too)."""
    from workbench.simulation.marks import mark_json, mark_rows

    o = data.options
    columns = []
    for name in mark_rows(list(o["joined_schema"]), [], data.definition)[0]:
        kind, text = COLUMN_DOC.get(name, ("number", "this judge's score on [0, 1]; empty if it gave none"))
        columns.append({"name": name, "type": kind, "description": text})
    return mark_json({"schema_version": o["schema_version"], "study": data.study_id,
                      "join_key": ["run_id", "interaction_id"], "rubric": o["rubric"],
                      "rubric_sha256": o["rubric_sha256"], "k": o["k"],
                      "judges": [{"name": j["name"], "model": j["model"]} for j in data.judges], "columns": columns},
                     data.definition)


def write_judge_folder(data: StudyData, doc: dict, folder: Path) -> Path:
    """The judge folder, written whole (workbench.files)."""
    from workbench.files import write_folder
    from workbench.simulation.marks import mark_json

    rows = joined_rows(data, doc)
    schema = list(data.options["joined_schema"])
    if rows and list(rows[0]) != schema:
        raise SchemaMismatch(f"joined CSV columns {list(rows[0])} differ from the frozen schema {schema}")

    def fill(tmp: Path) -> list[Path]:
        _write_csv(tmp / "judge_scores.csv", JUDGE_SCORE_COLUMNS, judge_score_rows(data), data.definition)
        _write_csv(tmp / "joined.csv", schema, rows, data.definition)
        (tmp / "joined.schema.json").write_text(json.dumps(schema_document(data), indent=2), encoding="utf-8")
        agreement = mark_json({"outcome": doc["outcome"], "arm_c": doc["arm_c"]}, data.definition)
        (tmp / "agreement.json").write_text(json.dumps(agreement, indent=2), encoding="utf-8")
        return [tmp / n for n in ("judge_scores.csv", "joined.csv", "joined.schema.json", "agreement.json")]

    write_folder(folder, fill)
    return folder


def _write_csv(path: Path, columns: list[str], rows: list[dict], definition: dict | None) -> None:
    from workbench.simulation.marks import mark_rows

    columns, rows = mark_rows(columns, rows, definition)
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=columns)
        w.writeheader()
        w.writerows(rows)


def _cell(v):
    return "" if v is None else v
