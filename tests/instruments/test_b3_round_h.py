"""B3 reader rules from round H (issue 41, session 17): habits of model writing the round showed the reader missing,
each as a property over a family of generated replies (or a test over the one form it names), failing without its rule.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.protocols.hindsight.architectures.perspectives import read_perspectives
from workbench.protocols.hindsight.instruments import b3_agrees, read_b3

# plain words that name nothing the reader treats specially (no ordinal, label, synthesis, option or role ending)
NOUN = st.sampled_from(["garden", "harbour", "village", "orchard", "quarry", "meadow", "lantern", "granary", "bakery",
                        "ferry", "chapel", "mill", "tannery", "kiln", "forge", "pasture", "cellar", "bridge"])
ADJ = st.sampled_from(["northern", "quiet", "old", "small", "upland", "coastal", "inland", "eastern", "rural"])
NAME = st.tuples(ADJ, NOUN).map(lambda p: f"the {p[0]} {p[1]} crowd")
FILLER = st.lists(NOUN, min_size=5, max_size=9).map(lambda ws: "Here the " + " and the ".join(ws) + " matter.")
NAMES = st.lists(NAME, min_size=3, max_size=4, unique=True)

# how a prose view is opened by its place, the name given later in its first sentence ({} is the name)
PLACE_OPENINGS = [
    "The first perspective I'd consider is that of {}.",
    "A second perspective is that of {}.",
    "A third perspective is that of {}.",
    "Finally, there's the perspective of {} themselves.",
]


def _prose(names: list[str], emphasis: str) -> str:
    openings = PLACE_OPENINGS[:len(names) - 1] + PLACE_OPENINGS[-1:]
    paragraphs = ["This is a hard call, and I want to approach it carefully."]
    paragraphs += [opening.format(f"{emphasis}{name}{emphasis}") + " Their concern is the harvest."
                   for opening, name in zip(openings, names)]
    paragraphs.append("**My recommendation**\n\nDecline, and say so publicly.")
    return "\n\n".join(paragraphs)


@settings(max_examples=40, deadline=None)
@given(NAMES, st.sampled_from(["*", "_", "**", ""]))
def test_a_prose_view_opened_by_its_place_is_named_by_whose_view_it_is(names, emphasis):
    """"The first perspective I'd consider is that of *the users*": the name, not the place, is the title (italic or
    not); before, 'The first perspective' and '' were read and passed unflagged."""
    reading = read_perspectives(_prose(names, emphasis))
    assert [s.title for s in reading.split.sections] == names
    assert not reading.flagged, reading.reason


@settings(max_examples=40, deadline=None)
@given(NAMES, FILLER)
def test_a_prose_view_whose_opening_gives_no_name_is_flagged(names, filler):
    """A view read from running text whose opening gives only its place ("Third, the <thing> exists ...", "Another
    perspective ...") has no title the reader can stand by: flagged, whatever the count, never taken as data."""
    first, second, *_ = names
    text = "\n\n".join([f"First, consider {first}: {filler}", f"Second, think about {second}: {filler}",
                        f"Third, {filler.lower()}", "My recommendation: decline."])
    reading = read_perspectives(text)
    assert reading.split.layout == "prose" and len(reading.split.sections) == 3
    assert reading.flagged and "without a name" in reading.reason
    doc = read_b3(text, {})
    # a sure count still agrees where the truth gives no names, never where it names the views
    assert b3_agrees(doc, {"perspectives": 3})
    assert not b3_agrees(doc, {"perspectives": 3, "titles": [first, second, "the third"]})


# a view's title that opens with a word an option's label also opens with, one letter on ("Staged", "Phased")
LABEL_WORDS = ["option", "choice", "alternative", "scenario", "step", "phase", "stage", "path"]


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(LABEL_WORDS), st.sampled_from("abcde"), st.sampled_from(["", "", "s", "ed"]),
       st.lists(NAME, min_size=3, max_size=4, unique=True))
