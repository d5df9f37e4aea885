"""The condition-tell scrubber: what is removed from a final output before anyone scores it.

Every final output becomes a blind item only after `scrub(text, context)`.
The rules run in the order below; each replaces a tell with neutral wording
that any condition could have produced (a visible "[removed]" marker would be
a tell of its own), and each replacement is logged (rule, the text found, what
replaced it, how often) into the sealed key's `scrub_log`.

 1. mock-banner      "[placeholder: mock model]" -> "[placeholder text]" (every
                     condition's mock output gets the same neutral marker), and
                     the mock model's provenance ("Asked by <role/agent>, turn
                     ...", "(draw ..., replicate n, sample n)", "Prompt began:
                     ...") is removed
 2. model-name       the study's architecture and judge model strings (whole, and
                     the part after the last "/"), and common model and provider
                     names (GPT-4o, GPT-4, GPT-3.5, GPT-5, ChatGPT, Claude ...,
                     Gemini, Llama, Mistral, Mixtral, Qwen, DeepSeek, Gemma, Grok,
                     Command R, OpenAI, Anthropic, Cohere) -> "[model]"
 3. vote-tally (a)   parentheticals holding a count or a vote, "(4 in favour, 1
                     against)", and ", by a vote of 4-1," clauses are removed
 4. procedural-sentence  a whole sentence about meeting procedure is dropped:
                     Robert's Rules, quorum, point of order, calling the question,
                     yielding or having the floor, a bare head count ("4 in
                     favour", "2 against", "two abstentions")
 5. vote-tally (b)   "passed|carried|voted ... 5-0" -> "passed|carried|voted";
                     "a 4-1 vote|decision|majority|split" -> "a decision";
                     "4-1 in favour" -> "in favour"; "voted to" -> "decided to";
                     "voted for|in favour of" -> "favoured"; "voted against" ->
                     "opposed"; "the|a|our (final) vote" -> "the decision";
                     "was unanimous" -> "was agreed"; "unanimous(ly)" dropped;
                     "(a|the) majority|minority view|opinion|position|report" ->
                     "another view"
 6. resolution       "RESOLVED, that" / "be it resolved that" / "resolved that"
                     -> "It is recommended that"; a bare "RESOLVED:" ->
                     "Recommendation:"; "the|this|our|final|draft|adopted
                     resolution" -> "... recommendation"
 7. motion           "seconds the motion" -> "supports the proposal"; "motion(s)"
                     -> "proposal(s)"; "I move that" / "moved that" -> "I propose
                     that" / "proposed that"; "seconded" -> "supported";
                     "(friendly) amendment(s)" -> "revision(s)"; "as amended" ->
                     "as revised"
 8. committee        "(the) members of the committee|panel", "committee|panel
                     member(s)" -> "the perspectives"; "a|the panel of (five)
                     advisers|experts|respondents|members" and "the|this|our
                     committee|panel" -> "the analysis"; other "committee(s)" ->
                     "analysis/analyses"; "deliberation(s)" -> "analysis",
                     "deliberated" -> "considered", "deliberating" -> "considering"
 9. architecture-name  "chain-of-thought", "multi-perspective", "hub-and-spoke",
                     "fan-out (and funnel)", "deliberated choice", "peer-agent",
                     "multi-agent", "single prompt" -> "analysis"
9b. reasoning-scaffold  the chain-of-thought prompt's own words echoed back:
                     "Let's think step by step", "Thinking step by step," and a
                     sentence-initial "Step by step," are dropped; any other
                     "step by step" / "step-by-step" -> "in turn"
10. respondent       "Respondent 3", "respondent #2", "Respondent B" -> "one view";
                     "(all|the|five ...) (independent) respondents" -> "the views";
                     "respondent" -> "one view"
11. chair            "(the) (committee) chair|chairperson|chairman|chairwoman|
                     coordinator|moderator|facilitator|synthesizer|parliamentarian"
                     -> "the summary"
12. agent-label      "Member 2", "Agent 4", "Persona 1", "Expert 3", "Panelist 5",
                     "Delegate 2", "Participant 1", "Adviser 3 (of 5)", "Perspective
                     2", "Viewpoint B" -> "one perspective"; "Scenario 3" -> "one
                     scenario"
13. roster-role      every role name and id of the study's C2 roster (and any C1
                     respondent names) from the study definition, plus the usual
                     committee roles (Devil's Advocate, Skeptic, Sceptic, Risk
                     Analyst, Red Team, Domain Expert, Historian, Strategist,
                     Ethicist, Pragmatist, Contrarian, Customer Advocate):
                     "the|a|an <role>('s)" and "<role>('s)" -> "one perspective('s)"

Scenario exemption. The word rules (provider names in 2; 5's vote words; 6-9;
11; 13) can hit legitimate content. When the case's scenario itself uses the
word (a case about a council committee, a case about OpenAI), that rule is
skipped for items of that case and the exemption is logged. Tally counts, the
respondent and agent labels, the study's own model strings and the mock banner
are always removed. The rules work line by line on each line's content, never
on its structure (indentation, bullet, markdown heading, a report heading such
as "REASONING:"), so a removal cannot delete a heading or join two lines.
Afterwards the gaps a removal leaves in a line are closed (doubled spaces, a
space before punctuation, empty parentheses, a stray leading comma), and a
replacement at the start of a sentence gets a capital. Scrubbing is idempotent.

An output scrubbed to (near) nothing (`emptied_reason`: no word left, or less
than a third of its words) is held back by `items.py`: it never becomes a blind
item, so no rater or judge reads it, and the researcher is told why.

The scrubber errs towards blindness; the blindness audit (an LLM asked which
architecture wrote each item, `judges/audit.py`) checks that it did enough.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable

MOCK_BANNER = "[placeholder: mock model]"
MOCK_MARKER = "[placeholder text]"
MODEL_MARKER = "[model]"

# Role names committees commonly use; the study's own roster is added to these.
COMMON_ROLES = (
    "Devil's Advocate", "Skeptic", "Sceptic", "Risk Analyst", "Red Team", "Domain Expert", "Historian",
    "Strategist", "Ethicist", "Pragmatist", "Contrarian", "Customer Advocate",
)

# Common model and provider names, each with the word whose presence in the scenario exempts it
# (the study's own model strings are added per study and never exempt).
_PROVIDER_NAMES = [
    (r"gpt-?4o(?:-mini)?", "gpt"), (r"gpt-?4(?:\.\d+)?(?:-turbo)?", "gpt"), (r"gpt-?3\.5(?:-turbo)?", "gpt"),
    (r"gpt-?5(?:-mini)?", "gpt"), (r"chatgpt", "chatgpt"),
    (r"claude(?:[- ]?\d(?:\.\d)?)?(?:[- ](?:sonnet|opus|haiku)(?:[- ]\d(?:\.\d)?)?)?", "claude"),
    (r"gemini(?:[- ]\d(?:\.\d)?)?(?:[- ](?:pro|flash|ultra))?", "gemini"), (r"llama[- ]?\d*(?:\.\d)?", "llama"),
    (r"mistral", "mistral"), (r"mixtral", "mixtral"), (r"qwen[- ]?\d*(?:\.\d)?", "qwen"),
    (r"deepseek(?:[- ]\w+)?", "deepseek"), (r"gemma[- ]?\d*", "gemma"), (r"grok(?:[- ]\d)?", "grok"),
    (r"command[- ]r\+?", "command r"), (r"openai", "openai"), (r"anthropic", "anthropic"), (r"cohere", "cohere"),
]

# What the built-in mock model says about who asked it (agent, turn, prompt excerpt, draw).
_MOCK_PROVENANCE = [
    re.compile(r"Asked by [^\n]*?\.\s+(?=This is offline placeholder text)"),
    re.compile(r"\s*\(draw [0-9a-f]+, replicate \d+, sample \d+\)"),
    re.compile(r"Prompt began: \"[^\n]*\"\n*"),
]

_NUM = r"(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|no|none)"
_DASH = r"(?:[–—-]|\s+to\s+)"
_TALLY = rf"\d+\s*{_DASH}\s*\d+(?:\s*{_DASH}\s*\d+)?"


@dataclass
class ScrubContext:
    """What the scrubber must know about the study and the case."""

    model_names: list[str] = field(default_factory=list)  # architecture and judge model strings
    roles: list[str] = field(default_factory=list)        # C2 roster and C1 respondent role names
    scenario: str = ""                                    # the case scenario (for exemptions)


@dataclass
class ScrubResult:
    text: str
    log: list[dict]

    @property
    def removed(self) -> int:
        return sum(entry.get("count", 0) for entry in self.log)


@dataclass
class _Rule:
    name: str
    pattern: re.Pattern
    replace: str | Callable[[re.Match], str]
    exempt_terms: tuple[str, ...] = ()  # skip the rule when the scenario uses one of these words


def _r(pattern: str, flags: int = re.IGNORECASE) -> re.Pattern:
    return re.compile(pattern, flags)


def _capital_next(match: re.Match) -> str:
    # The removed words opened the sentence: the word that now opens it gets the capital.
    return match.group(1).upper()


def _static_rules() -> list[_Rule]:
    return [
        _Rule("vote-tally", _r(
            r"\s*\((?=[^()]*(?:\d+\s*(?:votes?\s+)?(?:in\s+favou?r|for|against|opposed|abstain\w*|abstentions?)"
            r"|\bvote[sd]?\b[^()]*\d))[^()]*\)"), ""),
        _Rule("vote-tally", _r(
            rf",?\s*\b(?:by\s+)?(?:a\s+)?(?:(?:unanimous|split|narrow|final)\s+)?(?:vote|margin|tally|count)\s+of\s+"
            rf"{_TALLY}(?:\s*,(?=\s))?"), ""),
        _Rule("procedural-sentence", _r(
            r"[^.!?\n]*(?:robert'?s\s+rules|\bquorum\b|\bpoint\s+of\s+order\b|\bcall(?:ed|s)?\s+the\s+question\b"
            r"|\bquestion\s+(?:was|is)\s+called\b|\byield(?:s|ed)?\s+the\s+floor\b|\bha(?:s|d)\s+the\s+floor\b"
            r"|\b\d+\s+(?:votes?\s+)?(?:in\s+favou?r|against|opposed|abstentions?|abstaining|abstained)\b"
            rf"|\b{_NUM}\s+(?:votes?\s+(?:in\s+favou?r|against)|abstentions?|abstaining|abstained)\b)"
            r"[^.!?\n]*[.!?]?"), ""),
        _Rule("vote-tally", _r(
            rf"\b(voted|passed|carried|adopted|approved|rejected|defeated|failed)\s+(?:by\s+)?{_TALLY}"),
              lambda m: m.group(1)),
        _Rule("vote-tally", _r(rf"\b{_TALLY}\s+(?:vote|decision|majority|split)\b"), "decision"),
        _Rule("vote-tally", _r(rf"\b{_TALLY}\s+(in\s+favou?r)"), lambda m: m.group(1)),
        _Rule("vote-tally", _r(r"\bvoted\s+to\b"), "decided to", ("vote",)),
        _Rule("vote-tally", _r(r"\bvoted\s+(?:in\s+favou?r\s+of|for)\b"), "favoured", ("vote",)),
        _Rule("vote-tally", _r(r"\bvoted\s+against\b"), "opposed", ("vote",)),
        _Rule("vote-tally", _r(r"\b(?:a|the|our)\s+(?:final\s+)?vote\b|\bfinal\s+vote\b"), "the decision", ("vote",)),
        _Rule("vote-tally", _r(r"\b(was|were|is|are)\s+unanimous\b"), lambda m: f"{m.group(1)} agreed"),
        _Rule("vote-tally", _r(r"\bunanimous(?:ly)?\s+"), ""),
        _Rule("vote-tally", _r(r"\b(?:(?:a|an|the)\s+)?(?:majority|minority)\s+(?:view|opinion|position|report)\b"),
              "another view"),
        _Rule("resolution", _r(r"\b(?:be\s+it\s+)?resolved\s*[,:]?\s*that\b"), "It is recommended that",
              ("resolved",)),
        _Rule("resolution", re.compile(r"\bRESOLVED\b\s*[:,.]?"), "Recommendation:", ("resolved",)),
        _Rule("resolution", _r(r"\b(the|this|our|final|draft|adopted)\s+resolution\b"),
              lambda m: f"{m.group(1)} recommendation", ("resolution",)),
        _Rule("motion", _r(r"\bseconds\s+the\s+(?:motion|proposal)\b"), "supports the proposal", ("motion",)),
        _Rule("motion", _r(r"\bmotions\b"), "proposals", ("motion",)),
        _Rule("motion", _r(r"\bmotion\b"), "proposal", ("motion",)),
        _Rule("motion", _r(r"\bI\s+move\s+that\b"), "I propose that", ("move that",)),
        _Rule("motion", _r(r"\bmoved\s+that\b"), "proposed that", ("moved that",)),
        _Rule("motion", _r(r"\bseconded\b"), "supported", ("seconded",)),
        _Rule("motion", _r(r"\b(?:friendly\s+)?amendments\b"), "revisions", ("amendment", "amended")),
        _Rule("motion", _r(r"\b(?:friendly\s+)?amendment\b"), "revision", ("amendment", "amended")),
        _Rule("motion", _r(r"\bas\s+amended\b"), "as revised", ("amendment", "amended")),
        _Rule("committee", _r(r"\b(?:the\s+)?members?\s+of\s+the\s+(?:committee|panel)\b"), "the perspectives",
              ("committee", "panel")),
        _Rule("committee", _r(r"\b(?:the\s+|our\s+)?(?:committee|panel)\s+members?\b"), "the perspectives",
              ("committee", "panel")),
        _Rule("committee", _r(
            r"\b(?:a|the|our|this)\s+panel\s+of\s+(?:\w+\s+)?(?:advisers|advisors|experts|respondents|members)\b"),
              "the analysis", ("panel",)),
        _Rule("committee", _r(r"\b(?:the|this|our)\s+(?:committee|panel)\b"), "the analysis",
              ("committee", "panel")),
        _Rule("committee", _r(r"\bcommittees\b"), "analyses", ("committee",)),
        _Rule("committee", _r(r"\bcommittee\b"), "analysis", ("committee",)),
        _Rule("committee", _r(r"\bdeliberations?\b"), "analysis", ("deliberation",)),
        _Rule("committee", _r(r"\bdeliberated\b"), "considered", ("deliberated",)),
        _Rule("committee", _r(r"\bdeliberating\b"), "considering", ("deliberating",)),
        _Rule("architecture-name", _r(
            r"\b(?:chain[- ]of[- ]thought|multi[- ]perspective|hub[- ]and[- ]spoke|fan[- ]out(?:[- ]and[- ]funnel)?"
            r"|fan[- ]and[- ]funnel|deliberated[- ]choice|peer[- ]agent|multi[- ]agent|single[- ]prompt)\b"),
              "analysis", ("chain-of-thought", "multi-perspective", "hub-and-spoke", "fan-out", "multi-agent")),
        _Rule("reasoning-scaffold", _r(
            r"(?:\blet(?:'s|\s+us|\s+me)\s+|\b(?:i\s+will\s+|i'll\s+|we\s+will\s+)?)?think(?:ing)?\s+"
            r"(?:(?:this|it)\s+(?:through\s+)?)?step[- ]by[- ]step\s*[,:.]?\s*(\w?)"), _capital_next),
        _Rule("reasoning-scaffold", _r(r"(?:(?<=^)|(?<=\n)|(?<=[.!?]\s))step[- ]by[- ]step\s*[,:]\s*(\w?)"),
              _capital_next),
        _Rule("reasoning-scaffold", _r(r"\bstep[- ]by[- ]step\b"), "in turn"),
        _Rule("respondent", _r(r"\brespondents?\s*(?:#\s*)?(?:\d+|[A-E])\b"), "one view"),
        _Rule("respondent", _r(
            rf"\b(?:(?:all|the|both|several|most|many|some|each\s+of\s+the|{_NUM})\s+)*(?:independent\s+)?respondents\b"),
              "the views"),
        _Rule("respondent", _r(r"\brespondent\b"), "one view"),
        _Rule("chair", _r(
            r"\b(?:the\s+)?(?:committee\s+)?(?:chair(?:person|man|woman)?|coordinator|moderator|facilitator"
            r"|synthesi[sz]er|parliamentarian)\b"), "the summary",
              ("chair", "chairperson", "chairman", "chairwoman", "coordinator", "moderator", "facilitator",
               "synthesizer", "synthesiser", "parliamentarian")),
        _Rule("agent-label", _r(
            r"\b(?:member|agent|persona|expert|panel(?:l)?ist|delegate|participant|advis[eo]r)\s*#?\s*\d+\b"
            r"(?:\s+of\s+\d+)?"), "one perspective"),
        _Rule("agent-label", _r(r"\b(?:perspective|viewpoint)\s*#?\s*(?:\d+|[A-E])\b(?![-'])"), "one perspective"),
        _Rule("agent-label", _r(r"\bscenario\s*#?\s*\d+\b"), "one scenario"),
    ]


def _model_rules(model_names: list[str]) -> list[_Rule]:
    names: set[str] = set()
    for name in model_names:
        name = (name or "").strip()
        if not name:
            continue
        names.add(name)
        tail = name.rsplit("/", 1)[-1]
        if tail:
            names.add(tail)
    rules = []
    if names:  # the study's own model strings: always removed, longest first
        alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
        rules.append(_Rule("model-name", _r(rf"(?<![\w/.-])(?:{alternatives})(?![\w-])"), MODEL_MARKER))
    for provider, term in _PROVIDER_NAMES:
        rules.append(_Rule("model-name", _r(rf"\b{provider}\b"), MODEL_MARKER, (term,)))
    return rules


def _role_rules(roles: list[str]) -> list[_Rule]:
    names = {r.strip() for r in (list(roles) + list(COMMON_ROLES)) if r and r.strip()}
    rules = []
    for role in sorted(names, key=len, reverse=True):
        word = re.escape(role).replace(r"\ ", r"\s+").replace("'", "['’]")
        rules.append(_Rule("roster-role", _r(rf"\b(?:the|a|an)\s+{word}('s)?(?![\w-])"),
                           lambda m: "one perspective" + (m.group(1) or ""), (role,)))
        rules.append(_Rule("roster-role", _r(rf"\b{word}('s)?(?![\w-])"),
                           lambda m: "one perspective" + (m.group(1) or ""), (role,)))
    return rules


def _exempt(rule: _Rule, scenario: str) -> str | None:
    for term in rule.exempt_terms:
        if re.search(rf"\b{re.escape(term)}", scenario, re.IGNORECASE):
            return term
    return None


_SENTENCE_START = re.compile(r"(?:\A|[.!?:]\s+|\n[ \t]*(?:[-*]\s+|\d+[.)]\s+)?|\*\*)\Z")

# What a line's structure is made of, kept out of every rule's reach: indentation, quote marks, a
# markdown heading, a bullet or number, emphasis, and a report heading ("REASONING:", "**Risks:**").
REPORT_HEADINGS = ("RECOMMENDATION", "REASONING", "RISKS", "CONFIDENCE")
_PREFIX = re.compile(
    r"^[ \t>]*(?:#{1,6}[ \t]+)?(?:(?:[-*+•]|\d+[.)])[ \t]+)?(?:[*_]{1,3}[ \t]*)?"
    r"(?:(?:" + "|".join(REPORT_HEADINGS) + r")[ \t*_]*:[ \t*_]*)?", re.IGNORECASE)
_HEADING = re.compile(r"(?:" + "|".join(REPORT_HEADINGS) + r")[ \t*_]*:", re.IGNORECASE)


def _split_line(line: str) -> tuple[str, str]:
    m = _PREFIX.match(line)
    return line[:m.end()], line[m.end():]


def _tidy_line(content: str) -> str:
    """Close the gaps a removal leaves inside one line's content."""
    content = re.sub(r"\(\s*\)", "", content)
    content = re.sub(r"(?<=\S)[ \t]{2,}(?=\S)", " ", content)
    content = re.sub(r"(?<=\S)[ \t]+([,.;:!?])", r"\1", content)
    content = re.sub(r",[ \t]*,", ",", content)
    content = re.sub(r"^[ \t]*[,.;:][ \t]*", "", content)
    return content.rstrip()


