"""Benchmark (not a test): metric computation time for a study of 10 cases x 9 runs x 2 raters x 3 judges.

    python benchmarks/metrics_bench.py [--keep DIR]

Seeds a store with a random but complete hindsight study (10 cases including
Glenda/Crock and Blast Radius; B1..C3 plus P1 = 3 C2 replicates, so 9 runs per
case; 2 human raters and 3 LLM judges scoring every item; perspective events
for B3, C1, C2 and P1 runs), then times:

* cold: a fresh store, the default bundled MiniLM loaded and every
  perspective embedded, then every table, agreement, DQ and calibration;
* warm: the same analysis again with a new Embedder over the store cache
  (nothing to embed), in the same process;
* warm, new process: a separate Python process analysing the same store
  (imports included), as `workbench --batch metrics` would;
* the report and the CSV export on top of an analysis.

It prints the figures; nothing is asserted.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

WORDS = ("demand contraction regulator bond tranche migration rollback staging production coercion precedent "
         "frame budget latency vendor lock-in council dredging harbor revenue customer employee timeline "
         "reversibility security scalability policy compliance equity consequence assumption risk scenario "
         "hedge contingency signal stakeholder governance audit incentive capacity liquidity").split()


def build_spec(seed: int = 7):
    from tests.metrics_integration.seeding import CONDITIONS, Spec

    rng = random.Random(seed)
    cases = ["glenda-crock", "blast-radius"] + [f"bench-case-{i:02d}" for i in range(8)]
    spec = Spec(study_id="bench-study", cases=cases, conditions=list(CONDITIONS),
                raters=["rater-a", "rater-b"],
                judges=[("judge-a", "mock-a"), ("judge-b", "mock-b"), ("judge-c", "mock-c")])
    gc = ("coercion_recognition", "compliance_trap", "frame_analysis")
    br = ("blast_radius", "rollback", "phasing")
    for slot in spec.slots():
        case, cond, rep = slot
        base = {"B1": 0.8, "B2": 1.2, "B3": 1.5, "C1": 1.7, "C2": 2.2, "C3": 2.3, "P1": 2.1}[cond]
        truth = min(3, max(0, round(base + rng.gauss(0, 0.7))))
        cells = [("anticipation", "anticipation", 3), ("epistemic-humility", "calibration", 3)]
        if case == "glenda-crock":
            cells += [("glenda-crock", c, 1) for c in gc]
        if case == "blast-radius":
            cells += [("blast-radius", c, 2) for c in br]
        for rubric, criterion, top in cells:
            center = truth * top / 3
            for rater in spec.raters:
                spec.human[(rater, case, cond, rep, rubric, criterion)] = min(top, max(0, round(center + rng.gauss(0, 0.5))))
            for judge, _ in spec.judges:
                value = min(top, max(0, round(center + rng.gauss(0, 0.6))))
                spec.judge[(judge, case, cond, rep, rubric, criterion)] = "error" if rng.random() < 0.02 else value
        spec.audits[slot] = rng.random() < 0.25
        n = {"B3": 4, "C1": 5, "C2": 4, "P1": 4}.get(cond, 0)
        spec.perspectives[slot] = [(" ".join(rng.choice(WORDS) for _ in range(60)) + f" ({case} {cond} {rep} {k})",
                                    1 if cond != "B3" else k, cond != "B3") for k in range(1, n + 1)]
    for case in cases:
        spec.topology[case] = (rng.choice(["Basin", "Ridge", "Plateau"]), None, "a recommendation")
    return spec


SECOND_PROCESS = """
import sys, time
t0 = time.perf_counter()
from store import open_store
from workbench.protocols.hindsight.metrics.analysis import analyze_study
from workbench.protocols.hindsight.metrics.render import analysis_tables
db = open_store(sys.argv[1])
t1 = time.perf_counter()
a = analyze_study(db, "bench-study")
analysis_tables(a)
t2 = time.perf_counter()
print(f"{t1 - t0:.3f} {t2 - t1:.3f} {a.dq.encoded}")
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", metavar="DIR", help="seed the store in DIR and keep it")
    args = parser.parse_args()
    workdir = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="metrics-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    path = workdir / "bench.db"
    path.unlink(missing_ok=True)

    from store import open_store
    from tests.metrics_integration.seeding import seed_study

    t = time.perf_counter()
    db = open_store(path)
    seeded = seed_study(db, build_spec())
    seed_s = time.perf_counter() - t
    n_items = len(seeded.item_ids)
    n_persp = sum(len(v) for v in seeded.spec.perspectives.values())
    print(f"study: {len(seeded.spec.cases)} cases x 9 runs = {n_items} items, 2 raters, 3 judges, "
          f"{len(seeded.spec.human)} human score cells, {len(seeded.spec.judge)} verdict cells, "
          f"{n_persp} perspectives (seeded in {seed_s:.2f} s)")

    from store.embeddings import StoreEmbeddingCache
    from workbench.protocols.hindsight.metrics.analysis import analyze_study
    from workbench.metrics.embeddings import DEFAULT_MODEL, Embedder
    from workbench.protocols.hindsight.metrics.export import csv_text
    from workbench.protocols.hindsight.metrics.render import analysis_tables
    from workbench.protocols.hindsight.report import build_report

    class Timed(Embedder):
        encode_s = 0.0

        def _encode(self, texts):
            t0 = time.perf_counter()
            try:
                return super()._encode(texts)
            finally:
                Timed.encode_s += time.perf_counter() - t0

    cold_emb = Timed(DEFAULT_MODEL, cache=StoreEmbeddingCache(db))
    t = time.perf_counter()
    cold = analyze_study(db, "bench-study", embedder=cold_emb)
    analysis_tables(cold)
    cold_s = time.perf_counter() - t
    print(f"cold  (fresh store, MiniLM load + embed {cold_emb.encoded_count} texts): {cold_s:.2f} s total, "
          f"of which model load + encoding {Timed.encode_s:.2f} s")

    warm_emb = Timed(DEFAULT_MODEL, cache=StoreEmbeddingCache(db))
    Timed.encode_s = 0.0
    t = time.perf_counter()
    warm = analyze_study(db, "bench-study", embedder=warm_emb)
    analysis_tables(warm)
    warm_s = time.perf_counter() - t
    print(f"warm  (same process, embedding cache warm, {warm_emb.encoded_count} texts embedded): {warm_s:.2f} s")

    t = time.perf_counter()
    analyze_study(db, "bench-study", include_dq=False)
    print(f"tables and agreement only (no DQ): {time.perf_counter() - t:.2f} s")

    t = time.perf_counter()
    build_report(warm)
    report_s = time.perf_counter() - t
    t = time.perf_counter()
    rows = csv_text(warm.data).count("\n") - 1
    csv_s = time.perf_counter() - t
    print(f"report from an analysis: {report_s * 1000:.0f} ms; CSV export ({rows} rows): {csv_s * 1000:.0f} ms")
    db.close()

    out = subprocess.run([sys.executable, "-c", SECOND_PROCESS, str(path)], cwd=ROOT, capture_output=True,
                         text=True, timeout=900)
    if out.returncode == 0:
        imports_s, analysis_s, encoded = out.stdout.split()[-3:]
        print(f"warm  (new process, store cache): imports + open {float(imports_s):.2f} s, analysis "
              f"{float(analysis_s):.2f} s, {encoded} texts embedded")
    else:
        print("new-process run failed:\n" + out.stderr[-2000:])
    if args.keep:
        print(f"store kept at {path}")


if __name__ == "__main__":
    main()
