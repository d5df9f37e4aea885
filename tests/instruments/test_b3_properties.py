"""Properties of B3's perspective reader over generated replies (issue 41): N parallel sections with arbitrary titles
read as N in any layout a model writes, with or without an introduction, fields repeated under each view or a
synthesis under its common names; a count the prompt did not ask for is flagged yet stood by; one other than the
count the reply states is doubted."""

from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from workbench.protocols.hindsight.architectures.perspectives import read_perspectives
from workbench.protocols.hindsight.instruments import b3_agrees, read_b3

# words that are not, by themselves, what a synthesis, an ordinal or a label is called
WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=3, max_size=9).filter(
    lambda w: not w.startswith(("synth", "recommend", "conclu", "summar", "overall", "first", "second", "third",
                                "fourth", "fifth", "sixth", "final", "last", "perspect", "view", "from", "angle", "lens",
                                "stance", "option", "step", "phase", "week", "stage", "scenario", "pro", "con", "risk",
                                "benefit", "cost", "note", "question", "answer", "verdict", "decision", "advice",
                                "take", "call", "word", "thought", "plan", "next", "intro", "context", "background",
                                "overview", "situation", "facts", "key", "stake", "problem", "dilemma", "case",
                                "threat", "understand", "framing", "preamble", "bottom", "way", "path", "course",
                                "bring", "put", "pull", "tie", "weigh", "balanc", "integr", "reconcil", "wrap",
                                "clos", "land", "consens", "common", "upshot", "tldr", "net", "all", "sum",
                                # what the reader takes as a part beside the views (a caveat, a note, an option)
                                "caveat", "disclaim", "assum", "limit", "import", "warn", "append", "refer",
                                "source", "uncertain", "unknown", "timeline", "implement", "trade", "choice",
                                "altern", "nb", "ps",
                                # a bare name the reader takes as the answer or its closing ("Response", "Action")
                                "respon", "action")))
TITLE = st.lists(WORD, min_size=1, max_size=3, unique=True).map(lambda ws: " ".join(ws).capitalize())
SENTENCE = st.lists(WORD, min_size=4, max_size=9).map(lambda ws: " ".join(ws).capitalize() + ".")
BODY = st.lists(SENTENCE, min_size=1, max_size=3).map(" ".join)
LAYOUT = st.sampled_from(["##", "###", "bold", "numbered", "labelled", "html", "dash", "roman"])
SYNTHESIS = st.sampled_from(["Synthesis", "Recommendation", "My recommendation", "Bringing it together",
                             "Final verdict", "Where I land", "Overall", "Resolution", "Proposed approach",
                             "Moving forward", "Net"])
INTRO = st.sampled_from(["", "This is a hard decision, so it helps to look at it from several sides.",
                         "Let me think about this carefully before I answer."])


def view(layout: str, i: int, title: str, body: str) -> str:
    return {"##": f"## {title}\n{body}", "###": f"### {i}. {title}\n\n{body}", "bold": f"**{title}:** {body}",
            "numbered": f"{i}. **{title}**: {body}", "labelled": f"Perspective {i}: {title}\n{body}",
            "html": f"<h3>{title}</h3>\n<p>{body}</p>", "dash": f"- {title}: {body}",
            "roman": f"({'i ii iii iv v vi vii viii'.split()[i - 1]}) {title} — {body}"}[layout]


def closing(layout: str, title: str, body: str) -> str:
    return {"##": f"## {title}\n{body}", "###": f"### {title}\n\n{body}", "html": f"<h3>{title}</h3>\n<p>{body}</p>",
            "labelled": f"{title}\n{body}"}.get(layout, f"**{title}:** {body}")


def reply(layout: str, intro: str, views: list[tuple[str, str]], synthesis: str, advice: str) -> str:
    parts = [intro] if intro else []
    sep = "\n" if layout == "dash" else "\n\n"
    parts.append(sep.join(view(layout, i, t, b) for i, (t, b) in enumerate(views, start=1)))
    parts.append(closing(layout, synthesis, advice))
    return "\n\n".join(parts)


def titles(text: str) -> list[str]:
    """The titles of the perspectives the reader splits `text` into."""
    return [s.title for s in read_perspectives(text).split.sections]


VIEWS = st.lists(st.tuples(TITLE, BODY), min_size=3, max_size=5, unique_by=lambda v: v[0].casefold())


@settings(max_examples=60, deadline=None)
@given(LAYOUT, INTRO, VIEWS, SYNTHESIS, SENTENCE)
def test_n_parallel_sections_with_any_titles_read_as_n(layout, intro, views, synthesis, advice):
    reading = read_perspectives(reply(layout, intro, views, synthesis, advice))
    assert not reading.flagged, reading.reason
    assert [s.title for s in reading.split.sections] == [t for t, _ in views]


@settings(max_examples=30, deadline=None)
@given(VIEWS, st.lists(TITLE, min_size=2, max_size=3, unique_by=str.casefold), SENTENCE)
def test_fields_repeated_under_each_view_are_parts_of_it(views, fields, advice):
    if {f.casefold() for f in fields} & {t.casefold() for t, _ in views}:
        return
    text = "\n\n".join(f"**{title}**\n" + "\n".join(f"- **{f}:** {body}" for f in fields) for title, body in views)
    reading = read_perspectives(text + f"\n\n**Recommendation:** {advice}")
    assert not reading.flagged, reading.reason
    assert reading.split.layout == "bold" and len(reading.split.sections) == len(views)


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(["##", "bold", "labelled"]), st.lists(st.tuples(TITLE, BODY), min_size=6, max_size=7,
                                                             unique_by=lambda v: v[0].casefold()), SENTENCE)
