"""What blind evaluation needs to know about a study: its definition, frozen rubrics and cases.

Rubrics come from the texts the study froze (so a later edit of a rubric file
never changes what a study scores against); a study frozen before its rubric
texts were recorded falls back to the newest stored version of that rubric id.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass, field
from functools import lru_cache

import sqlite_utils

from store import blind as blind_rows
from store import rubrics as rubric_rows
from workbench.cases import Case
from workbench.rubrics import Rubric, parse_rubric

HINDSIGHT = "hindsight"


class BlindingError(Exception):
    """A blind-evaluation request that cannot be met; the message says why and what to do."""


@dataclass
class StudyContext:
    id: str
    protocol: str
    definition: dict
    frozen: bool
    unblinded_at: str | None
    unblind_forced: bool
    rubrics: dict[str, Rubric] = field(default_factory=dict)  # rubric id -> frozen version
    cases: dict[str, Case] = field(default_factory=dict)

    @property
    def rater_names(self) -> list[str]:
        return list(self.definition.get("raters") or [])

    @property
    def judges(self) -> list[dict]:
        return list(self.definition.get("judges") or [])

    @property
    def shows_outcome(self) -> bool:
        """The hindsight protocol shows evaluators the outcome record; others do not."""
        return self.protocol == HINDSIGHT

    @property
    def blinding(self) -> dict:
        return dict(self.definition.get("blinding") or {})

    def rubric_ids_for_case(self, case_id: str) -> list[str]:
        """The study's rubrics, plus the case's specialised rubric when it has one."""
        ids = list(self.definition.get("rubrics") or [])
        case = self.cases.get(case_id)
        if case is not None and case.rubric and case.rubric not in ids:
            ids.append(case.rubric)
        return ids

    def rubrics_for_case(self, case_id: str) -> list[Rubric]:
        out = []
        for rid in self.rubric_ids_for_case(case_id):
            if rid not in self.rubrics:
                raise BlindingError(f"study '{self.id}': rubric '{rid}' is neither frozen with the study "
                                    "nor in the rubric library")
            out.append(self.rubrics[rid])
        return out

    def rubric_by_hash(self, rubric_hash: str) -> Rubric | None:
        return next((r for r in self.rubrics.values() if r.hash == rubric_hash), None)

    def model_names(self) -> list[str]:
        """Every model string of the study (architecture and judges): the scrubber removes them."""
        names = [(self.definition.get("model") or {}).get("name", "")]
        names += [j.get("model", "") for j in self.judges]
        return [n for n in names if n]

    def role_names(self) -> list[str]:
        """The C2 roster's role names (and ids) and any C1 respondent names: condition tells."""
        names: list[str] = []
        arch = self.definition.get("architectures") or {}
        for cond in ("C2", "C1", "C3", "P1"):
            options = arch.get(cond) or {}
            for key in ("roster", "respondents", "members", "roles"):
                value = options.get(key)
                if not isinstance(value, list):
                    continue
                for member in value:
                    if isinstance(member, str):
                        names.append(member)
                    elif isinstance(member, dict):
                        names += [str(member[k]) for k in ("name", "role", "title") if member.get(k)]
                        if member.get("id"):
                            names.append(str(member["id"]))
        return [n for n in dict.fromkeys(names) if len(n) >= 3]


@lru_cache(maxsize=256)
def _parse_cached(text: str) -> Rubric:
    return parse_rubric(text, "<frozen rubric>")


def load_study(db: sqlite_utils.Database, study_id: str) -> StudyContext:
    row = blind_rows.study_row(db, study_id)
    if row is None:
        raise BlindingError(f"no study '{study_id}' in the store (create it with `workbench --batch study "
                            "create STUDY_FILE`)")
    definition = row["definition"]
    ctx = StudyContext(
        id=study_id, protocol=row.get("protocol") or definition.get("protocol", HINDSIGHT),
        definition=definition, frozen=bool(row.get("frozen_at")), unblinded_at=row.get("unblinded_at"),
        unblind_forced=bool(row.get("unblind_forced")),
    )
    for artefact in blind_rows.frozen_texts(db, study_id, "rubric"):
        try:
            rubric = _parse_cached(artefact["content"])
        except Exception:  # a frozen artefact that is not rubric TOML: keep looking by ref
            continue
        ctx.rubrics[rubric.id] = rubric
    wanted = list(definition.get("rubrics") or [])
    for case_id in definition.get("cases") or []:
        case = _frozen_or_stored_case(db, study_id, case_id)
        if case is not None:
            ctx.cases[case_id] = case
            if case.rubric:
                wanted.append(case.rubric)
    for rid in dict.fromkeys(wanted):
        if rid not in ctx.rubrics:
            versions = rubric_rows.rubric_versions(db, rid)
            if versions:
                ctx.rubrics[rid] = _parse_cached(versions[-1]["text"])
    # A rubric refined after a pilot round below target (workbench/pilots/kappa.py) is scored in its new,
    # recorded version from then on.
    from store.pilots import refinements

    for ref in refinements(db, study_id):
        row = rubric_rows.get_rubric_version(db, ref["new_hash"])
        if row is not None:
            ctx.rubrics[ref["rubric_id"]] = _parse_cached(row["text"])
    return ctx


def _frozen_or_stored_case(db: sqlite_utils.Database, study_id: str, case_id: str) -> Case | None:
    for artefact in _frozen_case_artefacts(db, study_id):
        case = _case_from_artefact(artefact["content"])
        if case is not None and case.id == case_id:
            return case
    from workbench.cases.library import load_case

    return load_case(db, case_id)


def _frozen_case_artefacts(db: sqlite_utils.Database, study_id: str) -> list[dict]:
    return blind_rows.frozen_texts(db, study_id, "case")


def _case_from_artefact(content: str) -> Case | None:
    """A frozen case is stored either as its JSON document or as the case file's text."""
    try:
        return Case.from_dict(json.loads(content))
    except (ValueError, TypeError, KeyError):
        pass
    try:
        from workbench.cases.parse import parse_text

        return parse_text(content, "<frozen case>").case
    except (ValueError, tomllib.TOMLDecodeError):
        return None
