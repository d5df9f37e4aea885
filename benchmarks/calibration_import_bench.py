"""Import benchmark: 100,000 generated interactions into a fresh store (JSONL and CSV). Prints times only.

    .venv/bin/python benchmarks/calibration_import_bench.py [N]
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main(n: int = 100_000) -> None:
    from store import open_store
    from store import studies as study_rows
    from workbench.protocols.calibration.generator import generate, write
    from workbench.protocols.calibration.importer import import_file

    per_bin = -(-n // 6)
    with tempfile.TemporaryDirectory() as tmp:
        for suffix in ("jsonl", "csv"):
            data = Path(tmp) / f"interactions.{suffix}"
            t = time.perf_counter()
            written = write(data, generate(per_bin=per_bin, seed=1))
            gen_s = time.perf_counter() - t
            db = open_store(Path(tmp) / f"store-{suffix}.db")
            study_rows.save_study(db, study_id="bench", name="bench", protocol="calibration",
                                  definition={"protocol": "calibration"}, source_text=None, cost_ceiling=None)
            t = time.perf_counter()
            s = import_file(db, "bench", data)
            first = time.perf_counter() - t
            t = time.perf_counter()
            again = import_file(db, "bench", data)
            second = time.perf_counter() - t
            print(f"{suffix}: {written} records ({data.stat().st_size / 1e6:.1f} MB) generated in {gen_s:.2f} s; "
                  f"import {s.added} added in {first:.2f} s ({s.added / first:,.0f}/s); "
                  f"re-import {again.added} added, {again.already_present} present in {second:.2f} s")
            db.close()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000)
