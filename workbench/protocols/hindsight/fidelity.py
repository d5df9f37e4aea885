"""The report's "Fidelity to the seed" section: what the study did that the seed does not say.

Printed in every hindsight report, blinded or not (nothing here names a
condition): the report shape (the seed's prompts with a copying extraction, or
the pre-registered instruction deviation) with how the extractions went, and
the choices this project makes where seed 000 / 001 leave a gap.
"""

from __future__ import annotations

from collections import Counter

# Rules the seeds do not give; the project's own choices (issue 13, item 8). Condition-free wording.
PROJECT_CHOICES = (
    "Every condition is shown the scenario as `Situation:` followed by the case's scenario text.",
    "The committee conditions' prompts (coordinator, respondents, roster, Robert's Rules steps, scenario fan) "
    "are the project's own: the seed names the structures, not their prompts. The default roster names roles by "
    "their function in the deliberation (proposer, devil's advocate, examiner, mediator, arbiter).",
    "The hub-and-spoke committee: the coordinator sets out the decision before the respondents answer; its "
    "statement goes to its own synthesis only, so the respondents see the scenario alone.",
    "The peer committee under Robert's Rules: a motion or amendment nobody seconds dies and is minuted; after a "
    "main motion dies "
    "the chair calls on the next member in roster order (two motions in all by default); when every one dies "
    "there is no debate and no vote, and the chair reports that the committee adopted nothing.",
    "The multi-perspective prompt's perspectives are read from the reply's own layout (labelled, headings, "
    "tables, numbered, lettered or roman lists, bold lead-ins, prose ordinals and lenses); a split whose count "
    "is not the 3-5 the prompt asks for, whose titles repeat, or whose first or last section reads as the "
    "introduction or the synthesis is flagged, as is a reply none of them splits: it is split by a copy-only "
    "extraction where the model decodes by schema (its count checked the same way), else flagged and left out "
    "of the DQ means.",
    "A committee member's second or vote is read from its SECOND / VOTE line or an unhedged phrase (\"I second "
    "the motion\", \"I abstain\"); a change of mind stated in words after it (\"on reflection\", \"I change my "
    "vote to\") reads the changed answer, two tag lines that disagree read neither unless one is labelled final "
    "or the member says between them that it changes its answer; one that is neither clearly "
    "yes nor no is asked once more with the line restated, then recorded as unreadable (never as a no or a vote) "
    "and counted per condition in the report.",
    "The cue audit's key terms are the content words of a criterion's name and question (stop words and the words "
    "of the question's frame left out, light stems); a sentence cues a criterion by meaning when its all-mpnet-base-v2 "
    "cosine to the criterion's content is at least 0.35 and it is nearer the criterion's labelled paraphrases than "
    "neutral sentences (procedure, a deliberation's roles); line and examples were set on labelled sentences that "
    "hold no audited prompt, and a reading near either line is flagged as unsure.",
    "The report shape (recommendation, reasoning, risks, confidence) comes from a separate extraction call at "
    "temperature 0 that may only copy sentences; one copied sentence not found in the output (whitespace aside) "
    "refuses the whole extraction, and the run's report stays empty with the reason. Raters and judges read the "
    "output itself, never the extraction. An extraction (report shape or the perspectives' split) whose reply was cut at "
    "max_tokens is asked once more with twice the max_tokens, within the model's window; a reply still cut is "
    "counted as cut, apart from unparsed replies.",
    "Decision-quality DQ-2, two perspectives: the seed says \"use direct similarity comparison\" and gives no "
    "formula; the project scores 1 - max(0, similarity of the second to the first).",
    "Decision-quality DQ-2, three perspectives: the seed would correlate, but with the first perspective left "
    "out as self-reference (the project's reading of the seed's parallel example) two points remain and r is "
    "always +-1, so the project uses the two-perspective rule, 1 - mean(max(0, similarity to the first)).",
    "Decision-quality DQ-2 worked example: the seed's r = 0.15 for similarities (0.72, 0.68, 0.75, 0.80) "
    "cannot be reproduced (Pearson r over P2..P5 is 0.791); the formula is followed, not the example.",
    "Decision-quality DQ-2 anchoring flag: r > 0.3 (seed 001 §2.2 step 4), reported per condition as runs "
    "flagged of runs where r was computed; the seed's \"significantly\" is read as the threshold alone.",
    "Table 4: Cohen's d with the pooled SD over the two conditions' cases as independent groups (the seed's "
    "column); its 95% CI is a BCa bootstrap (SciPy; percentile where BCa is not finite; the seed names no method). The paired d_z over the cases "
    "both conditions share is printed beside it, without Cohen's words, which go on d only and only when its CI "
    "excludes 0.",
    "Treatment fidelity (whether each run's defining step happened): the peer committee's when a seconded main "
    "motion was debated (a second with no readable SECOND line counts as unreadable, flagged); the scenario "
    "fan's when it gave the planned number of scenarios under their headings and the committee met over them; "
    "the multi-perspective prompt's when the reply split into at least two perspectives; the hub-and-spoke "
    "committee's when every planned respondent answered; the three-committee probe's when its case's three "
    "committees all finished and each debated. The single prompts have no step to withhold. Runs whose step did "
    "not happen stay in the tables, marked, unless the study file's `on_missing_treatment` says otherwise.",
    "Bootstrap CIs: none under 5 independent units per sample (cases, for Tables 1, 3 and 4); the cell prints "
    "\"n too small\" with the values. The seed names no minimum.",
    "The evaluator whose scores fill Tables 1-4 is the study's `evaluator` (seed 000 §VI.3 allows a fresh LLM "
    "instance or human raters); left out, it is the human raters when the study names any, else its one judge.",
    "Seed 001's baseline targets (DQ-1 0.3-0.5 sequential, 0.7-0.9 parallel; DQ-2 0.5-0.7 and 0.9-1.0; DQ-3 "
    "0.4-0.6 and 0.7-0.9) are read as ranges for the sequential (one agent, several perspectives) and "
    "parallel (independent respondents, committee members) means; the seed's "
    "\"naive\" and \"ThinkTank\" are taken to be those two.",
    "Glenda/Crock predictions: a condition's observed mean composite is \"within\" its predicted range when "
    "lo <= mean <= hi.",
    "Expected perspectives per complexity class take the upper bound of the seed's ranges (3 / 5 / 8).",
    "The blindness audit's chance rate is 1/k over the setups an auditor can name; the three-committee probe "
    "counts as the committee it repeats.",
)


