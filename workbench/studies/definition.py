"""Study files: TOML parsed into a definition dict with every default filled in.

`parse_study_text` checks the file on its own (types, ranges, unknown keys);
`check_against_library` checks what it names against the store (cases exist
and are ready, rubrics exist). Every problem names the file, the line and the
dotted key, e.g. `studies/x.toml:12: model.temperature: must be ...`.

The documented format is studies/README.md; keep the two in step.
"""

from __future__ import annotations

import hashlib
import re
import tomllib
from typing import Any

from workbench.gateway.api import CONNECTION_KEYS
from workbench.gateway.connection_keys import check_connection_keys
from workbench.problems import Problem, key_lines, line_of
from workbench.protocol import registry

STUDY_ID = re.compile(r"^[a-z0-9][a-z0-9-]{1,62}$")
JUDGE_PIPELINES = ("direct", "adversarial")

MODEL_DEFAULTS = {"name": "mock", "api_base": "", "temperature": 0.7, "seed": None, "max_tokens": 1024,
                  "timeout": 120.0, "on_truncation": "keep"}
# What a reply cut at max_tokens means for the study (workbench/runs/truncation.py): keep it, marked
# truncated; fail the run; or ask the model to go on (up to MAX_CONTINUATIONS logged turns).
TRUNCATION_CHOICES = ("keep", "fail", "continue")
JUDGE_DEFAULTS = {"model": "mock", "api_base": "", "temperature": 0.0, "pipeline": "direct", "runs": 1}
BLINDING_DEFAULTS = {"overlap": 1.0, "pilot_items": True}

# Keys every protocol's study file shares; a protocol adds its own (`StudyProtocol.top_keys`, `section`).
COMMON_KEYS = ("name", "protocol", "description", "conditions", "replicates", "raters", "rubrics",
               "cost_ceiling", "model", "judges", "thresholds", "blinding", "simulation", "quality",
               "on_missing_treatment", "replication_of")


class StudyError(Exception):
    """An invalid study file or definition; carries every problem found."""

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


class StudyChecker:
    """Collects problems with the line of the key they concern. Calling it reports one:
    `check("model.seed", "must be an integer")`; its typed getters read a value and report a wrong one."""

    def __init__(self, name: str, lines: dict[str, int]):
        self.name = name
        self.lines = lines
        self.problems: list[Problem] = []

    def line_of(self, key: str) -> int:
        return line_of(self.lines, key)

    def bad(self, key: str, message: str) -> None:
        self.problems.append(Problem(self.name, self.line_of(key), key, message))

    __call__ = bad

    # --- typed getters: return the value (or the default) and report a wrong one ---------------
    def string(self, table: dict, key: str, path: str, default: Any = ..., *, allow_empty: bool = True) -> Any:
        if key not in table:
            if default is ...:
                self.bad(path, "is required")
                return None
            return default
        value = table[key]
        if not isinstance(value, str):
            self.bad(path, f"must be a string, not {_type(value)}")
            return default if default is not ... else None
        if not allow_empty and not value.strip():
            self.bad(path, "must not be empty")
        return value

    def number(self, table: dict, key: str, path: str, default: Any, *, lo: float | None = None,
               hi: float | None = None, integer: bool = False, lo_open: bool = False) -> Any:
        if key not in table:
            return default
        value = table[key]
        ok_type = isinstance(value, int) if integer else isinstance(value, (int, float))
        if isinstance(value, bool) or not ok_type:
            self.bad(path, f"must be {'an integer' if integer else 'a number'}, not {_type(value)}")
            return default
        if (lo is not None and (value <= lo if lo_open else value < lo)) or (hi is not None and value > hi):
            left = f"greater than {lo}" if lo_open else f"at least {lo}"
            rng = f"{left} and at most {hi}" if hi is not None else left
            self.bad(path, f"must be {rng} (got {value})")
            return default
        return value if integer else float(value)

    def boolean(self, table: dict, key: str, path: str, default: bool) -> bool:
        if key not in table:
            return default
        if not isinstance(table[key], bool):
            self.bad(path, f"must be true or false, not {_type(table[key])}")
            return default
        return table[key]

    def strings(self, table: dict, key: str, path: str, default: Any = ..., *, unique: bool = True) -> list[str]:
        if key not in table:
            if default is ...:
                self.bad(path, "is required")
                return []
            return list(default)
        value = table[key]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self.bad(path, "must be a list of strings")
            return []
        if unique:
            dupes = sorted({v for v in value if value.count(v) > 1})
            if dupes:
                self.bad(path, f"lists {', '.join(dupes)} more than once")
        return list(value)

    def table(self, data: dict, key: str, path: str) -> dict:
        value = data.get(key, {})
        if not isinstance(value, dict):
            self.bad(path, f"must be a table ([{path}]), not {_type(value)}")
            return {}
        return value

    def unknown(self, table: dict, allowed: tuple[str, ...] | set[str], prefix: str) -> None:
        for key in table:
            if key not in allowed:
                where = f"{prefix}.{key}" if prefix else key
                self.bad(where, f"unknown key; known keys here: {', '.join(sorted(allowed))}")