def test_a_count_the_prompt_did_not_ask_for_is_flagged_but_stood_by(layout, views, advice):
    doc = read_b3(reply(layout, "", views, "Synthesis", advice), {"asked": "3-5"})
    assert doc["flagged"] and not doc["unsure"] and doc["count"] == len(views)
    assert b3_agrees(doc, {"perspectives": len(views)}) and not b3_agrees(doc, {"perspectives": 5})


@settings(max_examples=40, deadline=None)
@given(LAYOUT, VIEWS, SYNTHESIS, SENTENCE, st.sampled_from([-1, 1]))
def test_a_count_other_than_the_one_the_reply_states_is_doubted(layout, views, synthesis, advice, off):
    said = ["two", "three", "four", "five", "six"][len(views) - 2 + off]
    doc = read_b3(reply(layout, f"Here are {said} perspectives.", views, synthesis, advice), {"asked": "3-5"})
    assert doc["flagged"] and doc["unsure"] and f"says it gives {len(views) + off}" in doc["reason"]


def test_an_empty_reply_and_a_refusal_give_none_for_sure_and_prose_without_a_layout_is_doubted():
    for text in ("", "  \n ", "<p></p>", "I'm sorry, but I can't help with that request."):
        doc = read_b3(text, {"asked": "3-5"})
        assert doc["flagged"] and not doc["unsure"] and doc["count"] == 0 and b3_agrees(doc, {"perspectives": 0})
    essay = "We should refuse. The demand is coercion, and giving in invites more. Tell the funders first."
    doc = read_b3(essay, {"asked": "3-5"})
    assert doc["flagged"] and doc["unsure"] and not b3_agrees(doc, {"perspectives": 0})


DECISIONS = st.sampled_from(["Refuse the demand and brief the funders.", "I would batch week 3 and keep canaries.",
                             "We should resist, loudly.", "On balance, comply with nothing."])
ODD_CLOSINGS = st.sampled_from(["Glenda's path", "The team's move", "Where the organization goes"])


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["##", "bold", "numbered"]), VIEWS, ODD_CLOSINGS, DECISIONS)
def test_a_closing_in_a_decision_voice_is_never_read_silently_as_a_view(layout, views, title, decision):
    """A synthesis under a title no list names: dropped where its words decide and its title's shape is unlike the
    views', flagged where only its length differs; never counted, unflagged, as one more view."""
    views = [(f"The {t.lower()}", b) for t, b in views]
    text = "\n\n".join(view(layout, i, t, b) for i, (t, b) in enumerate(views, start=1))
    closing_line = {"##": f"## {title}\n{decision}", "bold": f"**{title}:** {decision}",
                    "numbered": f"{len(views) + 1}. **{title}**: {decision}"}[layout]
    reading = read_perspectives(text + "\n\n" + closing_line)
    if not reading.flagged:
        assert [s.title for s in reading.split.sections] == [t for t, _ in views]


def test_asides_lead_ins_and_traces_are_no_views():
    views = "## Legal\nExtortion.\n\n## Financial\nReserves.\n\n## Ethical\nFilters.\n\n"
    for aside in ("## A note on uncertainty\nThin data.", "## Limitations of this analysis\nThin data.",
                  "## Risks to watch\nRetaliation."):
        reading = read_perspectives(views + aside + "\n\n## Recommendation\nRefuse.")
        assert not reading.flagged and [s.title for s in reading.split.sections] == ["Legal", "Financial", "Ethical"]
    options = "**Option A: Comply** — cheap now.\n\n**Option B: Partial** — middle.\n\n**Option C: Resist** — costly now."
    assert read_perspectives(options).flagged and not read_perspectives(options).split.sections  # choices, not views
    listed = "Stakeholders:\n- Funders — no surprises\n- Users — the filters\n- Staff — their jobs\n\nRefuse."
    assert titles(listed) == ["Funders", "Users", "Staff"]
    traced = "<think>Five perspectives? Maybe six.</think>\n**Legal:** a\n\n**Money:** b\n\n**Mission:** c"
    assert not read_perspectives(traced).flagged
    options_then_views = ("The options are:\n1. Comply.\n2. Resist.\n\nPerspectives on them:\n\n1) A lawyer: a.\n"
                          "2) A funder: b.\n3) A user: c.\n\nMy take: resist.")
    assert titles(options_then_views) == ["A lawyer", "A funder", "A user"]


def test_views_enumerated_within_one_paragraph_by_ordinals_or_numbers():
    ordinals = ("There are three perspectives: first, the legal one, which treats this as extortion; second, the "
                "financial one, which worries about reserves; and third, the ethical one, which keeps the filters.")
    assert titles(ordinals) == ["the legal one", "the financial one",
                                                                             "the ethical one"]
    numbers = ("Here are three perspectives.\n\n1. **Legal**: extortion is a crime. 2. **Financial**: reserves. "
               "3. **Ethical**: filters.\n\n**Recommendation**: refuse.")
    assert titles(numbers) == ["Legal", "Financial", "Ethical"]


