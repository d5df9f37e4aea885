"""Probes that cannot confirm themselves (issue 25 item 3): the classifier is another model than the probed
one (the judge model, or a setting), with a warning when it is not; an identified event that restates the
case counts as not identified; the record keeps both sides."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import numpy as np
import pytest

from store.probes import probes_for_case
from tests.probes.conftest import CASES, scripted_model
from workbench.cases.probe_paraphrase import PARAPHRASE_THRESHOLD, closest_case_text
from workbench.cases.probes import run_probe
from workbench.gateway import ModelSettings, build_gateway
from workbench.gateway.settings import load_settings, save_settings
from workbench.metrics.embeddings import Embedder, InMemoryEmbeddingCache

FIXTURE = Path(__file__).parents[1] / "fixtures" / "real_replies" / "probe_restates_case_title.json"


class BagOfWords(Embedder):
    """A fake embedder: hashed word counts. Restating the same words scores ~1, other words ~0."""

    def __init__(self):
        super().__init__("fake-bag-of-words", cache=InMemoryEmbeddingCache())

    def _encode(self, texts):
        out = np.zeros((len(texts), 256), dtype=np.float32)
        for i, t in enumerate(texts):
            for w in re.findall(r"[a-z0-9]+", t.lower()):
                out[i, int(hashlib.sha256(w.encode()).hexdigest()[:6], 16) % 256] += 1
        return out


@pytest.fixture
def remote(loopback_server):
    return ModelSettings(model="openai/probe-target", api_base=loopback_server.url, timeout=5.0, temperature=0.0)


def classifier_replies(identified: str, verdict: str = "recognized"):
    def raw(case_id):
        return json.dumps({"verdict": verdict, "identified_event": identified, "reason": "it names the event"})
    return {case_id: raw(case_id) for case_id in CASES}


async def test_without_another_model_the_probed_model_classifies_and_a_warning_says_so(db, library,
                                                                                     loopback_server, remote):
    loopback_server.responder = scripted_model({"quarry-loan": "not_recognized"})
    result = await run_probe(db, build_gateway(db, library.db), "quarry-loan", remote, embedder=BagOfWords())
    assert result.classifier_model == "openai/probe-target"
    assert "the classifier is the probed model itself" in result.classifier_warning
    assert [b["model"] for b in loopback_server.requests] == ["probe-target", "probe-target"]
    [row] = probes_for_case(db, "quarry-loan")
    assert "probed model itself" in json.loads(row["classification"])["warning"]


async def test_the_judge_model_classifies_by_default_when_it_is_another_model(db, library, loopback_server, remote):
    settings = load_settings(db)
    settings.roles["judge"] = ModelSettings(model="openai/judge-model", api_base=loopback_server.url, temperature=0.3)
    save_settings(db, settings)
    loopback_server.responder = scripted_model({"quarry-loan": "not_recognized"})
    result = await run_probe(db, build_gateway(db, library.db), "quarry-loan", remote, embedder=BagOfWords())
    assert result.classifier_model == "openai/judge-model" and result.classifier_warning is None
    probe_req, classify_req = loopback_server.requests
    assert probe_req["model"] == "probe-target" and classify_req["model"] == "judge-model"
    assert classify_req["temperature"] == 0.0


async def test_an_identified_event_restating_the_case_is_not_an_identification(db, library, loopback_server, remote):
    title = CASES["ferry-timetable"][0]
    answer = f"Yes: this is the {title.lower()}, where a ferry operator cut its winter timetable."
    loopback_server.responder = scripted_model({}, answers={"ferry-timetable": answer},
                                               raw=classifier_replies(f"{title}."))
    result = await run_probe(db, build_gateway(db, library.db), "ferry-timetable", remote, embedder=BagOfWords())
    assert result.verdict == "not_recognized" and not result.flagged
    assert result.classifier_verdict == "recognized"
    assert result.paraphrase["restates"] and result.paraphrase["of"] == "title"
    assert result.paraphrase["similarity"] >= PARAPHRASE_THRESHOLD and "restates the case's title" in result.reason
    [row] = probes_for_case(db, "ferry-timetable")
    side = json.loads(row["classification"])
    # both answers kept: the probed model's, and the classifier's with its own verdict
    assert row["answer"] == answer and row["verdict"] == "not_recognized"
    assert side["verdict"] == "recognized" and side["identified_event"] == f"{title}." and side["raw"]
    assert side["model"] == "openai/probe-target" and side["paraphrase"]["restates"]


async def test_a_real_event_named_stays_recognized(db, library, loopback_server, remote):
    loopback_server.responder = scripted_model({}, answers={"ferry-timetable": "The 2018 Orkney route tender."},
                                               raw=classifier_replies("the 2018 Orkney route tender"))
    result = await run_probe(db, build_gateway(db, library.db), "ferry-timetable", remote, embedder=BagOfWords())
    assert result.verdict == "recognized" and result.flagged
    assert result.paraphrase is not None and not result.paraphrase["restates"]


def test_the_real_reply_restating_the_title_is_a_paraphrase_under_minilm():
    """The issue's reply, with the bundled MiniLM and the documented threshold; a named real event is not."""
    from workbench.cases import Case

    doc = json.loads(FIXTURE.read_text(encoding="utf-8"))
    identified = json.loads(doc["classifier_reply"])["identified_event"]
    case = Case.from_dict({"id": doc["case_id"], "title": doc["case_title"], "scenario": (
        "A mid-size SaaS company whose revenue comes mostly from small and mid-size business customers "
        "considers building an enterprise sales motion: a sales team, security and compliance work, "
        "enterprise features and custom contracts.")})
    embedder = Embedder()
    restated = closest_case_text(identified, case, embedder)
    assert restated.restates and restated.of == "title" and restated.similarity > 0.99
    reworded = closest_case_text("A SaaS company shifting from SMB customers to enterprise sales", case, embedder)
    assert reworded.restates
    named = closest_case_text("Atlassian's decision to add an enterprise sales team in 2018", case, embedder)
    assert not named.restates and named.similarity < PARAPHRASE_THRESHOLD