def test_a_word_that_runs_on_from_an_option_label_is_no_option(word, letter, tail, names):
    """"Staged Formalization" is a view's name, not "Stage D": a label's letter stands apart from its word. A list
    whose last item was taken for an option dropped it (three views read as two)."""
    from workbench.protocols.hindsight.architectures.perspectives.titles import aside
    title = f"{word}{letter}{tail}".capitalize() + " formalization"
    assert not aside(title)
    assert aside(f"{word.capitalize()} {letter.upper()}") and aside(f"{word.capitalize()} 2")
    items = [name.capitalize() for name in names[:-1]] + [title]
    text = "Here are three perspectives:\n\n" + "\n\n".join(
        f"{n}. **{item}:**\n   Supporters of this view argue for the harvest." for n, item in enumerate(items, start=1))
    text = text.replace("three perspectives", f"{len(items)} perspectives") + "\n\n**Synthesis:**\nAll agree."
    assert [s.title for s in read_perspectives(text).split.sections] == items


VERB_PHRASE = st.sampled_from(["should be rejected", "is the strongest", "ignores the harvest", "comes closest",
                               "and 3 combine well", "deserves more weight"])


@settings(max_examples=40, deadline=None)
@given(st.lists(NAME, min_size=3, max_size=5, unique=True), st.data(), VERB_PHRASE,
       st.sampled_from(["synthesis", "view"]))
def test_a_label_given_again_as_a_sentences_subject_starts_no_view(names, data, verb, where):
    """"Perspective 2 should be rejected: ..." in the synthesis (or in a later view's text) names a view already
    given; it is no fifth view titled 'should be rejected'."""
    k = data.draw(st.integers(min_value=1, max_value=len(names) - 1))
    mention = f"Perspective {k} {verb}: the others hold up better."
    views = [f"## Perspective {n}: {name.title()}\n\n**Core argument:** The harvest matters most."
             for n, name in enumerate(names, start=1)]
    if where == "view":
        views[-1] += "\n\n" + mention
    text = "# Some perspectives\n\n" + "\n\n".join(views) + "\n\n## Synthesis and recommended course\n\n" + (
        mention if where == "synthesis" else "Decline.") + "\n\n1. **Do not comply.**\n2. **Brief the funders.**"
    reading = read_perspectives(text)
    assert [s.title for s in reading.split.sections] == [name.title() for name in names]
    assert not reading.flagged, reading.reason


TAGLINE = st.sampled_from(["protect the {}", "don't punish the {}", "count the {} first", "keep the {} open"])
ASKING = st.sampled_from(["what can we actually enforce?", "where do we stand on the {}?", "what would I tell the {}?"])


@settings(max_examples=40, deadline=None)
@given(st.lists(NAME, min_size=3, max_size=4, unique=True), st.lists(TAGLINE, min_size=4, max_size=4), ASKING, NOUN)
def test_a_views_tagline_in_its_own_voice_leaves_it_a_view(names, taglines, asking, noun):
    """"## The secretariat: what can we actually enforce?" after "## The editorial board: protect the standard": the
    tagline after a name speaks in its view's voice (a question, "we"); the last view is no closing in the author's
    voice, which the reader dropped when it judged the whole title."""
    titles = [f"{name.capitalize()}: {tag.format(noun)}" for name, tag in zip(names[:-1], taglines)]
    titles.append(f"{names[-1].capitalize()}: {asking.format(noun)}")
    text = "\n\n".join(f"## {t}\n\nThe harvest comes first here, and the rest follows." for t in titles)
    text += "\n\n## Where they actually disagree\n\nThe first two differ on values.\n\n## My recommendation\n\nDecline."
    reading = read_perspectives(text)
    assert [s.title for s in reading.split.sections] == titles
    assert not reading.flagged, reading.reason


NUMBER = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 4), st.integers(1, 2), st.sampled_from(["{}-{}", "{}–{}", "{} - {}", "{} to {}"]),
       st.booleans(), st.lists(NAME, min_size=2, max_size=2, unique=True))