def test_paragraphs_opening_alike_are_views_and_the_chosen_layout_holds_every_view_read():
    alike = ("For the lawyer, this is extortion.\n\nFor the funder, the money is at stake.\n\nFor the user, the filters "
             "keep the platform honest.\n\nAll in all, refuse.")
    assert titles(alike) == ["lawyer", "funder", "user"]
    scenarios = "If Glenda complies, more demands.\n\nIf Glenda resists, a campaign.\n\nIf Glenda waits, both."
    assert read_perspectives(scenarios).flagged  # conditions are scenarios, not views
    speaking = ("Speaking as the CFO: reserves cover six months.\n\nSpeaking as the head of trust and safety: the "
                "filters stay.\n\nSpeaking as general counsel: report it.\n\nMy recommendation: refuse.")
    reading = read_perspectives(speaking)
    assert not reading.flagged and len(reading.split.sections) == 3
    asked = ("1. How would a lawyer see it? As extortion.\n2. How would a funder see it? As a risk.\n"
             "3. How would a user see it? As a threat to the filters.\n\nMy recommendation: refuse.")
    assert titles(asked) == ["a lawyer", "a funder", "a user"]


OPENERS = st.sampled_from([("One way to see this is as {t}.", True), ("The first way to look at it is as {t}.", True),
                           ("Start with {t}: it matters first.", True), ("One reading is about {t}.", True)])
SECONDS = st.sampled_from([("A second view", "A third view", "A fourth view"), ("Second,", "Third,", "Fourth,"),
                           ("Another view", "A third view", "A fourth view")])


@settings(max_examples=40, deadline=None)
@given(OPENERS, SECONDS, VIEWS, SENTENCE)
def test_a_series_opened_in_other_words_counts_its_first_view(opener, ordinals, views, advice):
    """Round E (s14e-b3-13): "One way to see this is as a negotiation." then "A second view ...", "A third view ...":
    a second needs a first, so the paragraph that opens the series in other words is the first view."""
    first, *rest = views[:3]
    text = "\n\n".join(["This is hard, and the views conflict.", opener[0].format(t=f"the {first[0].lower()}")]
                       + [f"{o} {b}" for o, (_, b) in zip(ordinals, rest)] + [f"Where I come down: {advice}"])
    reading = read_perspectives(text)
    assert len(reading.split.sections) == 3, reading.reason
    assert reading.split.sections[0].title == f"the {first[0].lower()}"
    assert reading.split.sections[0].text.startswith(opener[0].split("{")[0])


def test_an_opening_in_other_words_is_no_view_without_a_second_after_it():
    text = ("One way to see this is as a negotiation.\n\nFrom a legal standpoint, it is extortion.\n\n"
            "From a funder's standpoint, it is a risk.\n\nFrom a user's standpoint, it is about the filters.")
    assert titles(text) == [
        "From a legal standpoint", "From a funder's standpoint", "From a user's standpoint"]


def test_a_view_named_after_its_ordinal_or_within_its_paragraph():
    text = ("One perspective is that of the mission: it exists to stop this.\n\nA second view rejects that framing. "
            "This isn't a deal between equals; it's extortion.\n\nA third view is about the people outside the room: "
            "users and funders.\n\nTaken together, refuse.")
    assert titles(text) == ["the mission", "extortion",
                                                                         "the people outside the room"]


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(["Perspectives", "Different perspectives", "Views on the decision", "Key perspectives"]),
       st.booleans(), VIEWS, SENTENCE)
def test_a_heading_that_names_the_views_as_a_set_is_their_container(container, repeated, views, advice):
    """Round E (s14e-b3-23): `## Perspectives`, repeated, over bold bullets: the bullets are the views, never two
    views titled 'Perspectives'."""
    head = f"## {container}\n\nHere are some different perspectives:\n\n" + (f"## {container}\n\n" if repeated else "")
    bullets = "\n".join(f"* **{t}:** {b}" for t, b in views)
    reading = read_perspectives(f"{head}{bullets}\n\n## Overall\n\n{advice}")
    assert not reading.flagged, reading.reason
    assert [s.title for s in reading.split.sections] == [t for t, _ in views]


def test_a_row_number_column_before_the_perspective_column_names_nothing():
    table = ("| # | Perspective | Assessment |\n|---|---|---|\n| 1 | Site reliability | One commit, every host |\n"
             "| 2 | Security | Keys to the kingdom |\n| 3 | Data | Rollback won't undo schemas |\n"
             "| | **Synthesis** | Stage production |")
    reading = read_perspectives(table)
    assert not reading.flagged and [s.title for s in reading.split.sections] == ["Site reliability", "Security", "Data"]
    assert reading.split.sections[0].text == "One commit, every host"


@settings(max_examples=30, deadline=None)
@given(VIEWS, SENTENCE)
def test_title_case_lines_alone_over_their_paragraphs_are_the_views(views, advice):
    views = [(t.title(), b) for t, b in views]
    text = "\n\n".join(f"{t}\n\n{b}" for t, b in views) + f"\n\nRecommendation\n\n{advice}"
    reading = read_perspectives(text)
    assert not reading.flagged, reading.reason
    assert [(s.title, s.text) for s in reading.split.sections] == views


def test_a_lower_case_line_alone_is_no_title():
    text = "\n\n".join(f"the {w} side\n\nIt sees a cost here and wants a delay." for w in ("legal", "money", "user"))
    assert read_perspectives(text).split.layout != "titled"


@settings(max_examples=30, deadline=None)
@given(VIEWS, st.booleans(), SENTENCE)
def test_quotes_named_after_them_are_the_voices(views, same_line, advice):
    """Round D (s13d-quotes-with-trailing-attribution): "..." then "— the CISO": a view per quoted voice."""
    sep = " " if same_line else "\n"
    text = "\n\n".join(f'"{b}"{sep}— the {t.lower()}' for t, b in views) + f"\n\nPutting the voices together: {advice}"
    reading = read_perspectives(text)
    assert not reading.flagged, reading.reason
    assert [s.title for s in reading.split.sections] == [f"the {t.lower()}" for t, _ in views]
    assert all("Putting the voices" not in s.text for s in reading.split.sections)


