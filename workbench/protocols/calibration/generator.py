"""A documented generator of interactions with planted calibration (seed 004 Arm A, "checking the method").

For each latent probability q of the grid ({0.05, 0.2, 0.4, 0.6, 0.8, 0.95}
by default) it draws `per_bin` interactions; each one's ground truth is +1 with
probability q, else -1. The proxy score is planted as v_hat = logit(q) / k_true,
so p = sigmoid(k · v_hat) equals q exactly when k = k_true: at that k the proxy
is perfectly calibrated up to sampling noise, and at any other k the planted
calibration error is |q - sigmoid((k / k_true) · logit(q))| per grid value.

The five proxy observables are drawn too (so the judge's prompt discipline has
something to keep out), and the content artifact is a short text written from
the project's own sentence stock: a sound one for a +1 interaction, a flawed one
for a -1. Everything is seeded: one seed, one file.

Records are yielded flat, exactly as a CSV/JSONL row would hold them.
"""

from __future__ import annotations

import csv
import json
import math
import random
from pathlib import Path
from typing import Iterator

from workbench.protocols.calibration.section import SCENARIOS, SEED_P_GRID

_SOUND = {
    "negotiation": "Proposes a split of the delivery costs with a clear deadline and states which terms are "
                   "open and which are fixed.",
    "code-review": "Points to the off-by-one in the loop bound, shows the failing input, and suggests a test "
                   "that pins the fix.",
    "customer-support": "Explains why the refund was declined, quotes the policy clause, and offers the "
                        "exchange that the policy allows.",
    "planning": "Orders the migration steps so each can be rolled back, names the owner of each step and the "
                "check that closes it.",
}
_FLAWED = {
    "negotiation": "Agrees to every demand at once and promises terms the team has no authority to grant.",
    "code-review": "Approves the change without reading the diff and calls the failing test flaky.",
    "customer-support": "Blames the customer, cites a policy that does not exist, and closes the ticket.",
    "planning": "Schedules every step for the same night and assumes nothing can fail.",
}
OBSERVABLES = ("task_progress_delta", "rework_count", "verifier_rejections", "tool_misuse_flags",
               "counterparty_engagement_delta")


def logit(q: float) -> float:
    return math.log(q / (1.0 - q))


def generate(*, p_grid: list[float] = SEED_P_GRID, per_bin: int = 500, seed: int = 2026, k_true: float = 1.0,
             scenarios: list[str] = SCENARIOS, runs: int = 4) -> Iterator[dict]:
    """Flat interaction records, `per_bin` per grid value, in a seeded order."""
    rng = random.Random(seed)
    index = 0
    for q in p_grid:
        v_hat = logit(q) / k_true
        for _ in range(per_bin):
            scenario = scenarios[index % len(scenarios)]
            good = rng.random() < q
            stock = (_SOUND if good else _FLAWED).get(scenario, "A response to the task at hand.")
            yield {
                "run_id": f"baseline-{index % runs + 1:02d}",
                "interaction_id": f"i{index:06d}",
                "scenario": scenario,
                "v_hat": round(v_hat, 12),
                "ground_truth": 1 if good else -1,
                "content": f"[{scenario} #{index}] {stock}",
                "accepted": True,
                "latent_q": q,
                "task_progress_delta": round(rng.gauss(q - 0.5, 0.2), 4),
                "rework_count": rng.randint(0, 6),
                "verifier_rejections": rng.randint(0, 3),
                "tool_misuse_flags": rng.randint(0, 2),
                "counterparty_engagement_delta": round(rng.gauss(0.0, 0.3), 4),
            }
            index += 1


def write(path: str | Path, records: Iterator[dict]) -> int:
    """Write records as JSONL (.jsonl) or CSV (.csv), whole (workbench.files); returns how many."""
    from workbench.files import writing

    path = Path(path)
    n = 0
    with writing(path) as f:
        if path.suffix.lower() == ".csv":
            writer = None
            for rec in records:
                if writer is None:
                    writer = csv.DictWriter(f, fieldnames=list(rec))
                    writer.writeheader()
                writer.writerow(rec)
                n += 1
        else:
            for rec in records:
                f.write(json.dumps(rec, ensure_ascii=False) + "\n")
                n += 1
    return n


def planted_ece(p_grid: list[float], k: float, k_true: float) -> float:
    """The calibration error the generator plants at slope k (equal counts per grid value, one bin each)."""
    gaps = [abs(q - 1.0 / (1.0 + math.exp(-(k / k_true) * logit(q)))) for q in p_grid]
    return sum(gaps) / len(gaps)