def _type(value: Any) -> str:
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "a list",
            dict: "a table"}.get(type(value), type(value).__name__)


def default_blinding_seed(name: str) -> int:
    """A stable seed derived from the study's name, so re-reading one file gives one definition."""
    return int(hashlib.sha256(name.encode("utf-8")).hexdigest()[:8], 16)


def parse_study_text(text: str, name: str = "<study>") -> dict:
    """Validate a study file and return its definition with every default filled in."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        match = re.search(r"line (\d+)", str(exc))
        raise StudyError([Problem(name, int(match.group(1)) if match else 1, "toml",
                                  f"invalid TOML: {exc}")]) from None
    c = StudyChecker(name, key_lines(text))

    study_name = c.string(data, "name", "name")
    if isinstance(study_name, str) and not STUDY_ID.match(study_name):
        c.bad("name", "must be 2-63 characters of lowercase letters, digits and '-' (it is the study id)")
    protocol_name = c.string(data, "protocol", "protocol", "hindsight")
    try:
        protocol = registry.get(protocol_name if isinstance(protocol_name, str) else "hindsight")
    except registry.UnknownProtocol as exc:
        c.bad("protocol", str(exc))
        raise StudyError(c.problems) from None
    owned = (*protocol.top_keys, *((protocol.section,) if protocol.section else ()))
    c.unknown(data, (*COMMON_KEYS, *owned), "")

    known = protocol.conditions()
    conditions = c.strings(data, "conditions", "conditions", protocol.default_conditions())
    for cond in conditions:
        if known and cond not in known:
            c.bad("conditions", f"'{cond}' is not a known condition of protocol {protocol.name}; "
                                f"use any of {', '.join(known)}")
    if "conditions" in data and not conditions and isinstance(data["conditions"], list):
        c.bad("conditions", "must name at least one condition")

    definition: dict[str, Any] = {
        "name": study_name,
        "protocol": protocol.name,
        "description": c.string(data, "description", "description", ""),
        "conditions": conditions,
        "replicates": c.number(data, "replicates", "replicates", 1, lo=1, hi=50, integer=True),
        "raters": c.strings(data, "raters", "raters", []),
        "rubrics": c.strings(data, "rubrics", "rubrics", list(protocol.default_rubrics)),
        "cost_ceiling": c.number(data, "cost_ceiling", "cost_ceiling", None, lo=0, lo_open=True),
        "model": _model(c, data),
        "judges": _judges(c, data),
        "thresholds": _thresholds(c, data, protocol.threshold_defaults),
        "blinding": _blinding(c, data, study_name if isinstance(study_name, str) else ""),
    }
    _simulation(c, data, definition)
    from workbench.fidelity.policy import KEY, check as check_treatment_policy

    policy = check_treatment_policy(data, c.bad)  # written only when the file names it: older hashes stay
    if policy is not None:
        definition[KEY] = policy
    if "replication_of" in data:   # a confirmatory replication of an earlier study, on new data (studies/lineage.py)
        definition["replication_of"] = c.string(data, "replication_of", "replication_of", "")
    for rater in definition["raters"]:  # a rater's name is shown to other people and printed: the study-id rule
        if not STUDY_ID.match(rater):
            c.bad("raters", f"'{rater}' must be 2-63 characters of lowercase letters, digits and '-'")
    check_evaluators(c, data, definition, protocol.required_evaluators)
    if protocol.section:
        if not isinstance(data.get(protocol.section, {}), dict):
            c.bad(protocol.section, f"must be a table ([{protocol.section}])")
        else:
            definition[protocol.section] = protocol.check_section(data, definition, c)
    else:  # a protocol whose keys sit at the top of the file (hindsight: cases, architectures, metrics)
        definition.update(protocol.check_section(data, definition, c))
    from workbench.evaluators.settings import check_quality

    check_quality(c, data, definition, name)  # [quality]: gold, attention, exclusion rules (issue 32)
    if c.problems:
        raise StudyError(c.problems)
    return definition


# --- who scores: a study that cannot be scored is refused, not stored (issue 15) --------------------------
EVALUATOR_HELP = {
    "raters": ("no human raters: nobody could score it blind",
               'name them (raters = ["rater-a", "rater-b"]), or write raters = [] to go without'),
    "judges": ("no LLM judges", "add a [[judges]] table, or write judges = [] to go without"),
}


def check_evaluators(c: StudyChecker, data: dict, definition: dict, required: tuple[str, ...]) -> None:
    """A protocol scored by raters and judges (`required_evaluators`) refuses a file that leaves them out;
    an explicit empty list (`raters = []`) is the user's recorded choice and passes."""
    for key in required:
        if key not in data and not definition.get(key):
            problem, fix = EVALUATOR_HELP[key]
            c.bad(key, f"{problem}; {fix}")