@settings(max_examples=30, deadline=None)
@given(VIEWS, st.lists(st.sampled_from(["##", "###", "####"]), min_size=5, max_size=5), SENTENCE)
def test_numbered_headings_are_the_views_whatever_their_levels(views, levels, advice):
    """Round D (s13d-inconsistent-heading-levels): `## 1.`, `### 2.`, `## 3.`, a model's slip in the levels."""
    text = "\n\n".join(f"{lv} {n}. {t}\n{b}" for n, ((t, b), lv) in enumerate(zip(views, levels), start=1))
    reading = read_perspectives(f"{text}\n\n#### Recommendation\n{advice}")
    assert not reading.flagged, reading.reason
    assert [s.title for s in reading.split.sections] == [t for t, _ in views]


def test_part_labels_and_group_headings_are_containers():
    parts = ("## Part 1: Perspectives\n\n### 1.1 The engineer\nRisk grows.\n\n### 1.2 The auditor\nDrift ends.\n\n"
             "### 1.3 The developer\nA tool to learn.\n\n## Part 2: Synthesis\n\n### 2.1 Recommended plan\nBatch it.")
    reading = read_perspectives(parts)
    assert not reading.flagged and [s.title for s in reading.split.sections] == ["The engineer", "The auditor",
                                                                                 "The developer"]
    assert "Synthesis" not in reading.split.sections[-1].text
    groups = ("## Internal perspectives\n\n**Leadership.** Survival first.\n\n**The safety team.** Filters stay.\n\n"
              "## External perspectives\n\n**Funders.** No surprises.\n\n**The public.** Tell them.\n\n"
              "## Recommendation\n\nRefuse and disclose.")
    assert titles(groups) == ["Leadership", "The safety team", "Funders",
                                                                           "The public"]
    views = "## Legal views\nExtortion is a crime.\n\n## Money views\nReserves.\n\n## User views\nTrust.\n\n## Overall\nGo."
    assert titles(views) == ["Legal views", "Money views", "User views"]


def test_a_list_led_as_an_aside_is_no_view_list_and_a_list_of_risks_alone_gives_none():
    """Round D (s13d-assumptions-then-triangle-caps): a numbered 'Assumptions I'm making:' list, then the views."""
    text = ("Assumptions I'm making:\n1. The threats are credible.\n2. The gaps can be fixed.\n\n▸ GOVERNANCE\nA policy "
            "changed under threat is not governed.\n\n▸ SECURITY\nThe change opens a channel.\n\n▸ FUNDING\nBrief the "
            "funders first.\n\nRecommended course: refuse.")
    reading = read_perspectives(text)
    assert not reading.flagged and [s.title for s in reading.split.sections] == ["GOVERNANCE", "SECURITY", "FUNDING"]
    risks = ("Risks to prepare for:\n\n1. Drift wiped out.\n2. A bad commit everywhere.\n\nReferences:\n\n"
             "1. https://example.org/a\n2. https://example.org/b")
    doc = read_b3(risks, {"asked": "3-5"})
    assert doc["flagged"] and not doc["unsure"] and doc["count"] == 0


def test_a_synthesis_named_last_in_brackets_is_no_view():
    hats = "\n\n".join(f"## {c} Hat ({w})\nText." for c, w in [("White", "Facts"), ("Red", "Feelings"),
                                                                  ("Black", "Caution")])
    reading = read_perspectives(hats + "\n\n## Blue Hat (Process & Recommendation)\nProceed in stages.")
    assert not reading.flagged and len(reading.split.sections) == 3


@settings(max_examples=30, deadline=None)
@given(VIEWS, st.sampled_from(["(rebuttal)", "(reply)", "(continued)", "(round 2)"]), SENTENCE)
def test_a_voice_speaking_again_is_the_same_perspective(views, again, advice):
    """Round D (s13d-caps-debate-transcript-two-rounds): each speaker twice, the second time as a rebuttal."""
    names = [t.upper() for t, _ in views]
    turns = [f"{n}: {b}" for n, (_, b) in zip(names, views)] + [f"{n} {again}: {b}"
                                                                for n, (_, b) in zip(names, views)]
    reading = read_perspectives("Let me stage a debate.\n\n" + "\n\n".join(turns) + f"\n\nMODERATOR'S SUMMARY: {advice}")
    assert not reading.flagged, reading.reason
    assert [s.title for s in reading.split.sections] == names
    assert all(s.text.count(b) == 2 for s, (_, b) in zip(reading.split.sections, views))


def test_a_yaml_block_listing_the_perspectives_and_plain_lines_that_would_parse_as_yaml():
    fenced = ("```yaml\nperspectives:\n  - name: Legal\n    view: Tell police.\n  - name: Money\n    view: Talk to "
              "funders.\n  - name: Users\n    view: Keep the filters.\nrecommendation: Refuse.\n```")
    reading = read_perspectives(fenced)
    assert reading.split.layout == "yaml" and [s.title for s in reading.split.sections] == ["Legal", "Money", "Users"]
    plain = "Legal: tell police.\nMoney: talk to funders.\nUsers: keep the filters.\n\nRecommendation: refuse."
    assert read_perspectives(plain).split.layout == "titled"