def extraction_counts(db, study_id: str) -> Counter:
    from store.outputs import outputs_for_study

    return Counter((o["report"].get("extraction") or {}).get("status", "none")
                   for o in outputs_for_study(db, study_id))


def _pilot_lines(db, study_id: str, fidelity: dict) -> list[str]:
    """The human pilot's rounds and the rubric refinements between them."""
    from store.pilots import refinements, rounds

    cases = fidelity.get("pilot_cases") or []
    if not cases:
        return ["- Human pilot: no pilot cases named (seed 000 §VI asks for two); only the two calibration "
                "items checked each rater's direction."]
    out = [f"- Human pilot on cases {', '.join(f'`{c}`' for c in cases)}: " + (
        f"{len(rounds(db, study_id))} closed round(s)." if rounds(db, study_id) else "no closed round yet.")]
    for r in rounds(db, study_id):
        ks = "; ".join(f"{m['rubric']} " + ("undefined" if m["kappa"] is None else f"{m['kappa']:.2f}")
                       + f" vs {m['target']:.2f}" for m in r["results"])
        out.append(f"  - round {r['round']}: {ks} -> {'passed' if r['passed'] else 'below target'}")
    for f in refinements(db, study_id):
        out.append(f"  - rubric `{f['rubric_id']}` refined {f['old_hash'][:12]} -> {f['new_hash'][:12]} by "
                   f"{f['by']} ({f['created_at']}): {f['reason']}")
    return out


def _corpus(db, definition: dict) -> list[str]:
    from store import cases as case_rows
    from workbench.protocols.hindsight.gates import corpus_problems

    return corpus_problems([row["document"] for row in (case_rows.get_case(db, c)
                                                         for c in definition.get("cases") or []) if row])


