"""An M11 `sim` study's planted item quality beside what its pipeline recovered (the report's "Planted vs
recovered" section).

The simulator gives each item a latent quality ℓ ~ N(baseline, 1) and a true overall score T = 5·Φ(ℓ)
(simulate.py), so the mean overall score over items should read 5·Φ(baseline / √2); the pipeline's Judge
reads it with the planted reliability, rounding and keeping scores in 0–5. Recovered: the mean of the
items' overall scores, with its 95% bootstrap CI.
"""

from __future__ import annotations

import math

from workbench.protocol.base import PlantedValue


def planted_values(db, study_id: str, definition: dict) -> list[PlantedValue]:
    from scipy.stats import norm

    from workbench.metrics.descriptive import mean_ci
    from workbench.protocols.m11.results import sample_results
    from workbench.simmodel.params import params_of

    baseline = params_of(definition)["baseline"]
    overall = [r["overall"] for r in sample_results(db, study_id) if r["overall"] is not None]
    return [PlantedValue.of_estimate("baseline", baseline, "mean overall score over items (0–5)",
                                     mean_ci(overall).to_dict(), expected=5 * float(norm.cdf(baseline / math.sqrt(2))),
                                     note="" if overall else "no item has an overall score yet")]
