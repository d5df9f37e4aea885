"""The hindsight protocol's simulator: what the offline `sim` model answers to each of its calls.

Planted (from the study's `[simulation]` table, see workbench/simmodel/params.py):
- a run's latent quality = baseline + the condition's effect + a case part + a run part; each of the
  case's outcome points is named as a risk with probability Φ(latent) (the planted Anticipation
  effect), and each of three caveats is given with probability Φ(humility latent);
- P1's three replicates of a case agree or diverge by a topology drawn per case (basin: one
  recommendation and the same claims; ridge: the third run recommends otherwise; plateau: all differ).
- perspectives (a committee member's opening, a respondent's answer, B3's numbered views) each take a
  lens (finance, operations, law, ...): parallel members draw theirs independently, B3's later views
  repeat the first view's lens with probability `ANCHORING` (the sequential anchoring seed 001 tests), so
  DQ-1 and DQ-2 have something to measure;
- the DQ-3 concern judge (role "concern") scores each listed concern addressed with probability
  Φ(latent), else mentioned or not discussed, in the JSON the assessment asks for.
Every reply speaks the format its prompt asks for (committee moves with VOTE / SECOND / MOTION lines,
B3's perspectives in one of several layouts, numbered SCENARIO sections, the four report headings, the extraction's and the topology
comparison's JSON), so the architectures' own parsers read it. Every reply starts with the SIMULATED banner.
"""

from __future__ import annotations

import json
import re

from workbench.simmodel import draws
from workbench.simmodel.label import REPLY_BANNER
from workbench.simmodel.truth import CAVEATS, outcome_points, risk_line

OPTIONS = (
    "Go ahead with the proposal as it stands, with the safeguards listed below.",
    "Go ahead in stages, with a review before each further commitment.",
    "Hold off and pursue the alternative course that is on the table.",
)
CLAIMS = (
    ("The expected gains outweigh the costs if the plan holds.", "Delay would cost more than acting now."),
    ("Staging keeps the option to stop if early signs are bad.", "The largest uncertainty resolves within months."),
    ("The downside of acting is larger than the upside.", "The alternative keeps more options open."),
)
FINAL_PHASES = ("answer", "synthesis", "resolution")
PERSPECTIVE_PHASES = ("respond", "opening")  # C1's respondents, C2's (and C3's committees') openings
ANCHORING = 0.6  # B3: a later view repeats the first view's lens with this probability
LENSES = (
    "Money first. The budget, the cash flow and the cost of capital decide this: an overrun, a write-off or a "
    "missed revenue target would weigh on the balance sheet for years, and the finance committee will ask who "
    "signed off.",
    "Operations carry the load. Staffing rotas, maintenance windows and supplier lead times strain first; a shift "
    "without cover or a late spare part stops the line long before any plan notices.",
    "The legal exposure matters most. Contracts, liability clauses, licences and the regulator's reporting duties "
    "can turn one slip into a breach, a fine or a lawsuit that outlasts the project.",
    "Customers notice first. Interrupted service, changed prices and broken promises erode their trust and "
    "loyalty faster than any satisfaction survey shows, and complaints travel.",
    "People inside bear it. Workload, morale and the risk of losing the few experienced colleagues who know how "
    "things really work; burnout and resignations follow a rushed change.",
    "The technology is the weak point. Integration with old systems, data migration, security patches and vendor "
    "lock-in hide failures that only show under load or during an outage.",
    "Reputation is at stake. Press coverage, community relations and how partners and investors read the "
    "decision shape the next years more than the decision itself.",
    "Think a decade ahead. Competitors' moves, market shifts and the options this choice closes off matter more "
    "than this year's numbers.",
)
# Each lens's titles: a view that anchors on an earlier view's lens takes the lens's next title, as an anchored
# model renames what it repeats (a careful reader flags two views under one title as sub-headings misread).
LENS_TITLES = (("Money", "The budget", "Cost of capital"), ("Operations", "Day-to-day running", "Capacity"),
               ("Legal exposure", "Liability", "Compliance"), ("Customers", "Service quality", "Client trust"),
               ("People", "Staff morale", "Key colleagues"), ("Technology", "Systems", "Legacy software"),
               ("Reputation", "Public image", "Partners' view"), ("The long term", "Strategy", "Future options"))
_TOPOLOGY = ("basin", "ridge", "plateau")
# B3 layouts the simulator writes, each read without a flag by the careful reader (`read_perspectives` in
# workbench/protocols/hindsight/architectures/perspectives/; tests/simulation/test_sim_b3_layouts.py)
B3_LAYOUTS = (
    "PERSPECTIVE {n}: {title}\n{body}",
    "**Perspective {letter}: {title}**\n{body}",
    "### {n}. {title}\n{body}",
    "{n}. **{title}**: {body}",
    "**{title}:** {body}",
)

