"""Planted-effect recovery, the slow check (issue 16): does the metric core's 95% CI of the paired d_z
cover the planted effect in about 95% of seeded simulations, and find nothing where nothing is planted?

    .venv/bin/python benchmarks/sim_recovery.py [--sims 2000]

Prints figures; asserts nothing (the fast version is tests/simulation/test_power.py).
"""

from __future__ import annotations

import argparse
import time

from workbench.simulation.power import Design, analytic_power_paired, power, recovery


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sims", type=int, default=2000)
    args = ap.parse_args()
    for label, design, d in [("C2-B1 anticipation, 20 cases, 2 raters, ICC 0.7", Design(20, 1, 2, 0.7), 1.0),
                             ("no effect, same design", Design(20, 1, 2, 0.7), 0.0),
                             ("d = 0.5, 10 cases, 3 replicates", Design(10, 3, 2, 0.7), 0.5)]:
        t0 = time.perf_counter()
        r = recovery(design, d, sims=args.sims, seed=2026)
        sim_power = power(design, d, sims=args.sims, seed=2026)
        print(f"{label}: planted d {d} -> implied d_z {r.implied_dz:.3f}; mean estimate {r.mean_estimate:.3f}; "
              f"coverage {r.coverage:.3f}; detected {r.detected:.3f}; power (ttest) {sim_power:.3f}, "
              f"exact {analytic_power_paired(design, d):.3f}; {time.perf_counter() - t0:.1f}s")


if __name__ == "__main__":
    main()