def scrub(text: str, context: ScrubContext | None = None) -> ScrubResult:
    """Remove condition tells from `text`; returns the scrubbed text and the log of what went.

    Structure is preserved: the rules run line by line on each line's content, never on its prefix
    (indentation, bullet, markdown heading, report heading), so no removal can delete a heading or
    join two lines; a bullet whose content is removed entirely goes with it, a heading stays. The
    result is a fixed point: scrubbing it again changes nothing."""
    context = context or ScrubContext()
    counts: Counter = Counter()
    exemptions: dict[tuple[str, str], None] = {}
    banners = text.count(MOCK_BANNER)
    if banners:
        text = text.replace(MOCK_BANNER, MOCK_MARKER)
        counts[("mock-banner", MOCK_BANNER, MOCK_MARKER)] += banners
        for pattern in _MOCK_PROVENANCE:  # the mock model names the agent, turn and prompt it answered
            for found in pattern.findall(text):
                counts[("mock-banner", found.strip(), "")] += 1
            text = pattern.sub("", text)
    active = []
    for rule in _model_rules(context.model_names) + _static_rules() + _role_rules(context.roles):
        term = _exempt(rule, context.scenario)
        if term is None:
            active.append(rule)
        else:
            exemptions[(rule.name, term)] = None

    def sub(match: re.Match, rule: _Rule) -> str:
        found = match.group(0)
        replacement = rule.replace(match) if callable(rule.replace) else rule.replace
        if _SENTENCE_START.search(match.string[:match.start()]):
            replacement = replacement[:1].upper() + replacement[1:]
        counts[(rule.name, found.strip(), replacement)] += 1
        return replacement

    changed = bool(banners)
    lines = []
    for line in text.split("\n"):
        prefix, content = _split_line(line)
        new = content
        for rule in active:
            new = rule.pattern.sub(lambda m, rule=rule: sub(m, rule), new)
        if new != content:
            changed = True
            new = _tidy_line(new)
            if not new.strip():
                if not prefix.strip():
                    new, prefix = "", ""
                elif not _HEADING.search(prefix):
                    continue  # a bullet or quote line whose whole content was a tell
                else:
                    prefix = prefix.rstrip()
        lines.append(prefix + new)
    text = "\n".join(lines)
    if changed:
        text = re.sub(r"\n{3,}", "\n\n", text).strip()
    log = [{"rule": rule, "found": found, "replaced_with": repl, "count": n}
           for (rule, found, repl), n in counts.items()]
    log += [{"rule": rule, "exempt": term, "reason": "the scenario uses this word"}
            for rule, term in exemptions]
    return ScrubResult(text=text, log=log)


def words(text: str) -> int:
    return len(re.findall(r"[A-Za-z0-9][\w'’-]*", text or ""))


# An item keeps too little to score when nothing is left, or less than this share of its words.
MIN_KEPT_SHARE = 1 / 3


def emptied_reason(original: str, scrubbed: str) -> str | None:
    """Why a scrubbed text must be held back from raters and judges, or None when it can be scored."""
    before, after = words(original), words(scrubbed)
    if before == 0:  # the model's own empty answer: the judges' input filter reports it, not the scrubber
        return None
    if after == 0:
        return f"the scrubber left no words (of {before})"
    if after / before < MIN_KEPT_SHARE:
        return (f"the scrubber kept {after} of {before} words (less than a third): what is left is too little "
                "to score, and its emptiness would hint at the condition")
    return None
