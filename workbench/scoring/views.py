"""What a rater may see: plain dataclasses the scoring screen and rater packets render.

Nothing here carries a condition, a model, a run id, a timestamp or another
rater's score; the views are built only from the blind item, the case's
scenario and outcome, the frozen rubric and the rater's own rows.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from workbench.rubrics import Rubric

GREEK = ("Alpha", "Beta", "Gamma", "Delta", "Epsilon", "Zeta", "Eta", "Theta", "Iota", "Kappa", "Lambda",
         "Mu", "Nu", "Xi", "Omicron", "Pi", "Rho", "Sigma", "Tau", "Upsilon", "Phi", "Chi", "Psi", "Omega")


def position_label(position: int) -> str:
    """"Response Alpha", "Response Beta", ... by the rater's own queue position (0-based)."""
    name = GREEK[position % len(GREEK)]
    cycle = position // len(GREEK)
    return f"Response {name}" + (f" {cycle + 1}" if cycle else "")


@dataclass(frozen=True)
class AnchorView:
    score: int
    label: str
    text: str


@dataclass(frozen=True)
class CriterionView:
    id: str
    name: str
    question: str
    min: int
    max: int
    anchors: tuple[AnchorView, ...]


@dataclass(frozen=True)
class RubricView:
    id: str
    name: str
    hash: str
    instructions: str
    procedure: tuple[str, ...]
    criteria: tuple[CriterionView, ...]

    @classmethod
    def of(cls, rubric: Rubric) -> "RubricView":
        return cls(
            id=rubric.id, name=rubric.name, hash=rubric.hash, instructions=rubric.instructions,
            procedure=tuple(rubric.procedure),
            criteria=tuple(CriterionView(c.id, c.name, c.question, c.min, c.max,
                                         tuple(AnchorView(a.score, a.label, a.text)
                                               for a in sorted(c.anchors, key=lambda a: a.score)))
                           for c in rubric.criteria),
        )

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class ItemView:
    """One blind item as its rater sees it."""

    item_id: str                 # opaque
    label: str                   # "Response Alpha": the rater's own queue position
    position: int                # 1-based position in the rater's queue
    total: int                   # items in the rater's queue
    side: str                    # left | right (its place in the side-by-side pair)
    partner_id: str | None       # the other item of the pair, if any
    case_title: str
    scenario: str
    outcome: str | None          # the outcome record (hindsight protocol only)
    response: str                # the scrubbed final output
    rubrics: list[RubricView]
    transposition: str | None = None  # a transposed case's mapping to the real case (the same for all its items)
    scores: dict[str, dict[str, int | None]] = field(default_factory=dict)  # rubric id -> criterion -> value
    notes: dict[str, str] = field(default_factory=dict)   # "*" (item), "rubric/criterion" -> note
    complete: bool = False
    skipped: bool = False

    def to_dict(self) -> dict:
        d = asdict(self)
        d["rubrics"] = [r.to_dict() for r in self.rubrics]
        return d


@dataclass(frozen=True)
class QueueEntry:
    item_id: str
    position: int       # 1-based
    label: str
    side: str
    partner_id: str | None
    complete: bool
    skipped: bool
    available: bool     # False while the calibration pilots hold the rest back


@dataclass(frozen=True)
class Progress:
    rater: str
    done: int
    total: int
    phase: str          # calibration | held | scoring | complete | closed
    message: str = ""

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class ScoreReceipt:
    """What a scoring action did, for the screen to show at once."""

    item_id: str
    action: str         # score | undo | note | skip
    rubric_id: str | None
    criterion: str | None
    value: int | None
    previous: int | None
    item_complete: bool
    progress: Progress