def test_a_range_of_perspectives_echoes_the_ask_and_fewer_views_given_on_purpose_are_sure(low, span, form, words,
                                                                                       names):
    """"You asked for 3–5 perspectives. Honestly, the debate reduces to two camps ... I'll give you the two": the
    range is the prompt's ask, not the reply's count (it made two views doubted as 'the reply says 5'); two views given on
    purpose are a sure reading the prompt did not ask for (flagged, not unsure)."""
    from workbench.protocols.hindsight.architectures.perspectives.titles import stated_counts
    high = low + span
    asked = form.format(*(NUMBER[n] if words else n for n in (low, high)))
    assert stated_counts(f"You asked for {asked} perspectives.") == set()
    assert stated_counts(f"Here are {NUMBER[high]} perspectives.") == {high}
    text = (f"You asked for {asked} perspectives. Honestly, the debate here reduces to two camps, so I'll give you "
            "the two properly rather than padding.\n\n" + "\n\n".join(
                f"## Camp {n}: {name}\n\n- The harvest is the binding constraint.\n- Cost of this path: time."
                for n, name in enumerate(names, start=1)) + "\n\n## Recommendation\n\nGo with the first camp.")
    reading = read_perspectives(text)
    assert len(reading.split.sections) == 2
    assert reading.flagged and not reading.unsure, reading.reason
    assert b3_agrees(read_b3(text, {}), {"perspectives": 2, "titles": names})


@settings(max_examples=40, deadline=None)
@given(st.lists(NAME, min_size=3, max_size=5, unique=True), st.data(), st.sampled_from([".", ")"]))
def test_a_list_item_written_without_its_number_fills_the_gap(names, data, mark):
    """Messy text from a small model: "1. Technical perspective - ...", then "**Business Perspective:** ..." with no
    number, then "3) Risk perspective": the bold paragraph in the gap is item 2. A gap nothing fills (1, 2, 4) is a
    view the reader may miss: doubted, never a sure count."""
    k = data.draw(st.integers(min_value=2, max_value=len(names) - 1))  # the item written without its number
    titles = [f"{name.capitalize()} perspective" for name in names]
    marks = [data.draw(st.sampled_from([".", ")"])) for _ in names]
    items = [f"**{t}:** The harvest matters here." if n == k else f"{n}{marks[n - 1]} {t} - The harvest matters here."
             for n, t in enumerate(titles, start=1)]
    text = "Sure! Here are some perspectives on it.\n\nPerspectives:\n\n" + "\n\n".join(items) + \
        "\n\nRecommendation:\nGo ahead, carefully."
    reading = read_perspectives(text)
    assert [s.title for s in reading.split.sections] == titles
    missing = "\n\n".join(item for n, item in enumerate(items, start=1) if n != k)
    gap = read_perspectives(text.replace("\n\n".join(items), missing))
    assert gap.flagged and gap.unsure, gap.reason


FIRST_BIDS = ["Start with how {} would see it.", "Start with the view from {}."]
NEXT_BIDS = ["Now take the view from {}, who see it daily.", "Next, consider the perspective of {}.",
             "Now think about it as {} who has to live with it."]
LAST_BIDS = ["Finally, think about it as {} who has to run both.", "Finally, take the view of {}."]


@settings(max_examples=40, deadline=None)
@given(st.lists(NAME, min_size=3, max_size=4, unique=True), st.sampled_from(FIRST_BIDS), st.data(),
       st.sampled_from(LAST_BIDS), FILLER)
