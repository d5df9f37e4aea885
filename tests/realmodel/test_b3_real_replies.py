"""B3 on the real model (issue 41): the replies the suite gets are the corpus's captured ones, and the reader
reads them as a person did, or flags them — never a silent misreading.

The corpus holds SmolLM2's B3 replies with the reading a person made of each
(tests/corpus/b3/heldout-smollm2-135m.toml, captured by benchmarks/capture_replies.py: the shipped B3 prompt,
temperature 0.8, the item's seed, max_tokens 300). Here the same prompts are asked again through the gateway; the
model at a fixed seed gives the same text, so the person's reading applies to what the suite got, and the
reader must match it or flag. A different text means the model or its server changed: recapture and read
the new replies (the failure says so) rather than trust a reading nobody checked."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

import pytest

from benchmarks.capture_replies import prompts
from workbench.instruments.accuracy import SILENT, judge
from workbench.instruments.corpus import load
from workbench.instruments.registry import get

pytestmark = pytest.mark.realmodel

CORPUS = Path(__file__).resolve().parents[1] / "corpus"


def ask(api_base: str, asks: list[tuple[str, int]]) -> list[str]:
    """Each (prompt, seed) as the capture asked it, through the gateway."""
    from workbench.gateway import CallRequest, build_gateway
    from workbench.gateway.api import ModelSettings
    from workbench.paths import open_workbench_store

    folder = Path(tempfile.mkdtemp(prefix="b3-real-"))
    db = open_workbench_store(folder / "b3.db")
    gateway = build_gateway(db, folder / "b3.db")

    async def every() -> list[str]:
        replies = []
        for prompt, seed in asks:
            settings = ModelSettings(model="openai/local", api_base=api_base, api_key_env="none", temperature=0.8,
                                     seed=seed, max_tokens=300, timeout=1800)
            request = CallRequest(messages=[{"role": "user", "content": prompt}], settings=settings,
                                  role="capture", study_id=None, turn="b3", agent="capture")
            replies.append((await gateway.call(request, None)).text)
        return replies

    return asyncio.run(every())


def test_real_b3_replies_are_read_as_a_person_read_them_or_flagged(server):
    captured = {e.id: e for e in load(CORPUS, "b3") if e.source == "smollm2-135m"}
    # the capture's order: its n-th prompt was asked with seed n
    asks = [(ident, prompt, seed) for seed, (instrument, ident, prompt) in enumerate(prompts(2, 0, 0), start=1)]
    assert [f"smollm2-135m-{ident}" for ident, _, _ in asks] == sorted(captured, key=lambda i: "blast" in i)
    replies = ask(server.api_base, [(prompt, seed) for _, prompt, seed in asks])
    for (ident, _, _), reply in zip(asks, replies):
        entry = captured[f"smollm2-135m-{ident}"]
        assert reply == entry.text, (f"{ident}: the model's reply is not the captured one (model or server "
                                     "changed): recapture with benchmarks/capture_replies.py and read it again")
        outcome = judge(get("b3"), entry)  # the reading of what the suite got, against the person's
        assert outcome.verdict != SILENT, (ident, outcome.document)