def test_a_third_way_to_see_it_counts_after_two_sides():
    text = ("On the one hand, a concession buys time.\n\nOn the other hand, it tells Crock threats work.\n\nA third way "
            "to see it is as a public-trust problem: users chose Glenda because it does not bend.\n\nIn conclusion, "
            "refuse.")
    # the sides name no one ("a concession buys time"): counted, left untitled, and so flagged with the count stood by
    assert titles(text) == ["", "", "a public-trust problem"]
    reading = read_perspectives(text)
    assert reading.flagged and not reading.unsure, reading.reason


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(["bold", "numbered"]), VIEWS,
       st.sampled_from(["Key question", "Quick take", "Short answer", ""]),
       st.sampled_from(["Action", "Response", "How to respond", "Resolution"]), SENTENCE)
def test_the_answer_up_front_or_a_closing_under_a_bare_name_is_no_view(layout, views, opening, closing_title, advice):
    """Probes of chat-style replies: "**Quick take:** ..." before the views and "4. **Action**: ..." after them were
    read as one view more, unflagged."""
    # (a view whose words a generated body repeats reads as naming the others: another property's subject)
    assume(not any(w in b.casefold().split() for t, _ in views for w in t.casefold().split() for _, b in views))
    lines = [f"**{t}:** {b}" if layout == "bold" else f"{i}. **{t}**: {b}" for i, (t, b) in enumerate(views, start=1)]
    lines.append(f"**{closing_title}:** {advice}" if layout == "bold" else
                 f"{len(views) + 1}. **{closing_title}**: {advice}")
    # (an answer up front over a numbered list may own it as its steps: not asserted here)
    text = (f"**{opening}:** Crock threatens Glenda.\n\n" if opening and layout == "bold" else "") + (
        "\n\n" if layout == "bold" else "\n").join(lines)
    reading = read_perspectives(text)
    assert not reading.flagged, reading.reason
    assert [s.title for s in reading.split.sections] == [t for t, _ in views]


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(["**{t}**", "**{t}:**", "{t}:", "### {t}"]), VIEWS, st.integers(min_value=2, max_value=5))
def test_a_numbered_list_under_each_title_is_that_views_points(title, views, points):
    """Probes: a list of 3 points under each bold title was read as 3 untitled views (or as none, for sure)."""
    items = "\n".join(f"{n}. Point {n} of it." for n in range(1, points + 1))
    text = "\n\n".join(title.format(t=t) + "\n" + items for t, _ in views) + "\n\n**Recommendation:** refuse."
    reading = read_perspectives(text)
    assert not reading.flagged, reading.reason
    assert [s.title for s in reading.split.sections] == [t for t, _ in views]


def test_a_numbered_list_of_options_then_the_views_and_a_closing_plan():
    text = ("Glenda has three options:\n\n1. **Comply** — change the policy.\n2. **Partial** — change a little.\n"
            "3. **Resist** — change nothing.\n\n**Legal view:** extortion.\n\n**Money view:** reserves.\n\n"
            "**User view:** trust.\n\n**Staff view:** morale.\n\n## Plan\n1. Refuse.\n2. Brief.")
    reading = read_perspectives(text)
    assert not reading.flagged, reading.reason
    assert [s.title for s in reading.split.sections] == ["Legal view", "Money view", "User view", "Staff view"]
    headed = "## Legal\nA.\n\n## Money\nB.\n\n## Users\nC.\n\n## Plan\n1. Refuse.\n2. Brief.\n3. Publish."
    assert titles(headed) == ["Legal", "Money", "Users"]


PROSE_VIEWS = ("From a legal standpoint, this is extortion.\n\nFrom a financial standpoint, the reserves matter.\n\n"
               "From the users' point of view, the filters are the product.")


@given(st.sampled_from(["As an AI assistant, I don't take sides, but here are three angles.\n\n",
                        "As a first step, it helps to lay out the angles.\n\n", "Firstly, some context: Crock "
                        "threatens Glenda.\n\n", ""]),
       st.sampled_from(["\n\nAs a result, I would refuse.", "\n\nThe board would probably say refuse, and I agree.",
                        "\n\nFinally, I would refuse and brief funders.", ""]))
@settings(max_examples=16, deadline=None)
def test_prose_openings_in_the_authors_voice_or_stock_phrases_are_no_views(intro, close):
    reading = read_perspectives(intro + PROSE_VIEWS + close)
    assert not reading.flagged, reading.reason
    assert [s.title for s in reading.split.sections] == ["From a legal standpoint", "From a financial standpoint",
                                                         "From the users' point of view"]


def test_a_last_view_in_a_roles_first_person_is_kept():
    text = PROSE_VIEWS + "\n\nAs the users' advocate, I'd say the filters matter most."
    assert len(read_perspectives(text).split.sections) == 4


@given(st.sampled_from(["Counterarguments", "Objections", "Blind spots", "What could go wrong",
                        "What each view misses"]), st.sampled_from(["**{a}:** {x}", "## {a}\n{x}"]))
@settings(max_examples=10, deadline=None)
def test_objections_and_blind_spots_beside_the_views_are_no_views(aside, form):
    views = ("**Legal:** extortion.\n\n**Money:** reserves.\n\n**Users:** trust." if form.startswith("**") else
             "## Legal\nExtortion.\n\n## Money\nReserves.\n\n## Users\nTrust.")
    text = f"{views}\n\n{form.format(a=aside, x='Something here may go wrong.')}\n\n**Recommendation:** refuse."
    reading = read_perspectives(text)
    assert not reading.flagged, reading.reason
    assert [s.title for s in reading.split.sections] == ["Legal", "Money", "Users"]


@given(st.sampled_from(["Synthesis", "Synthesis & Recommendation", "Bringing it together", "Balanced view",
                        "Final view"]), st.sampled_from(["labelled", "##"]))