def _simulation(c: StudyChecker, data: dict, definition: dict) -> None:
    """A study on the offline `sim` model gets its planted parameters (`[simulation]`, frozen with it);
    `sim` never mixes with real models in one study."""
    from workbench.simmodel.label import is_simulated, mixing_problem
    from workbench.simmodel.params import check_simulation

    problem = mixing_problem(definition)
    if problem:
        c.bad("model.name", problem)
    if "simulation" in data and not is_simulated(definition):
        c.bad("simulation", "planted parameters need the `sim` model: set [model] name = \"sim\"")
    elif is_simulated(definition):
        definition["simulation"] = check_simulation(c, data, definition)


def _model(c: StudyChecker, data: dict) -> dict:
    t = c.table(data, "model", "model")
    c.unknown(t, (*MODEL_DEFAULTS, *CONNECTION_KEYS), "model")
    seed = t.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        c.bad("model.seed", f"must be an integer, not {_type(seed)}")
        seed = None
    return {
        "name": c.string(t, "name", "model.name", MODEL_DEFAULTS["name"], allow_empty=False),
        "api_base": c.string(t, "api_base", "model.api_base", ""),
        "temperature": c.number(t, "temperature", "model.temperature", MODEL_DEFAULTS["temperature"], lo=0, hi=2),
        "seed": seed,
        "max_tokens": c.number(t, "max_tokens", "model.max_tokens", MODEL_DEFAULTS["max_tokens"], lo=1,
                               hi=1_000_000, integer=True),
        "timeout": c.number(t, "timeout", "model.timeout", MODEL_DEFAULTS["timeout"], lo=0, lo_open=True),
        "on_truncation": _on_truncation(c, t),
        **check_connection_keys(t, "model", c.bad),
    }


def _on_truncation(c: StudyChecker, t: dict) -> str:
    value = c.string(t, "on_truncation", "model.on_truncation", MODEL_DEFAULTS["on_truncation"])
    if value not in TRUNCATION_CHOICES:
        c.bad("model.on_truncation", f"must be one of {', '.join(repr(v) for v in TRUNCATION_CHOICES)} "
                                     f"(got {value!r})")
        return MODEL_DEFAULTS["on_truncation"]
    return value


