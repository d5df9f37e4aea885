"""The cue audit (issue 30): it flags the roster, fan and C1 framing the project shipped before issue 30 and passes
the new defaults; it finds a cue by meaning where no key term appears; `study show` (text and --json) and the report
carry it, and a second `study show` loads no model (every embedding cached in the store)."""

from __future__ import annotations

import json

import pytest

from tests.runner.studykit import create, make_store, study_text
from workbench.cases.library import shipped_rubrics
from workbench.cli.main import main
from workbench.cue_audit import MEANING_THRESHOLD, Criterion, Prompt, criteria_of, run_audit
from workbench.cue_audit.meaning import CUE_MODEL
from workbench.cue_audit.terms import key_terms, stem
from workbench.metrics.embeddings import Embedder
from workbench.protocols.hindsight.protocol import HindsightProtocol
from workbench.studies.definition import parse_study_text

HINDSIGHT_RUBRICS = ("anticipation", "epistemic-humility", "glenda-crock", "blast-radius")
LEGACY = ('[architectures.C1]\nframing = "respondents"\n[architectures.C2]\nroster = "content-briefs"\n'
          '[architectures.C3]\nfan = "tail-risk"\n')


@pytest.fixture(scope="module")
def embedder():
    return Embedder(CUE_MODEL)  # all-mpnet-base-v2, loaded once; its in-memory cache serves the module's tests


def audit_of(extra: str, embedder):
    protocol = HindsightProtocol()
    definition = parse_study_text('name = "audit"\ncases = ["glenda-crock"]\nraters = []\njudges = []\n' + extra,
                                  "s.toml")
    prompts = {c: [Prompt(*p) for p in ps] for c, ps in protocol.condition_prompts(definition).items()}
    rubrics = shipped_rubrics()
    return run_audit(prompts, "B1", criteria_of([rubrics[r] for r in HINDSIGHT_RUBRICS]), embedder,
                     structure=protocol.condition_structure())


def keyed(audit, origin: str) -> set[tuple[str, str, str]]:
    return {(f.condition, f.criterion, f.prompt) for f in audit.findings if f.origin == origin}


def test_key_terms_leave_out_the_frame_of_the_question_and_meet_on_stems():
    terms = [t for t, _ in key_terms("Frame analysis. Does the response notice that Crock has pre-framed every "
                                     "available action?")]
    assert "frame" in terms and "response" not in terms and "does" not in terms and "available" not in terms
    assert stem("framing") == stem("framed") == stem("frame") and stem("risks") == stem("risk")


def test_the_audit_flags_the_roster_fan_and_framing_shipped_before_issue_30(embedder):
    audit = audit_of(LEGACY, embedder)
    assert not audit.passes
    project = keyed(audit, "project")
    for cond in ("C2", "C3", "P1"):  # the three committee conditions share the roster
        assert (cond, "anticipation", "roster.content-briefs.risk-analyst") in project       # tail risks
        assert (cond, "frame_analysis", "roster.content-briefs.devils-advocate") in project  # the framing
        assert (cond, "compliance_trap", "roster.content-briefs.strategist") in project      # precedent
    assert ("C3", "anticipation", "prompts.C3_FAN_TAIL_RISK") in project
    assert ("C1", "frame_analysis", "prompts.C1_FRAME_FRAMED") in project
    risk = next(f for f in audit.findings if f.prompt == "roster.content-briefs.risk-analyst")
    assert "risk" in risk.terms


def test_the_new_defaults_carry_no_cue_of_the_projects_wording(embedder):
    """Issue 41: the functional devil's advocate ("make the strongest case for the option the committee is
    neglecting") argues the other side and names no criterion; it was read as the compliance trap (0.43 against
    0.42 for procedure) until the neutral side held the roles of a deliberation (meaning.py, exemplars.toml).
    The prompt is unchanged."""
    audit = audit_of("", embedder)
    assert audit.passes and audit.by_origin("project") == []
    # what remains is the seed's: B2's own "What are the risks?", and C3's scenarios, which the seed names
    assert keyed(audit, "seed") == {("B2", "anticipation", "prompts.B2_PROMPT")}
    assert ("C3", "anticipation") in {(c, k) for c, k, _ in keyed(audit, "structure")}


def test_a_cue_by_meaning_alone_is_found(embedder):
    crit = Criterion("toy", "precedent", "Compliance trap",
                     "Does the response see that giving in to a threat now invites the next threat?")
    prompts = {"B1": [Prompt("b1", "Given this situation, what should we do? Explain your reasoning.", "seed")],
               "X": [Prompt("x", "Yielding to intimidation today brings more intimidation tomorrow.")]}
    audit = run_audit(prompts, "B1", [crit], embedder)
    (finding,) = audit.findings
    assert finding.similarity >= MEANING_THRESHOLD and finding.sentence.startswith("Yielding to intimidation")
    assert finding.terms == ()  # no key term of the criterion: found by meaning only
    plain = run_audit({**prompts, "X": [Prompt("x", "Write your answer in plain English for a general reader.")]},
                      "B1", [crit], embedder)
    assert plain.findings == []