def test_prose_views_introduced_in_sentence_by_a_bid_to_take_them(names, first, data, last, filler):
    """Flowing prose where the author bids the reader take each view in the sentence that opens its paragraph ("Start
    with how a growth-stage investor would see it.", "Now take the view from customer success, ...", "Finally, think
    about it as the founder ..."), a view's second paragraph opening otherwise: each bid a view, named by whom."""
    middles = [data.draw(st.sampled_from(NEXT_BIDS)) for _ in names[1:-1]]
    bids = [first] + middles + [last]
    paragraphs = ["This looks like one decision but it is several, so it helps to hear it argued from a few places."]
    for n, (bid, name) in enumerate(zip(bids, names)):
        paragraphs.append(bid.format(name) + " " + filler)
        if n == 0:
            paragraphs.append("There is a second half to this argument. " + filler)
    paragraphs.append("Weighing these, I'd recommend a limited move. " + filler)
    reading = read_perspectives("\n\n".join(paragraphs))
    assert reading.split.layout == "prose" and not reading.flagged, reading.reason
    assert [name in s.title for s, name in zip(reading.split.sections, names)] == [True] * len(names)
    assert len(reading.split.sections) == len(names)


@settings(max_examples=40, deadline=None)
@given(st.lists(NAME, min_size=4, max_size=5, unique=True), st.lists(TAGLINE, min_size=4, max_size=4), ASKING, NOUN,
       st.sampled_from(["I would decline", "I'd refuse", "My recommendation is to wait", "We should decline"]))
def test_a_closing_that_decides_under_a_views_title_shape_is_no_view(names, taglines, asking, noun, decides):
    """The tagline rule above keeps a last title that asks in its view's voice; where that section's text decides in
    the author's voice ("## The owner: what should we do?" over "I would decline ..."), it is the synthesis, no
    view."""
    titles = [f"{name.capitalize()}: {tag.format(noun)}" for name, tag in zip(names[:-1], taglines)]
    closing = f"{names[-1].capitalize()}: {asking.format(noun)}"
    text = "\n\n".join(f"## {t}\n\nThe harvest comes first here, and the rest follows." for t in titles)
    text += f"\n\n## {closing}\n\n{decides}, and say so to the {noun} crowd at once."
    reading = read_perspectives(text)
    assert [s.title for s in reading.split.sections] == titles
    assert not reading.flagged, reading.reason


@settings(max_examples=30, deadline=None)
@given(st.lists(st.sampled_from(["much", "far", "very", "not", "really", "quite"]), min_size=3, max_size=3))
def test_a_stressed_word_in_a_views_opening_is_no_name(stressed):
    """"The first perspective is *much* more cautious": emphasis that stresses a word names no view; the views stay
    unnamed and the reading is flagged, never titled 'much'."""
    openings = ["The first perspective is *{}* more cautious.", "A second perspective is *{}* bolder.",
                "Finally, there is a view that is *{}* different."]
    text = "Some context first.\n\n" + "\n\n".join(o.format(w) + " It says wait." for o, w in zip(openings, stressed))
    reading = read_perspectives(text + "\n\nMy recommendation: wait.")
    assert not any(w in s.title for s in reading.split.sections for w in stressed)
    assert reading.flagged


@settings(max_examples=40, deadline=None)
@given(st.lists(NAME, min_size=2, max_size=2, unique=True), st.sampled_from(["On one hand", "On the one hand"]),
       FILLER, st.booleans())
def test_two_sides_on_one_hand_and_the_other_are_a_sure_two_named_by_whom(names, one, filler, extra):
    """"On one hand, the security team would see ... On the other hand, the product teams would see ..." then "My
    recommendation": two views named by whom (the side's phrase names no one), a sure count where every paragraph
    before the synthesis opens one; a paragraph that opens none may hold a view the openings missed (doubted)."""
    first, second = names
    paragraphs = [f"{one}, {first} would see this as a chance. {filler}",
                  f"On the other hand, {second} would see weeks of disruption. {filler}"]
    if extra:
        paragraphs.insert(1, f"Meanwhile {filler.lower()}")
    text = "\n\n".join(paragraphs) + "\n\nMy recommendation is to go slowly."
    reading = read_perspectives(text)
    assert [s.title for s in reading.split.sections] == names
    assert reading.flagged and reading.unsure == extra, reading.reason
    if not extra:
        assert b3_agrees(read_b3(text, {}), {"perspectives": 2, "titles": names})
