"""M11's human validation on the shared rater desk: the sample becomes blind items (input and module
output only), raters score the five criteria, and human-vs-pipeline agreement is computed from their scores."""

from __future__ import annotations

from tests.protocols.m11 import m11kit
from tests.protocols.m11.m11kit import EXAMPLE_A, EXAMPLE_B
from tests.protocols.m11.test_m11_end_to_end import _create
from workbench import scoring

CRITERIA = ("accuracy", "relevance", "completeness", "clarity", "reasoning")  # seed 003 §3


async def test_raters_score_the_sample_blind_and_the_agreement_uses_their_scores(m11_store, m11_server, tmp_path):
    from store import blind as blind_rows
    from workbench.protocols.m11 import PROTOCOL
    from workbench.runs.runner import prepare_study, run_study

    db, db_path = m11_store
    _create(db, tmp_path, m11_server, records=(EXAMPLE_A, EXAMPLE_B))
    prepare_study(db, "m11-e2e")
    await run_study(db, m11kit.gateway(db, db_path), "m11-e2e")

    progress = scoring.open_rater(db, "m11-e2e", "rater-a")  # blinds the human sample
    items = blind_rows.blind_items(db, "m11-e2e")
    assert progress.total == 2 and len(items) == 2
    for item in items:  # what a rater reads: the module's input and output, no pipeline score or model
        assert "overall" not in item["text"].lower() and "loopback" not in item["text"]
    rubric = next(r for r in scoring.item_view(db, "m11-e2e", "rater-a", items[0]["id"]).rubrics)
    assert rubric.id == "m11-likert" and tuple(c.id for c in rubric.criteria) == CRITERIA

    # rater scores: A high, B low, like the pipeline (4.4 and 2.0)
    by_item = {i["id"]: i["case_id"] for i in items}
    for rater in ("rater-a", "rater-b"):
        for item_id, case_id in by_item.items():
            value = 4 if case_id == "seed-a-earbuds" else 2
            for criterion in CRITERIA:
                scoring.record_score(db, "m11-e2e", rater, item_id, "m11-likert", criterion, value)
    human = PROTOCOL.metrics(db, "m11-e2e").document["human"]
    assert sorted(human["rated"]) == ["seed-a-earbuds", "seed-b-water-bottle"]
    assert {p["item"]: p["human"] for p in human["pairs"]} == {"seed-a-earbuds": 4.0, "seed-b-water-bottle": 2.0}
