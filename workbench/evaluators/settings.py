"""The study file's `[quality]` table: what evaluator quality control a study pre-registers.

```toml
[quality]
gold_rate = 0.2            # gold items per real item, planted in every rater's and judge's queue
gold_file = "gold.toml"    # texts with expected scores (relative to the study file); without it the gold
                           # items are built from each case's outcome record (`gold.py`)
attention_rate = 0.1       # attention items per real item, human raters only
time_floor_seconds = 5     # an item scored faster than this counts as under the floor
exclude_if = ["gold_exact < 0.7", "raters: under_floor > 0.2"]
verdicts = "original"      # or "corrected": whether tables read a judge's verdicts as reviewed
review_sample = 20         # verdicts of each judge a blind review pages through (TUI `v`, `evaluators review`)
```

A rule is `[raters: | judges: ]FIGURE OP NUMBER`, FIGURE one of `FIGURES`, OP one of < <= > >=; without a
scope it applies to every evaluator. A rule whose figure is undefined for an evaluator (a judge has no
desk time; nothing scored yet) does not fire. The table is kept in the definition only when the file has
it, so a study file without it keeps the definition (and freeze hash) it had; likewise `gold_file` and
`review_sample` are kept only when the file names them. The gold file's items are read at create and kept in
the definition, so they are frozen and hashed with the study.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

DEFAULTS = {"gold_rate": 0.0, "attention_rate": 0.0, "time_floor_seconds": 5.0, "exclude_if": [],
            "verdicts": "original"}
KEYS = (*DEFAULTS, "gold_file", "review_sample")
# Verdicts a blind review pages through when the study pre-registers no `review_sample` (the project's choice).
REVIEW_SAMPLE = 20
VERDICT_CHOICES = ("original", "corrected")
# The figures a rule may name (`quality.EvaluatorQuality` holds them): one name per figure everywhere.
FIGURES = ("gold_exact", "gold_within_one", "attention_pass", "median_seconds", "under_floor", "longest_run",
           "modal_share", "loo_agreement", "drift")
OPS = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}
SCOPES = ("raters", "judges")
RULES, OVERRIDE = "rules", "override"   # how a decision was taken: by the rules, or by a researcher
_RULE = re.compile(r"^\s*(?:(raters|judges)\s*:\s*)?([a-z_]+)\s*(<=|>=|<|>)\s*(-?\d+(?:\.\d+)?)\s*$")


@dataclass(frozen=True)
class Rule:
    text: str
    scope: str | None      # None: every evaluator
    figure: str
    op: str
    bound: float

    def applies_to(self, kind: str) -> bool:
        return self.scope is None or (self.scope == "raters") == (kind == "human")

    def fires(self, kind: str, value: float | None) -> bool:
        return self.applies_to(kind) and value is not None and OPS[self.op](value, self.bound)


def parse_rule(text: str) -> Rule:
    """One exclusion rule; ValueError with what is wrong."""
    m = _RULE.match(text or "")
    if not m:
        raise ValueError(f"'{text}' is not a rule: write [raters: | judges: ]FIGURE OP NUMBER, e.g. "
                         "'gold_exact < 0.7'")
    scope, figure, op, bound = m.groups()
    if figure not in FIGURES:
        raise ValueError(f"'{figure}' is not a quality figure; use one of {', '.join(FIGURES)}")
    return Rule(text.strip(), scope, figure, op, float(bound))


def fired(rules: list[Rule], q) -> list[str]:
    """The rules that exclude evaluator `q` (an EvaluatorQuality); a rule on an undefined figure does not fire."""
    return [r.text for r in rules if r.fires(q.kind, q.figure(r.figure))]


def quality_of(definition: dict | None) -> dict:
    """The study's `[quality]` settings, defaults filled (a study without the table gets the defaults)."""
    return {**DEFAULTS, **((definition or {}).get("quality") or {})}


def review_size(definition: dict | None) -> int:
    """How many of a judge's verdicts a blind review pages through: the study's `review_sample`, else 20."""
    return int(quality_of(definition).get("review_sample") or REVIEW_SAMPLE)


def rules_of(definition: dict | None) -> list[Rule]:
    return [parse_rule(r) for r in quality_of(definition)["exclude_if"]]


def check_quality(c, data: dict, definition: dict, source: str) -> None:
    """Validate `[quality]` with the study checker `c` (file:line problems) into `definition["quality"]`.
    `source`: the study file's path (a gold file is read relative to it)."""
    if "quality" not in data:
        return
    t = c.table(data, "quality", "quality")
    c.unknown(t, KEYS, "quality")
    out = {
        "gold_rate": c.number(t, "gold_rate", "quality.gold_rate", DEFAULTS["gold_rate"], lo=0, hi=1),
        "attention_rate": c.number(t, "attention_rate", "quality.attention_rate", DEFAULTS["attention_rate"],
                                   lo=0, hi=1),
        "time_floor_seconds": c.number(t, "time_floor_seconds", "quality.time_floor_seconds",
                                       DEFAULTS["time_floor_seconds"], lo=0),
        "exclude_if": c.strings(t, "exclude_if", "quality.exclude_if", []),
        "verdicts": c.string(t, "verdicts", "quality.verdicts", DEFAULTS["verdicts"]),
    }
    for rule in out["exclude_if"]:
        try:
            parse_rule(rule)
        except ValueError as exc:
            c.bad("quality.exclude_if", str(exc))
    if out["verdicts"] not in VERDICT_CHOICES:
        c.bad("quality.verdicts", f"must be one of {', '.join(VERDICT_CHOICES)} (got {out['verdicts']!r})")
    if out["attention_rate"] and not definition.get("raters"):
        c.bad("quality.attention_rate", "attention items are for human raters, and this study names none")
    if "review_sample" in t:
        out["review_sample"] = c.number(t, "review_sample", "quality.review_sample", REVIEW_SAMPLE, lo=1,
                                        integer=True)
    if "gold_file" in t:
        path = c.string(t, "gold_file", "quality.gold_file", allow_empty=False)
        if isinstance(path, str) and path.strip():
            from workbench.evaluators.gold import GoldFileError, read_gold_file

            try:
                out["gold_file"] = path
                out["gold_items"] = read_gold_file(_beside(source, path), definition)
            except GoldFileError as exc:
                c.bad("quality.gold_file", str(exc))
        if not out["gold_rate"]:
            c.bad("quality.gold_rate", "a gold file needs a gold rate above 0 (gold items per real item)")
    definition["quality"] = out


def _beside(source: str, path: str) -> Path:
    p = Path(path)
    if p.is_absolute():
        return p
    base = Path(source).parent if source and not source.startswith("<") else Path.cwd()
    return base / p