# B3's whole answer after the banner: its views as paragraphs of their own (a blank line before the first, so
# a bold lead-in opens one), then the synthesis and the report
B3_ANSWER = "\n{views}\n\nSYNTHESIS\n{report}"


def b3_views(layout: str, lenses: list[int], risks: list[str]) -> str:
    """B3's views in one layout, a lens each; a lens met again takes its next title."""
    views = []
    for i, lens in enumerate(lenses):
        title = LENS_TITLES[lens][lenses[:i].count(lens)]
        views.append(layout.format(n=i + 1, letter="ABC"[i], title=title,
                                   body=f"{LENSES[lens]}\n{risks[i % len(risks)]}"))
    return "\n\n".join(views)


class HindsightSimulator:
    def reply(self, request, params: dict, db) -> str:
        meta = request.metadata or {}
        prompt = "\n".join(str(m.get("content") or "") for m in request.messages)
        phase = meta.get("phase") or ""
        if request.role == "concern":
            return assess_concerns(request, params, db, str(request.messages[-1].get("content") or ""))
        if phase == "extract":
            return copy_report(prompt)
        if phase == "topology":
            return compare_runs(prompt) if "RUN A" in prompt else extract_claims(prompt)
        run = Run(params, db, str(meta.get("item") or ""), str(meta.get("condition") or ""),
                  int(meta.get("replicate") or 0))
        key = (request.agent, request.turn, request.sample)
        if phase == "vote":
            aye = draws.rng(params["seed"], "vote", run.case, run.condition, run.replicate, key).random() < 0.8
            return (f"{REPLY_BANNER}\nVOTE: {'aye' if aye else 'nay'}\n"
                    f"REASON: {'It fits the risks already named.' if aye else 'It leaves a named risk open.'}")
        if phase == "second":
            return f"{REPLY_BANNER}\nSECOND: yes\nIt deserves a debate."
        if phase in ("motion", "restate"):
            return f"{REPLY_BANNER}\nMOTION: {run.option}\nIt answers the main risk directly."
        if phase == "fan":
            m = re.search(r"generate (\d+) divergent scenarios", prompt)
            n = int(m.group(1)) if m else 3
            return REPLY_BANNER + "\n" + "\n".join(
                f"SCENARIO {i + 1}: Path {i + 1}\n{run.scenario_text(i)}" for i in range(n))
        if phase in PERSPECTIVE_PHASES:
            return f"{REPLY_BANNER}\n{run.perspective(str(request.agent or ''))}"
        if phase in FINAL_PHASES:
            return f"{REPLY_BANNER}\n{run.b3_answer() if run.condition == 'B3' else run.report()}"
        return f"{REPLY_BANNER}\n{run.statement()}"


class Run:
    """One run's planted draws: which outcome points it foresees, its caveats, its recommendation."""

    def __init__(self, params: dict, db, case: str, condition: str, replicate: int):
        self.params, self.case, self.condition, self.replicate = params, case, condition, replicate
        seed = params["seed"]
        self.points = outcome_points(_outcome(db, case))
        p = draws.probit(draws.latent(params, case, condition, replicate))
        self.foreseen = [i for i in range(len(self.points))
                         if draws.rng(seed, "point", case, condition, replicate, i).random() < p]
        h = draws.probit(draws.latent(params, case, condition, replicate, kind="humility"))
        self.caveats = [c for i, c in enumerate(CAVEATS)
                        if draws.rng(seed, "caveat", case, condition, replicate, i).random() < h]
        self.choice = self._choice()
        self.option = OPTIONS[self.choice]

    def _choice(self) -> int:
        seed = self.params["seed"]
        if self.condition != "P1":
            return draws.rng(seed, "option", self.case, self.condition, self.replicate).randrange(len(OPTIONS))
        weights = [self.params["topology"].get(t, 0.0) for t in _TOPOLOGY]
        pattern = draws.rng(seed, "topology", self.case).choices(_TOPOLOGY, weights=weights)[0]
        first = draws.rng(seed, "p1-option", self.case).randrange(len(OPTIONS))
        if pattern == "basin" or (pattern == "ridge" and self.replicate < 2):
            return first
        return (first + 1 + (self.replicate if pattern == "plateau" else 0)) % len(OPTIONS)

    def risks(self) -> list[str]:
        lines = [risk_line(i, self.points[i]) for i in self.foreseen]
        return lines or ["Costs may run above plan if the schedule slips."]

    def report(self) -> str:
        level = ("high", "medium", "low", "low")[len(self.caveats)]
        confidence = " ".join([f"{level.capitalize()}."] + self.caveats)
        return (f"RECOMMENDATION: {self.option}\nREASONING: {' '.join(CLAIMS[self.choice])}\n"
                "RISKS:\n" + "\n".join(f"- {r}" for r in self.risks()) + f"\nCONFIDENCE: {confidence}")

    def b3_answer(self) -> str:
        return B3_ANSWER.format(views=self.perspectives(), report=self.report())

    def perspectives(self) -> str:
        """B3's three views, one after another: each later view may anchor on the first one's lens (its words,
        under the lens's next title). The layout is drawn per run among those models write (B3_LAYOUTS), so
        B3's parser is exercised end to end."""
        seed = self.params["seed"]
        first = self._lens("view-1")
        layout = draws.rng(seed, "b3-layout", self.case, self.condition, self.replicate).choice(B3_LAYOUTS)
        lenses = [first]
        for i in (1, 2):
            anchored = draws.rng(seed, "anchor", self.case, self.condition, self.replicate, i).random() < ANCHORING
            lenses.append(first if anchored else self._lens(f"view-{i + 1}"))
        return b3_views(layout, lenses, self.risks())

    def perspective(self, agent: str) -> str:
        """A parallel member's own view: a lens drawn for this member alone."""
        return f"{LENSES[self._lens(agent)]}\nI lean towards: {self.option}"

    def _lens(self, who: str) -> int:
        return draws.rng(self.params["seed"], "lens", self.case, self.condition, self.replicate, who
                         ).randrange(len(LENSES))

    def scenario_text(self, i: int) -> str:
        risks = self.risks()
        return f"In this path, {risks[i % len(risks)][0].lower()}{risks[i % len(risks)][1:]}"

    def statement(self) -> str:
        return f"I favour this course: {self.option}\n" + "\n".join(f"- {r}" for r in self.risks())


