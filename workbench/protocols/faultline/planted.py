"""A faultline `sim` study's planted values beside what its metrics recovered (the report's "Planted vs
recovered" section): each condition's planted stance_shift, adherence and accuracy, read back as the mean
ΔSD, BA and ACC over its runs with their 95% bootstrap CIs. The planted value and the metric are on
different scales (a shift of the closing gap, a share of sentences, one stance's chance of being right),
so `expected` gives what the metric should read under the plant (power.expected_value, closed form)."""

from __future__ import annotations

from workbench.protocol.base import PlantedValue
from workbench.protocols.faultline.conditions import condition
from workbench.protocols.faultline.measures import tie_rule
from workbench.protocols.faultline.power import expected_cr, expected_value, layout_of

READ_AS = (("stance_shift", "dSD", "mean ΔSD over debates"), ("adherence", "BA", "mean BA over debates"),
           ("accuracy", "ACC", "mean ACC over runs"), ("crux_recurrence", "CR", "mean CR over repeated debates"))


def planted_values(doc: dict, definition: dict) -> list[PlantedValue]:
    """`doc`: the study's metrics document (analysis.study_metrics)."""
    from workbench.simmodel.params import params_of

    params = params_of(definition)
    tie = tie_rule(definition["faultline"])
    layout, _ = layout_of(definition)

    def expected(metric: str, cond: str, value: float) -> float:
        if metric == "CR":   # the mean over the study's topics of one repeated debate's exact mean
            size = definition["faultline"]["hdbscan_min_cluster_size"]
            per_topic = [expected_cr(value, layout.replicates, contested, size) for contested, _ in layout.claims]
            return sum(per_topic) / len(per_topic)
        return expected_value(metric, cond, params, tie)

    rows = []
    for key, metric, measure in READ_AS:
        for cond, value in (params.get(key) or {}).items():
            est = (doc["conditions"].get(cond) or {}).get(metric)
            note = ""
            if metric == "BA" and condition(cond).nodes == 0:
                note = "the condition shows no belief graph: nothing to restate"
            if est is None:
                rows.append(PlantedValue(f"{key}.{cond}", value, measure, expected(metric, cond, value),
                                         note=note or f"{metric} is not measured for {cond}"))
                continue
            if est.get("value") is None:
                note = "; ".join(n for n in (note, est.get("undefined_reason") or "undefined") if n)
            rows.append(PlantedValue.of_estimate(f"{key}.{cond}", value, measure, est,
                                                 expected=expected(metric, cond, value), note=note))
    return rows
