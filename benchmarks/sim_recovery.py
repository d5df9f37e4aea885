"""Planted-effect recovery, the slow check (issue 16, Table 4's statistic since issue 30): does the metric
core's 95% bootstrap CI of Cohen's d cover the d it estimates in about 95% of seeded simulations, find
nothing where nothing is planted, and agree with the t test the power table decides by?

    .venv/bin/python benchmarks/sim_recovery.py [--sims 2000]

Prints figures; asserts nothing (the fast version is tests/simulation/test_power.py).
"""

from __future__ import annotations

import argparse
import time

from workbench.simulation.power import Design, power, recovery


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sims", type=int, default=2000)
    args = ap.parse_args()
    for label, design, d in [("C2-B1 anticipation, 20 cases, 2 raters, ICC 0.7", Design(20, 1, 2, 0.7), 1.0),
                             ("no effect, same design", Design(20, 1, 2, 0.7), 0.0),
                             ("d = 0.5, 10 cases, 3 replicates", Design(10, 3, 2, 0.7), 0.5)]:
        t0 = time.process_time()
        r = recovery(design, d, sims=args.sims, seed=2026)
        sim_power = power(design, d, sims=args.sims, seed=2026)
        print(f"{label}: planted d {d} -> Table 4's d {r.implied_d:.3f}; mean estimate {r.mean_estimate:.3f}; "
              f"coverage {r.coverage:.3f}; detected {r.detected:.3f} (t test agrees {r.agrees_with_t:.3f}); "
              f"power (t test) {sim_power:.3f}; {time.process_time() - t0:.1f}s CPU")


if __name__ == "__main__":
    main()
