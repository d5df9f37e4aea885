"""A rater in its own process: scores every item of its queue ROUNDS times, as fast as it can.

Run as: python tests/scoring/rater_worker.py DB STUDY RATER ROUNDS. Prints the number of actions.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from store import open_store  # noqa: E402
from workbench import scoring  # noqa: E402


def main(db_path: str, study: str, rater: str, rounds: int) -> int:
    db = open_store(db_path)
    queue = [q.item_id for q in scoring.queue(db, study, rater)]
    actions = 0
    for r in range(rounds):
        for k, item in enumerate(queue):
            scoring.record_score(db, study, rater, item, "anticipation", "anticipation", (r + k) % 4)
            scoring.record_score(db, study, rater, item, "epistemic-humility", "calibration", (r * k) % 4)
            actions += 2
        scoring.record_note(db, study, rater, queue[r % len(queue)], f"{rater} round {r}")
        actions += 1
    print(actions)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])))