def _judges(c: StudyChecker, data: dict) -> list[dict]:
    raw = data.get("judges", [])
    if not isinstance(raw, list) or not all(isinstance(j, dict) for j in raw):
        c.bad("judges", "must be an array of tables ([[judges]])")
        return []
    judges, seen = [], set()
    for i, j in enumerate(raw):
        p = f"judges[{i}]"
        c.unknown(j, ("name", *JUDGE_DEFAULTS, "max_tokens", "timeout", *CONNECTION_KEYS), p)
        name = c.string(j, "name", f"{p}.name", allow_empty=False)
        if name in seen:
            c.bad(f"{p}.name", f"judge name '{name}' is used twice")
        seen.add(name)
        pipeline = c.string(j, "pipeline", f"{p}.pipeline", JUDGE_DEFAULTS["pipeline"])
        if pipeline not in JUDGE_PIPELINES:
            c.bad(f"{p}.pipeline", f"must be one of {', '.join(JUDGE_PIPELINES)}")
        runs = c.number(j, "runs", f"{p}.runs", JUDGE_DEFAULTS["runs"], lo=1, hi=3, integer=True)
        if runs == 2:
            c.bad(f"{p}.runs", "must be 1 or 3 (three runs give the HIGH/MEDIUM/LOW spread)")
        judges.append({
            "name": name,
            "model": c.string(j, "model", f"{p}.model", JUDGE_DEFAULTS["model"], allow_empty=False),
            "api_base": c.string(j, "api_base", f"{p}.api_base", ""),
            "temperature": c.number(j, "temperature", f"{p}.temperature", JUDGE_DEFAULTS["temperature"],
                                    lo=0, hi=2),
            "pipeline": pipeline,
            "runs": runs,
            # kept only when given, so that a file without it keeps the definition (and freeze) it had
            **({"max_tokens": c.number(j, "max_tokens", f"{p}.max_tokens", 1024, lo=1, hi=1_000_000, integer=True)}
               if "max_tokens" in j else {}),
            **({"timeout": c.number(j, "timeout", f"{p}.timeout", 120.0, lo=0, lo_open=True)}
               if "timeout" in j else {}),
            **check_connection_keys(j, p, c.bad),
        })
    return judges


def _thresholds(c: StudyChecker, data: dict, defaults: dict[str, float]) -> dict:
    """The protocol's pre-registered thresholds (each in [0, 1]), defaults filled."""
    t = c.table(data, "thresholds", "thresholds")
    c.unknown(t, tuple(defaults), "thresholds")
    return {k: c.number(t, k, f"thresholds.{k}", v, lo=0, hi=1) for k, v in defaults.items()}


def _blinding(c: StudyChecker, data: dict, study_name: str) -> dict:
    t = c.table(data, "blinding", "blinding")
    c.unknown(t, ("overlap", "pilot_items", "seed"), "blinding")
    seed = t.get("seed", default_blinding_seed(study_name))
    if isinstance(seed, bool) or not isinstance(seed, int):
        c.bad("blinding.seed", f"must be an integer, not {_type(seed)}")
        seed = 0
    return {
        "overlap": c.number(t, "overlap", "blinding.overlap", BLINDING_DEFAULTS["overlap"], lo=0, hi=1,
                            lo_open=True),
        "pilot_items": c.boolean(t, "pilot_items", "blinding.pilot_items", BLINDING_DEFAULTS["pilot_items"]),
        "seed": seed,
    }


def check_against_library(definition: dict, db, name: str = "<study>", text: str = "") -> list[Problem]:
    """Problems with what the definition names: unknown rubrics, and whatever its protocol checks
    (hindsight: missing or non-ready cases)."""
    from workbench.cases.library import known_rubric_ids

    c = StudyChecker(name, key_lines(text) if text else {})
    rubric_ids = known_rubric_ids(db)
    for rubric_id in definition["rubrics"]:
        if rubric_id not in rubric_ids:
            c.bad("rubrics", f"no rubric with id '{rubric_id}' in rubrics/ or the store")
    registry.protocol_of(definition).check_library(db, definition, c)
    return c.problems