def assess_concerns(request, params: dict, db, user: str) -> str:
    """The DQ-3 concern judge: each listed concern addressed with probability Φ(the run's latent), else
    mentioned or not discussed, as the JSON `metrics --assess-concerns` asks for."""
    case, condition, replicate = _run_of(db, request.run_id)
    p = draws.probit(draws.latent(params, case, condition, replicate)) if case else 0.5
    listed = user.split("<analysis>")[0]  # the user message: the concern list, then the analysis
    concerns = [line[2:].strip() for line in listed.splitlines() if line.startswith("- ")]
    out = []
    for c in concerns:
        u = draws.rng(params["seed"], "concern", case, condition, replicate, c).random()
        out.append({"concern": c, "score": 1 if u < p else (0.5 if u < (1 + p) / 2 else 0), "evidence": ""})
    return _json({"concerns": out})


def _run_of(db, run_id: str | None) -> tuple[str, str, int]:
    from store.runs import get_run

    row = get_run(db, run_id) if db is not None and run_id else None
    return (row["case_id"], row["condition"], int(row["replicate"] or 0)) if row else ("", "", 0)


def _outcome(db, case: str) -> str:
    if db is None or not case:
        return ""
    from store.cases import get_case

    row = get_case(db, case)
    return (row or {}).get("document", {}).get("outcome", "") if row else ""


def _json(data) -> str:
    return f"{REPLY_BANNER}\n{json.dumps(data, ensure_ascii=False)}"


def _block(prompt: str, name: str) -> str:
    m = re.search(rf"<<<{name}\n(.*?)\n{name}>>>", prompt, re.DOTALL)
    return m.group(1) if m else ""


def copy_report(prompt: str) -> str:
    """The extraction step: copy the report's sentences word for word (never add one)."""
    from workbench.protocols.hindsight.architectures.report import parse_report

    report = parse_report(_block(prompt, "RESPONSE"))
    split = lambda text: [s for s in re.split(r"(?<=[.!?])\s+", text) if s.strip()]  # noqa: E731
    return _json({"recommendation": split(report["recommendation"]), "reasoning": split(report["reasoning"]),
                  "risks": list(report["risks"]), "confidence": split(report["confidence"])})


def extract_claims(prompt: str) -> str:
    """P1 step 1: the run's recommendation and its claims (the reasoning's sentences)."""
    from workbench.protocols.hindsight.architectures.report import parse_report

    report = parse_report(_block(prompt, "OUTPUT"))
    claims = [s for s in re.split(r"(?<=[.!?])\s+", report["reasoning"]) if s.strip()][:3]
    return _json({"recommendation": report["recommendation"], "claims": claims})


def compare_runs(prompt: str) -> str:
    """P1 step 2: runs with the same recommendation form a group; claims with the same text form a group."""
    recs: dict[str, list[str]] = {}
    claims: dict[str, list[str]] = {}
    for label, rec in re.findall(r"^RUN ([A-C])\nRecommendation: (.*)$", prompt, re.MULTILINE):
        recs.setdefault(rec.strip(), []).append(label)
    for label, text in re.findall(r"^Claim ([A-C]\d): (.*)$", prompt, re.MULTILINE):
        claims.setdefault(text.strip(), []).append(label)
    return _json({"recommendation_groups": list(recs.values()), "claim_groups": list(claims.values())})


SIMULATOR = HindsightSimulator()