def _held_back(db, study_id: str) -> list[dict]:
    from workbench.blinding.context import BlindingError
    from workbench.blinding.items import held_back_outputs

    try:
        return held_back_outputs(db, study_id)
    except BlindingError:  # a study that cannot be blinded has nothing held back
        return []
    except (KeyError, TypeError, ValueError) as exc:  # say so rather than lose the whole report
        return [{"case_id": "?", "reason": f"the held-back check could not read the study: {exc}"}]


def scored_cases(data) -> int:
    """Cases with a scored (non-pilot) item under the primary evaluator on a Table 1 metric: the N a sample size
    counts, never the cases the study planned."""
    from workbench.protocols.hindsight.metrics.tables import TABLE1_RUBRICS, item_scores, resolve_metric

    items = set()
    for rubric in TABLE1_RUBRICS:
        if data.rubric(rubric):
            items |= set(item_scores(data, resolve_metric(data, rubric)))
    return len({data.items[i].case_id for i in items})


def scored_line(planned: int, scored: int) -> str:
    """Seed 000 §IV's N counted on what was scored: a warning below its 6, undefined at none."""
    from workbench.protocols.hindsight.gates import MIN_CASES

    if not scored:
        return (f"- **Cases scored: none** of the {planned} planned: every sample size of the results is undefined "
                "until an evaluator scores an item.")
    warn = (f" **Below seed 000 §IV's minimum of {MIN_CASES}**: treat every comparison as directional."
            if scored < MIN_CASES else "")
    return f"- Cases scored (with a rated item, the N of Table 1): {scored} of the {planned} planned.{warn}"


def section(db, study_id: str, definition: dict, scored: int | None = None) -> str:
    """`scored`: the cases with a scored item (`scored_cases`), the sample size said beside the corpus rule."""
    from workbench.protocols.hindsight.architectures.extraction import LEGACY_SHAPE

    shape = (definition.get("hindsight") or {}).get("report_shape", LEGACY_SHAPE)
    lines = []
    if shape == "extract":
        counts = extraction_counts(db, study_id)
        done = sum(counts.values())
        lines.append("- **Report shape: the seed's prompts, then a copying extraction.** Every condition got "
                     "exactly its prompts; the common report shape was copied out of each output by a separate, "
                     "logged call, checked sentence by sentence against the output.")
        if done:
            lines.append(f"- Extractions: {counts.get('ok', 0)} of {done} accepted, {counts.get('refused', 0)} "
                         f"refused (a sentence not in the output), {counts.get('unparsed', 0)} unparsed.")
    else:
        lines.append("- **Report shape: instruction (a pre-registered DEVIATION from the seed).** A report layout "
                     "asking for RECOMMENDATION / REASONING / RISKS / CONFIDENCE was appended to every condition's "
                     "final step, and the multi-perspective condition was asked for perspective headings; this "
                     "changes the seed's single prompts (it asks the single-prompt condition to list risks).")
    lines += _structure_lines(definition)
    fidelity = definition.get("hindsight") or {}
    kind = fidelity.get("study_kind", "pilot")
    corpus = _corpus(db, definition)
    lines.append(f"- Study kind: {kind}. Corpus rule (seed 000 §IV: N ≥ 6, ≥ 2 cases in each of 3 domains): "
                 + ("met." if not corpus else "NOT met: " + "; ".join(corpus) + "."))
    if scored is not None:
        lines.append(scored_line(len(definition.get("cases") or []), scored))
    if fidelity.get("training_cutoff"):
        lines.append(f"- Training cutoff relied on for strategy-A cases: {fidelity['training_cutoff']}.")
    overrides = fidelity.get("overrides") or []
    if overrides:
        lines.append(f"- **Gate overrides ({len(overrides)})**, recorded in the frozen study file:")
        lines += [f"  - case `{o['case']}`, gate {o['gate']}: {o['reason']}" for o in overrides]
    else:
        lines.append("- Gate overrides: none (every historical case passed the probe, cutoff and leak gates).")
    lines += _pilot_lines(db, study_id, fidelity)
    held = _held_back(db, study_id)
    if held:
        lines.append(f"- **Held back from raters and judges: {len(held)} output(s)** the scrubber left (near) empty "
                     "(re-run them or fix the rule that emptied them):")
        lines += [f"  - case `{h['case_id']}`: {h['reason']}" for h in held]
    lines += ["", "The project's own choices where the seeds give no rule:", ""]
    lines += [f"- {c}" for c in PROJECT_CHOICES]
    return "\n".join(lines) + "\n"


