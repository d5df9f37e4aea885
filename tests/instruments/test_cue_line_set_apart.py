"""Issue 41: the cue audit's line and labelled examples are set on sentences that are not the audited prompts'.

Every sentence the meaning check was set on (the cue corpus's tuning part, tests/corpus/cues/ without
heldout-*.toml; workbench/cue_audit/exemplars.toml; meaning.PROCEDURE) is compared, case, punctuation and spacing
aside, with every sentence of every prompt the audit reads: all of hindsight's prompt text the freeze hashes
(each template, the report instruction, every named roster's briefs) and each protocol's condition prompts. A
labelled sentence copied from a prompt would let the line be fitted to the very text it judges."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from workbench.cue_audit import meaning
from workbench.cue_audit.terms import sentences
from workbench.instruments.corpus import TUNING, load
from workbench.protocol import registry
from workbench.protocols.hindsight.architectures import prompt_templates

CORPUS = Path(__file__).resolve().parents[1] / "corpus"


def _plain(sentence: str) -> str:
    return " ".join(re.findall(r"[a-z0-9']+", sentence.casefold()))


def audited_sentences() -> dict[str, str]:
    """plain sentence → where it is (a template's name, or protocol/condition/prompt)."""
    texts = dict(prompt_templates())
    for name in registry.names():
        for condition, prompts in (registry.get(name).condition_prompts({}) or {}).items():
            texts.update({f"{name}/{condition}/{prompt}": text for prompt, text, _origin in prompts})
    return {_plain(s): where for where, text in texts.items() for s in sentences(text) if _plain(s)}


def tuning_sentences() -> dict[str, str]:
    """plain sentence → which labelled example it comes from."""
    out = {}
    for entry in load(CORPUS, "cues", TUNING):
        out.update({_plain(s): f"tests/corpus/cues {entry.id}" for s in sentences(entry.text)})
    data = tomllib.loads(meaning.EXEMPLARS.read_text(encoding="utf-8"))
    for kind in ("cue", "neutral"):
        for row in data.get(kind, []):
            out.update({_plain(s): f"exemplars.toml {kind}: {row['text']}" for s in sentences(row["text"])})
    out.update({_plain(s): "meaning.PROCEDURE" for s in meaning.PROCEDURE})
    return out


def test_no_sentence_the_line_was_set_on_is_a_sentence_of_an_audited_prompt():
    audited, tuning = audited_sentences(), tuning_sentences()
    assert len(audited) > 50 and len(tuning) > 200              # the prompts and the sets were both read
    shared = {s: (tuning[s], audited[s]) for s in tuning.keys() & audited.keys()}
    assert shared == {}


def test_the_comparison_finds_a_prompt_sentence_copied_into_a_labelled_set():
    """The check above would see a copy: B2's own question, with its case and spacing changed."""
    audited = audited_sentences()
    b2 = next(s for s in sentences(prompt_templates()["prompts.B2_PROMPT"]) if "risk" in s.casefold())
    assert _plain(f"  {b2.upper()} ") in audited