@settings(max_examples=10, deadline=None)
def test_the_synthesis_under_a_perspectives_label_or_as_a_balanced_view_is_no_view(last, layout):
    views = [("Legal", "Extortion."), ("Money", "Reserves."), ("Users", "Trust.")]
    text = "\n\n".join(f"**Perspective {i}: {t}**\n{b}" if layout == "labelled" else f"## {t}\n{b}"
                       for i, (t, b) in enumerate(views + [(last, "Refuse and brief the funders.")], start=1))
    reading = read_perspectives(text)
    assert not reading.flagged, reading.reason
    assert [s.title for s in reading.split.sections] == ["Legal", "Money", "Users"]


def test_a_last_title_with_no_text_is_a_reply_cut_off():
    reading = read_perspectives("## Legal\nExtortion.\n\n## Money\nReserves.\n\n## Users\nTrust.\n\n## Reput")
    assert reading.flagged and "cut off" in reading.reason


def test_lettered_labels_run_past_e():
    """Round F (s15f-b3-19): six views lettered A to F; the sixth was read into the fifth, unflagged."""
    text = "\n\n".join(f"**Perspective {c} – {t}**\n- It sees {t.lower()}." for c, t in
                       zip("ABCDEF", ["Residents", "Press", "Research", "Business", "Privacy", "Budget"]))
    doc = read_b3(text + "\n\n**Synthesis**\n\n1. Publish.\n2. Aggregate.", {"asked": "3-5"})
    assert doc["count"] == 6 and doc["perspectives"][-1] == "Budget"


def test_a_bold_container_and_an_options_list_before_the_bold_bullets():
    """Round F (s15f-b3-08): '**Options on the table**' over plain bullets, then '**Perspectives**' over bold bullets:
    the options were read as a fifth view, unflagged."""
    text = ("Several angles.\n\n**Options on the table**\n\n* Migrate as planned\n* Do not migrate yet\n\n"
            "**Perspectives**\n\n" + "\n".join(f"* **{t}**\n    * Point one.\n    * Point two." for t in
                                               ("Platform", "Owners", "Security", "Management"))
            + "\n\n**Overall:**\n\nMigrate in waves.")
    reading = read_perspectives(text)
    assert [s.title for s in reading.split.sections] == ["Platform", "Owners", "Security", "Management"]


VIEW_BODIES = ["Refuse: a concession invites the next demand.", "Brief funders before the campaign lands.",
               "Close the regulatory gaps now.", "Publish a transparency report first."]


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["Key Considerations", "Considerations", "Main considerations"]), st.integers(3, 4),
       st.sampled_from(["**Give 3-5 genuinely different perspectives on this decision, then synthesize a "
                        "recommendation.**", "Give 3-5 genuinely different perspectives on this decision, then "
                        "synthesize a recommendation.", ""]))
def test_a_considerations_preamble_and_the_echoed_call_are_no_views(preamble, n, echo):
    """Round F (written apart): a '## Key Considerations' list before numbered views, and the prompt's instruction
    echoed on a line of its own, were each read as one more view."""
    views = "\n\n".join(f"## {i + 1}. View {chr(65 + i)}\n\n{VIEW_BODIES[i]}" for i in range(n))
    text = (f"{echo}\n\nLet's break it down.\n\n## {preamble}\n\n- **Precedent:** others are watching.\n"
            f"- **Reversibility:** concessions are hard to undo.\n\n{views}\n\n## Synthesis\n\nRefuse and prepare.")
    doc = read_b3(text, {"asked": "3-5"})
    assert doc["count"] == n and not doc["flagged"], doc
    assert doc["perspectives"] == [f"View {chr(65 + i)}" for i in range(n)]


def test_a_yaml_block_with_number_keys_is_read_not_a_crash():
    """YAML keys need not be strings (`1: x`): the reader compared them as strings only after this raised."""
    fenced = ("```yaml\nperspectives:\n  - name: Legal\n    text: tell police\n  - {1: x, name: Money, text: talk}\n"
              "  - name: Users\n    text: keep\n2: odd\n```\n\nRecommendation: refuse.")
    reading = read_perspectives(fenced)
    assert reading.split.layout == "yaml" and [s.title for s in reading.split.sections] == ["Legal", "Money", "Users"]


# Round F (tests/corpus/b3/heldout-s15f.toml): the layout families its flagged replies opened

@settings(max_examples=30, deadline=None)
@given(VIEWS, st.sampled_from(["In summary:", "To recap:", "**Summary**"]))
def test_labels_given_again_in_a_recap_recall_their_views(views, recap):
    """s15f-b3-32: `Perspective 1: ...` ... then a recap list `- Perspective 1 says ...`: the views, once each."""
    text = "\n\n".join(f"Perspective {i}: {t}\n{b}" for i, (t, b) in enumerate(views, start=1))
    text += f"\n\n{recap}\n" + "\n".join(f"- Perspective {i} says {b.lower()}" for i, (_, b) in enumerate(views, 1))
    reading = read_perspectives(text + "\n\nThe recommendation is to wait.")
    assert not reading.flagged, reading.reason
    assert [s.title for s in reading.split.sections] == [t for t, _ in views]


def test_a_label_given_again_under_a_new_title_is_a_view_not_a_recap():
    text = "\n\n".join(f"Perspective {n}: {t}\nIt sees a cost here and wants a delay." for n, t in
                       ((1, "Legal"), (2, "Money"), (3, "Users"), (1, "Press"), (2, "Staff")))
    assert titles(text) == ["Legal", "Money", "Users", "Press", "Staff"]


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(TITLE, BODY), min_size=6, max_size=6, unique_by=lambda v: v[0].casefold()),
       st.sampled_from(["1 2 3 4 5 6", "A B C D E F"]), st.sampled_from(["—", "–", ":"]))