def _structure_lines(definition: dict) -> list[str]:
    """The committee roster, C1's framing and C3's fan: the defaults, or the pre-registered deviations that put a
    rubric's cue in a committee's prompts (the cue audit lists what each one cues)."""
    from workbench.protocols.hindsight.architectures.c1 import framing_of
    from workbench.protocols.hindsight.architectures.c3 import DEFAULT_FAN
    from workbench.protocols.hindsight.architectures.roster import DEFAULT_ROSTER_NAME, roster_name_of

    conds = set(definition.get("conditions") or [])
    arch = definition.get("architectures") or {}
    out = []
    if conds & {"C2", "C3", "P1"}:
        name = roster_name_of(arch.get("C2") or {})
        if name == DEFAULT_ROSTER_NAME:
            out.append(f"- Committee roster: `{name}` (the default): each member is named by what it does in the "
                       "deliberation, with no topic to look for.")
        elif name == "custom":
            out.append("- **Committee roster: the study's own (a DEVIATION from the default roster).** Its briefs "
                       "are the study's; the cue audit lists any rubric criterion they cue.")
        else:
            out.append(f"- **Committee roster: `{name}` (a pre-registered DEVIATION).** Its briefs name topics "
                       "rubric criteria reward (tail risks, the framing of the question, precedent), which the "
                       "single-prompt conditions are not told: the committee conditions differ in instruction as "
                       "well as structure.")
    if "C1" in conds and framing_of(arch) == "respondents":
        out.append("- **Hub-and-spoke framing: every respondent read the coordinator's framing first (a "
                   "pre-registered DEVIATION):** the seed's respondents are independent.")
    if "C3" in conds and (arch.get("C3") or {}).get("fan", "tail-risk") != DEFAULT_FAN:
        out.append("- **Scenario fan: one scenario asked to be a tail risk (a pre-registered DEVIATION):** the "
                   "Anticipation rubric rewards seeing such a risk, and no other condition is told to look for one.")
    return out


def topology_section(db, study_id: str) -> str:
    """Topology per case and condition, reviews applied and each review shown (unblinded studies only):
    the architectures compared on Basin / Ridge / Plateau, as seed 000 §X asks."""
    from workbench.protocols.hindsight.topology_review import reviewed_topology

    rows = reviewed_topology(db, study_id)
    if not rows:
        return ""
    conditions = sorted({r["condition"] for r in rows})
    cases = sorted({r["case_id"] for r in rows})
    cell = {(r["case_id"], r["condition"]): r for r in rows}
    out = ["| Case | " + " | ".join(conditions) + " |", "|---|" + "---|" * len(conditions)]
    for case in cases:
        cells = []
        for cond in conditions:
            r = cell.get((case, cond))
            cells.append("-" if r is None else r["pattern"] + (" (reviewed)" if r["review"] else ""))
        out.append(f"| {case} | " + " | ".join(cells) + " |")
    counts = {c: Counter(cell[(k, c)]["pattern"] for k in cases if (k, c) in cell) for c in conditions}
    out += ["", "Per condition: " + "; ".join(
        f"{c}: " + ", ".join(f"{p} {n}" for p, n in sorted(counts[c].items())) for c in conditions) + "."]
    reviews = [r for r in rows if r["review"]]
    if reviews:
        out += ["", "Reviews of the automatic coding (the latest per case and condition counts):", ""]
        for r in reviews:
            v = r["review"]
            out.append(f"- `{r['case_id']}` {r['condition']}: {v['automatic_pattern'] or 'no automatic coding'} -> "
                       f"{v['pattern']}" + (f" (switching assumption: {v['switching_assumption']})"
                                            if v["switching_assumption"] else "")
                       + f", by {v['reviewer']} at {v['created_at']}: {v['reason']}")
    return "\n".join(out) + "\n"