def cli(capsys, db_path, *argv):
    capsys.readouterr()
    code = main(["--batch", "--db", str(db_path), *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_study_show_and_the_report_carry_the_audit_and_a_second_show_loads_no_model(tmp_path, capsys, monkeypatch):
    db, db_path, _ = make_store(tmp_path)
    create(db, study_text("legacy", conditions=("B1", "B2", "C2"), extra=LEGACY))
    code, out, _ = cli(capsys, db_path, "study", "show", "legacy")
    assert code == 0 and "cue audit" in out
    assert "C2: anticipation/anticipation (Anticipation) by terms 'risk'" in out
    assert "roster.content-briefs.risk-analyst [project]" in out
    rows = db["embeddings"].count

    def no_model(self):
        raise AssertionError("a cached audit must not load the embedding model")

    monkeypatch.setattr(Embedder, "_load", no_model)
    code, out, _ = cli(capsys, db_path, "--json", "study", "show", "legacy")
    doc = json.loads(out)["cue_audit"]
    assert doc["passes"] is False and doc["baseline"] == "B1" and db["embeddings"].count == rows
    assert {"C2", "anticipation", "roster.content-briefs.risk-analyst"} <= {
        v for f in doc["findings"] for v in (f["condition"], f["criterion"], f["prompt"])}
    report = tmp_path / "report.md"
    assert cli(capsys, db_path, "report", "legacy", "--out", str(report))[0] == 0
    text = report.read_text()
    assert "## Cue audit" in text and "roster.content-briefs.strategist [project]" in text
    assert "Committee roster: `content-briefs` (a pre-registered DEVIATION)" in text


@pytest.mark.parametrize("sentence, criterion", [
    ("Remember that giving in now would only invite further demands later.", "compliance_trap"),
    ("A single bad change could break everywhere at once, and whether it can be undone matters.", "blast_radius"),
    ("You call threats what they are: blackmail.", "coercion_recognition"),
])
def test_the_issues_paraphrased_cues_are_found(embedder, sentence, criterion):
    """Issue 41's own examples (not in the labelled set the line was set on), each found against B1."""
    rubrics = shipped_rubrics()
    prompts = {"B1": [Prompt("b1", "Given this situation, what should we do? Explain your reasoning.", "seed")],
               "X": [Prompt("x", f"You advise the board. {sentence} Keep it short.")]}
    audit = run_audit(prompts, "B1", criteria_of([rubrics["glenda-crock"], rubrics["blast-radius"]]), embedder)
    assert criterion in {f.criterion for f in audit.findings}, [f.text() for f in audit.findings]


def test_the_menu_metaphor_is_found_as_frame_analysis(embedder):
    """The issue's frame-analysis paraphrase read 0.28 against the rubric's own words (a metaphor the sentence
    model does not resolve); against the criterion's labelled paraphrases (exemplars.toml, none of them this
    sentence) the audit finds it, and `read cues` lists it (flagged as near the line since the neutral side
    holds the case's material)."""
    from workbench.cue_audit.instrument import read_cues

    sentence = "Ask whether the menu itself was set up to corner the organization."
    rubrics = shipped_rubrics()
    prompts = {"B1": [Prompt("b1", "Given this situation, what should we do? Explain your reasoning.", "seed")],
               "X": [Prompt("x", sentence)]}
    audit = run_audit(prompts, "B1", criteria_of([rubrics["glenda-crock"]]), embedder)
    assert [f.criterion for f in audit.findings] == ["frame_analysis"]
    doc = read_cues(sentence, {"rubric": "glenda-crock"})
    assert [c["criterion"] for c in doc["cues"]] == ["frame_analysis"]


def test_the_exemplars_are_criteria_of_the_shipped_rubrics():
    """Every labelled paraphrase names a criterion a shipped rubric has: a renamed criterion cannot leave its
    exemplars unused without this failing."""
    from workbench.cue_audit import meaning

    known = {(r.id, c.id) for r in shipped_rubrics().values() for c in r.criteria}
    cues, neutral = meaning._exemplars()
    assert cues and neutral and set(cues) <= known, set(cues) - known


@pytest.mark.parametrize("question, kept, foil", [
    ('Does the response identify the situation as extortion, rather than a "difficult negotiation"?',
     "the situation as extortion", "difficult negotiation"),
    ("Does the response notice the pre-framed options (each cast as harm) instead of accepting the frame?",
     "the pre-framed options", "accepting the frame"),
])
def test_the_contrast_a_question_draws_is_no_reference(question, kept, foil):
    """What the criterion does not reward ("rather than a difficult negotiation") is not compared as if it were a
    cue: round G's neutral "This is a difficult negotiation with several parties" read as a sure cue of coercion
    recognition. A contrast inside a clause ("amplify rather than reduce risk") is part of what is rewarded."""
    from workbench.cue_audit.meaning import references

    refs = references(question, [])
    assert any(kept in r for r in refs) and not any(foil in r for r in refs), refs
    inside = references("Does the response see that automation can amplify rather than reduce risk?", [])
    assert any("amplify rather than reduce risk" in r for r in inside)