def test_six_views_the_reply_labels_in_order_are_six_flagged_as_not_asked(views, keys, dash):
    """s15f-b3-09, -19: `**Perspective 1 — Ethical**` ... `6`, or `A` ... `F`, where 3-5 were asked: six, sure."""
    text = "\n\n".join(f"**Perspective {k} {dash} {t}**\n{b}" for k, (t, b) in zip(keys.split(), views))
    doc = read_b3(text + "\n\n**Recommendation**\nWait.", {})
    assert doc["count"] == 6 and doc["flagged"] and not doc["unsure"], doc["reason"]
    assert b3_agrees(doc, {"perspectives": 6, "titles": [t for t, _ in views]})


@settings(max_examples=30, deadline=None)
@given(VIEWS, st.sampled_from(["**Options on the table**", "## Options", "**Risks**", "### Key risks"]))
def test_a_list_under_a_title_that_names_options_or_risks_holds_no_views(views, aside):
    """s15f-b3-08: `**Options on the table**` over `* Migrate as planned`, then the views as bold bullets."""
    points = "\n".join(f"    * {b}" for b in ("It sees a cost here.", "It wants a delay."))
    text = (f"{aside}\n\n* Go ahead as planned\n* Go ahead more slowly\n* Wait\n\n**Perspectives**\n\n"
            + "\n".join(f"* **{t}**\n{points}" for t, _ in views) + "\n\n**Overall:**\n\nGo ahead slowly.")
    reading = read_perspectives(text)
    assert not reading.flagged, reading.reason
    assert [s.title for s in reading.split.sections] == [t for t, _ in views]


ROLES = ["database administrators", "application engineers", "product teams", "investors", "residents",
         "the security team", "journalists", "the lawyer"]


@settings(max_examples=30, deadline=None)
@given(st.permutations(ROLES).map(lambda r: r[:4]), st.permutations(range(3)))
def test_prose_views_opened_by_the_people_they_speak_for(roles, forms):
    """s15f-b3-07: "From the DBA's point of view, ...", "The application engineers see it ...", "For product teams,
    ...", "Finally, from the incident commander's point of view, ...": a view per paragraph, in any order."""
    opening = [lambda r: f"From the point of view of {r}, this is risky.",
               lambda r: f"{r[0].upper() + r[1:]} see it the other way round.",
               lambda r: f"For {r}, the question is simply what customers notice."]
    paragraphs = [opening[forms[n % 3]](r) + " It costs time and money." for n, r in enumerate(roles[:3])]
    paragraphs.append(f"Finally, from the point of view of {roles[3]}, what matters is rollback.")
    text = "The choice is where to put the risk.\n\n" + "\n\n".join(paragraphs) + "\n\n## Where I land\n\nWait."
    reading = read_perspectives(text)
    assert not reading.flagged, reading.reason
    assert len(reading.split.sections) == 4
    assert all(r.split()[-1] in s.title.casefold() for r, s in zip(roles, reading.split.sections))


def test_stock_phrases_opened_with_for_are_no_views():
    text = ("For example, the cost is high.\n\nFor starters, it is slow.\n\nFor others, it matters less.\n\n"
            "For the moment, wait.")
    assert read_perspectives(text).split.layout != "prose"


def test_a_last_view_titled_by_our_party_is_a_view():
    """'## 4. Our customers' is a party, not the author's closing ('What I'd do')."""
    text = "\n\n".join(f"## {n}. {t}\nIt sees a cost here and wants a delay." for n, t in
                       enumerate(["Legal", "Money", "Staff", "Our customers"], start=1))
    reading = read_perspectives(text + "\n\n## Recommendation\nWait.")
    assert not reading.flagged and [s.title for s in reading.split.sections][-1] == "Our customers"


# Round G (tests/corpus/b3/heldout-s16g.toml): the layout families its flagged and misread replies opened

ORDINAL_WORDS = ["First", "Second", "Third", "Fourth", "Fifth"]


@settings(max_examples=30, deadline=None)
@given(VIEWS, st.sampled_from(["{o} Perspective — {t}: {b}", "**The {o} viewpoint:** {t}. {b}", "{o} View - {t}\n{b}"]))
def test_views_labelled_by_an_ordinal_word_are_titled_by_their_names(views, form):
    """s16g-b3-22 (read 'First Perspective', 'Second Perspective', ... with no flag): the name after the label."""
    text = "\n\n".join(form.format(o=o, t=t, b=b) for o, (t, b) in zip(ORDINAL_WORDS, views))
    reading = read_perspectives(text + "\n\nSynthesis: wait.")
    assert not reading.flagged, reading.reason
    assert [s.title for s in reading.split.sections] == [t for t, _ in views]


@settings(max_examples=30, deadline=None)
@given(VIEWS, st.sampled_from(["#### Perspective {k} — {t}", "**Perspective {k}: {t}**"]))
def test_a_labelled_view_that_uses_the_others_words_is_still_a_view(views, form):
    """s16g-b3-15, -22: the last labelled view mentions the others' subjects ('data volumes', 'privacy risk')."""
    names = " and ".join(t.casefold() for t, _ in views[:-1])
    bodies = [b for _, b in views[:-1]] + [f"It weighs {names} against each other."]
    text = "\n\n---\n\n".join(form.format(k=k, t=t) + "\n" + b for k, (t, _), b in zip("ABCDE", views, bodies))
    reading = read_perspectives(text + "\n\n**Recommendation**\n\nWait.")
    assert not reading.flagged, reading.reason
    assert [s.title for s in reading.split.sections] == [t for t, _ in views]


