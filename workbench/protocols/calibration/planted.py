"""A calibration `sim` study's planted judge offsets beside what its judges' scores recovered (the
report's "Planted vs recovered" section).

The simulator scores interaction i for judge j as t_i + offset_j + noise, kept in [0, 1], with t_i =
logistic(v_hat_i) (simulate.py). Read back, a judge's offset is the mean of score − t over the interactions
it scored, with a 95% bootstrap CI; keeping scores in [0, 1] pulls it toward 0 near the ends of the scale.
The planted reliability `judge_icc` is read back as Arm C's Krippendorff α (interval) over the panel, which
the judges' offsets lower a little.
"""

from __future__ import annotations

from workbench.protocol.base import PlantedValue


def planted_values(db, study_id: str, definition: dict) -> list[PlantedValue]:
    from workbench.metrics.descriptive import mean_ci
    from workbench.protocols.calibration.results import load, study_results
    from workbench.protocols.calibration.simulate import true_quality
    from workbench.simmodel.params import params_of

    params = params_of(definition)
    offsets = params.get("judge_offsets") or {}
    data = load(db, study_id)
    alpha = study_results(db, study_id, data)["arm_c"]["alpha"]
    rows = [PlantedValue.of_estimate("judge_icc", params["judge_icc"], "Arm C's Krippendorff α (interval) over the "
                                     "panel", alpha, note="" if alpha.get("value") is not None
                                     else alpha.get("undefined_reason") or "undefined")]
    truth = {i.id: true_quality(i.v_hat) for i in data.interactions}
    for judge, planted in offsets.items():
        diffs = [by_judge[judge] - truth[item] for item, by_judge in data.scores.items()
                 if judge in by_judge and by_judge[judge] is not None and item in truth]
        rows.append(PlantedValue.of_estimate(f"judge_offsets.{judge}", planted,
                                             "mean of the judge's score − logistic(v_hat)", mean_ci(diffs).to_dict(),
                                             note="" if diffs else "the judge has no score yet"))
    return rows