def test_batch_probe_names_its_classifier_and_warns_when_it_is_the_probed_model(library, loopback_server, capsys):
    from workbench.cli.main import main

    loopback_server.responder = scripted_model({"quarry-loan": "not_recognized"})
    base = ["--batch", "--db", str(library.db), "--json", "probe", "quarry-loan", "--model", "openai/probe-target",
            "--api-base", loopback_server.url, "--no-file"]
    assert main(base) == 0
    out, err = capsys.readouterr()
    assert "warning: the classifier is the probed model itself" in err
    assert json.loads(out)["probe"]["classifier_warning"]
    assert main(base + ["--classifier", "openai/other-judge", "--classifier-api-base", loopback_server.url]) == 0
    out, err = capsys.readouterr()
    doc = json.loads(out)["probe"]
    assert doc["classifier_model"] == "openai/other-judge" and doc["classifier_warning"] is None
    assert loopback_server.requests[-1]["model"] == "other-judge" and "warning" not in err


def test_the_real_reply_naming_the_scenarios_own_names_is_a_restatement():
    """SmolLM2, classifying its own answer under the verdict schema, "identified" Glenda/Crock as
    "Glenda-Crock": the scenario's own names, far below the embedding threshold. Every word being the case's
    own makes it a restatement; a name the case does not use keeps an identification."""
    from workbench.cases.parse import parse_file

    doc = json.loads((FIXTURE.parent / "probe-names-from-the-scenario.json").read_text(encoding="utf-8"))
    identified = json.loads(doc["classifier_reply"])["identified_event"]
    case = parse_file(Path(__file__).parents[2] / "cases" / "glenda-crock.md").case
    embedder = Embedder()
    named = closest_case_text(identified, case, embedder)
    assert named.similarity < PARAPHRASE_THRESHOLD           # the embedding alone would let it through
    assert named.case_words == ("glenda", "crock") and named.restates
    assert "only repeats the case's own words (glenda, crock)" in named.describe()
    other = closest_case_text("Glenda and the 2019 Christchurch call", case, embedder)
    assert other.case_words == () and not other.restates


async def test_a_probe_whose_event_is_the_scenarios_own_names_is_not_recognized(db, library, loopback_server,
                                                                               remote):
    assert all(w in CASES["quarry-loan"][1] for w in ("regional", "lender", "quarry"))
    loopback_server.responder = scripted_model({}, raw=classifier_replies("The regional lender and the quarry"))
    result = await run_probe(db, build_gateway(db, library.db), "quarry-loan", remote, embedder=BagOfWords())
    assert result.classifier_verdict == "recognized" and result.verdict == "not_recognized"
    assert not result.flagged and "only repeats the case's own words" in result.reason
