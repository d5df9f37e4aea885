"""What a hindsight report presents as a result that a later study could pre-register (issue 42, lineage).

- The raters' agreement (kappa per metric, as the agreement table shows it): a later study on the same cases
  whose `[thresholds] kappa_…` target is that observed kappa set its target after seeing it. The seed's own
  targets (0.70, 0.65) were fixed before any study and are never a match.
- The committee that did best on Anticipation (Table 1, once unblinded, a unique best to the digits shown): a
  later study on the same cases that runs that committee alone (one of C1, C2, C3) chose it after seeing it.
"""

from __future__ import annotations

from workbench.protocols.hindsight.metrics.agreement_report import TARGET_KEYS

COMMITTEE = "committee condition"
COMMITTEES = ("C1", "C2", "C3")
SHOWN = 2   # the digits the report prints a kappa and a Table 1 mean with (metrics.render.fmt_est)
RESULTS = {**{key: f"the inter-rater verdict against {key}" for key in TARGET_KEYS.values()},
           COMMITTEE: "every table row and Table 4 comparison of that committee"}


def reported_values(db, study_id: str) -> dict:
    from workbench.protocols.hindsight.metrics.agreement_report import inter_rater
    from workbench.protocols.hindsight.metrics.study_data import load_study_data
    from workbench.protocols.hindsight.metrics.tables import ANTICIPATION, table1

    data = load_study_data(db, study_id)
    out = {TARGET_KEYS[row.metric.key]: round(row.kappa.value, SHOWN) for row in inter_rater(data)
           if row.metric.key in TARGET_KEYS and row.kappa.defined}
    if data.blinded:
        return out          # no condition's mean was shown
    means = {}
    for row in table1(data).rows:
        cell = row.cells.get(ANTICIPATION)
        if row.condition in COMMITTEES and cell is not None and cell.estimate.defined:
            means[row.condition] = round(cell.estimate.value, SHOWN)
    if len(means) >= 2:
        best = [c for c, v in means.items() if v == max(means.values())]
        if len(best) == 1:
            out[COMMITTEE] = best[0]
    return out


def preregistered_values(definition: dict, seed_targets: dict[str, float]) -> dict:
    targets = definition.get("thresholds") or {}
    out = {key: targets[key] for key in TARGET_KEYS.values()
           if key in targets and targets[key] != seed_targets.get(key)}
    committees = [c for c in definition.get("conditions") or [] if c in COMMITTEES]
    if len(committees) == 1:
        out[COMMITTEE] = committees[0]
    return out