@settings(max_examples=30, deadline=None)
@given(VIEWS, st.sampled_from(["## Bottom Line", "## Recommendation", "### Where I land"]))
def test_a_synthesis_heading_closes_bold_views_and_what_follows_it(views, heading):
    """s16g-b3-12: bold views under a `##` intro, then `## Bottom Line` and `**Suggested timeline:** ...` in it."""
    text = ("## Looking at it from different angles\n\n"
            + "\n\n".join(f"**{t}**\n* *Risk:* {b}\n* *Mitigation:* Go slowly." for t, b in views)
            + f"\n\n{heading}\nWait.\n\n**Suggested timeline:** five weeks.")
    reading = read_perspectives(text)
    assert not reading.flagged, reading.reason
    assert [s.title for s in reading.split.sections] == [t for t, _ in views]


@settings(max_examples=30, deadline=None)
@given(VIEWS, st.sampled_from(["", ",", ":"]))
def test_paragraphs_opened_by_an_italic_name_are_views(views, mark):
    """s16g-b3-20: '*The privacy advocate* starts from ...', then 'Putting it together: ...'."""
    text = "\n\n".join(f"*The {t.casefold()}*{mark} {b}" for t, b in views)
    reading = read_perspectives("I'll treat it as a generic case.\n\n" + text + "\n\nPutting it together: wait.")
    assert not reading.flagged, reading.reason
    assert [s.title for s in reading.split.sections] == [f"The {t.casefold()}" for t, _ in views]


@settings(max_examples=30, deadline=None)
@given(VIEWS, st.sampled_from(["🛡️", "🌍", "⚖️", "🔧"]))
def test_an_emoji_between_the_number_and_the_title_hides_no_title(views, emoji):
    """s16g-b3-31: '1. 🛡️ **Quality Assurance Perspective**' read as an untitled item."""
    text = "\n\n".join(f"{i}. {emoji} **{t}**\n   {b}" for i, (t, b) in enumerate(views, start=1))
    reading = read_perspectives("Here are the perspectives:\n\n" + text + "\n\n### Recommendation\nWait.")
    assert not reading.flagged, reading.reason
    assert [s.title for s in reading.split.sections] == [t for t, _ in views]


def test_the_case_for_an_option_is_a_view_and_all_three_threats_no_synthesis():
    """s16g-b3-34: '### The case for partial compliance (the pragmatist)' ... under 'The case' the introduction's
    title reads; 'all three threats' in the last view counts threats, not the views."""
    text = ("One way is to have each view argue for a response.\n\n"
            "### The case for compliance (the pragmatist)\nSurvival buys time.\n\n"
            "### The case for resistance (the institutionalist)\nPolicies that move under threat are no policies.\n\n"
            "### The case for changing the game (the strategist)\nAll three threats depend on being reactive.\n\n"
            "### What I'd actually do\nRefuse and brief the funders.")
    reading = read_perspectives(text)
    assert not reading.flagged, reading.reason
    assert [s.title for s in reading.split.sections][0] == "The case for compliance (the pragmatist)"
    set_talk = text.replace("All three threats depend", "All three views agree it depends")
    assert read_perspectives(set_talk).flagged


def test_six_titled_numbered_views_are_six_whatever_another_layout_reads():
    """s16g-b3-18: six numbered, titled views (where 3-5 were asked), which a voice reading counts as three."""
    roles = ["The Sysadmin", "The Manager", "The Developer", "The Security Team", "The Auditor", "The Vendor"]
    bodies = ["Worried about a new tool.", "Wants it fast.", "Wants to test quickly.", "Wants version control.",
              "Likes the record it keeps.", "If the tool is paid, sells more licences."]  # three in a voice ("Wants")
    text = "Here are perspectives:\n\n" + "\n".join(f"{i}. **{r}:** {b}" for i, (r, b) in enumerate(
        zip(roles, bodies), start=1)) + "\n\n**Synthesis:**\nThe sysadmin and the manager differ, and the developer too."
    doc = read_b3(text, {})
    assert doc["count"] == 6 and doc["flagged"] and not doc["unsure"], doc["reason"]


@settings(max_examples=20, deadline=None)
@given(VIEWS, st.sampled_from(["Weighted total", "**Total**", "Average score"]))
def test_a_table_row_that_adds_the_views_up_is_no_view(views, total):
    """s13d-weighted-perspectives-score-table: `| Weighted total | 3.4 |` under the views' rows."""
    rows = "\n".join(f"| {t} | {n} |" for n, (t, _) in enumerate(views, start=2))
    text = f"| Perspective | Score |\n|---|---|\n{rows}\n| {total} | 3.4 |\n\n**Recommendation:** wait."
    reading = read_perspectives(text)
    assert not reading.flagged, reading.reason
    assert [s.title for s in reading.split.sections] == [t for t, _ in views]


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["##", "###", "bold", "html"]), VIEWS, WORD, st.sampled_from(["should", "would"]), SENTENCE)
def test_a_closing_titled_what_someone_should_do_is_the_synthesis_whoever_it_names(layout, views, name, verb, advice):
    """No case's names in the reader: "What Glenda should do" closes the views as "What Priya should do" does."""
    text = reply(layout, "", views, f"What {name.capitalize()} {verb} do", advice)
    assert len(read_perspectives(text).split.sections) == len(views)
