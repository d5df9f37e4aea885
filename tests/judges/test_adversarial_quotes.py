"""The adversarial pipeline checks every stage's quotes, not only the Judge's (issue 25 item 7): the Critic's evidence
and the Defender's evidence must be copied from the RECOMMENDATION. A quote found elsewhere refuses the reply (counted
as `refused`), and the stage gets one corrective retry that says why and where the quote came from; refused again,
the pair is a judge error. The prompts are the pipeline's own, unchanged (seed 003 gives none)."""

from __future__ import annotations

import json

from tests.blinding.study_fixture import make_study
from tests.judges.scripted import criteria, split, system_text, user_text, verdict_json
from tests.support import real_replies
from workbench.judges.adversarial import _critic_messages, _defender_messages, _validate_critic
from workbench.judges.calls import JudgeItem
from workbench.judges.run import judge_study
from workbench.structured.counts import parse_counts
from workbench.structured.reading import REFUSED, UNPARSED, read

RESPONSE = ("RECOMMENDATION: Expand in stages with demand gates.\nREASONING: A demand-side contraction would "
            "strand the berths.\nRISKS:\n- Contraction.\nCONFIDENCE: medium.")


def stage_of(body: dict) -> str:
    system = system_text(body)
    return next(s for s in ("Critic", "Defender", "MetaJudge", "Judge") if f"You are the {s}" in system)


def rubric_anchor(outside: str) -> str:
    """A score description of the rubric the stage was shown (what a small model copies)."""
    return next(line.split(":", 1)[1].strip() for line in outside.splitlines() if line.strip().startswith("2 = "))


class Panel:
    """Scripted stages. `critic` and `defender` say where their evidence comes from on the first ask and on a
    retry: "response", "rubric" (a score description) or "nowhere"; one value serves both."""

    def __init__(self, critic=("response",), defender=("response",), concede_without_evidence=False):
        self.plan = {"Critic": list(critic), "Defender": list(defender)}
        self.concede = concede_without_evidence
        self.calls: dict[str, int] = {}

    def evidence(self, stage: str, outside: str) -> str:
        plan = self.plan[stage]
        where = plan[min(1 if "could not be used" in outside else 0, len(plan) - 1)]
        return {"response": "Expand in stages", "rubric": rubric_anchor(outside),
                "nowhere": "the berths were sold in 2019"}[where]

    def __call__(self, body: dict) -> str:
        stage = stage_of(body)
        self.calls[stage] = self.calls.get(stage, 0) + 1
        blocks, outside = split(user_text(body))
        crit = criteria(outside)[0]
        if stage == "Critic":
            ev = self.evidence(stage, outside)
            return json.dumps({"weaknesses": [{"id": f"W{i}", "criterion": crit, "severity": "minor",
                                               "issue": "could be sharper", "evidence": ev} for i in (1, 2, 3)]})
        if stage == "Defender":
            if self.concede:
                return json.dumps({"rebuttals": [{"id": f"W{i}", "verdict": "valid", "argument": "fair point",
                                                  "evidence": ""} for i in (1, 2, 3)]})
            ev = self.evidence(stage, outside)
            return json.dumps({"rebuttals": [{"id": f"W{i}", "verdict": "invalid", "argument": "it is sharp",
                                              "evidence": ev} for i in (1, 2, 3)]})
        if stage == "Judge":
            return verdict_json([crit], 2, blocks["RECOMMENDATION"])
        return json.dumps({"sycophantic": False, "reason": "the scores follow the evidence", "retry": False})


def study(db, url: str) -> str:
    return make_study(db, conditions=["B1"], texts={"B1": RESPONSE}, pilot_items=False,
                      judges=[{"name": "panel", "model": "openai/panel", "api_base": url, "temperature": 0.0,
                               "pipeline": "adversarial", "runs": 1}])


def asks(server, stage: str) -> list[str]:
    return [user_text(b) for b in server.requests if stage_of(b) == stage]


def verdicts(db, sid) -> dict:
    from store import verdicts as verdict_rows

    return {r["criterion"]: r for r in verdict_rows.verdict_rows(db, sid)}


def counts(db, sid) -> dict[str, dict]:
    return {c["step"]: c for c in parse_counts(db, sid)}


async def test_a_critic_quoting_the_rubric_is_refused_and_told_why_once(store, loopback_server):
    db, gateway = store
    panel = Panel(critic=("rubric", "response"))
    loopback_server.responder = panel
    sid = study(db, loopback_server.url)
    report = await judge_study(db, gateway, sid)
    pairs = 2                                               # one item, two rubrics
    assert report.judges[0].ok == pairs and report.judges[0].judge_errors == 0
    critic = asks(loopback_server, "Critic")
    retried = [a for a in critic if "could not be used" in a]
    assert len(critic) == 2 * pairs and len(retried) == pairs        # one corrective retry per pair
    for text in retried:
        assert ("Your previous reply could not be used: weakness W1: the evidence must be copied from the "
                "RECOMMENDATION (the response);") in text
        assert "it is text of the rubric, not of the response" in text
    run = verdicts(db, sid)["anticipation"]["detail"]["runs"][0]
    assert run["quote_retries"] == 1 and run["retries"] == 1
    assert [w["evidence"] for w in run["critic"]] == ["Expand in stages"] * 3
    c = counts(db, sid)["adversarial critic"]
    assert (c["parsed"], c["refused"], c["unparsed"]) == (pairs, pairs, 0)


async def test_a_defender_quoting_nothing_twice_is_a_judge_error_after_one_corrective_retry(store, loopback_server):
    db, gateway = store
    panel = Panel(defender=("nowhere",))
    loopback_server.responder = panel
    sid = study(db, loopback_server.url)
    report = await judge_study(db, gateway, sid)
    assert report.judges[0].judge_errors == 2 and report.judges[0].ok == 0
    assert panel.calls["Defender"] == 2 * 2                # two asks per pair, not the three an unparsed reply gets
    assert "Judge" not in panel.calls                      # the pipeline stops at the Defender
    row = verdicts(db, sid)["anticipation"]
    assert row["status"] == "judge_error"
    reasons = row["detail"]["reasons"]
    assert len(reasons) == 2 and all(r.startswith("rebuttal W1: the evidence must be copied from the RECOMMENDATION")
                                     and "'the berths were sold in 2019' was not found there" in r for r in reasons)
    c = counts(db, sid)["adversarial defender"]
    assert (c["parsed"], c["refused"]) == (0, 4)


async def test_a_concession_may_quote_nothing(store, loopback_server):
    db, gateway = store
    loopback_server.responder = Panel(concede_without_evidence=True)
    sid = study(db, loopback_server.url)
    report = await judge_study(db, gateway, sid)
    assert report.judges[0].ok == 2
    run = verdicts(db, sid)["anticipation"]["detail"]["runs"][0]
    assert [r["verdict"] for r in run["defender"]] == ["valid"] * 3 and run["quote_retries"] == 0


def test_the_critic_and_defender_prompts_are_the_pipelines_own():
    """The check adds no wording to the stages' prompts: a first ask reads as before, a retry adds only the
    reason, in the pipeline's usual retry sentence."""
    from tests.blinding.study_fixture import ANTICIPATION
    from workbench.rubrics import parse_rubric

    rubric = parse_rubric(ANTICIPATION)
    item = JudgeItem("i", "A port plans new berths.", None, RESPONSE)
    critic = _critic_messages(item, rubric, [], None)[1]["content"]
    assert critic.endswith('"evidence": "<text quoted from the RECOMMENDATION>"}]}')
    weak = [{"id": "W1", "criterion": "anticipation", "severity": "minor", "issue": "x", "evidence": "y"}]
    retry = _defender_messages(item, rubric, weak, [], "rebuttal W1: why")[1]["content"]
    assert retry.endswith("Your previous reply could not be used: rebuttal W1: why. Reply with the JSON object only.")


def test_a_real_critic_reply_without_issues_is_unparsed_not_refused():
    """SmolLM2's real Critic reply (captured): placeholders copied, no issue, no evidence. It does not parse, so it
    gets the ordinary retries; the quote check applies to replies that parse."""
    from tests.blinding.study_fixture import ANTICIPATION
    from workbench.rubrics import parse_rubric

    d = real_replies.load("adversarial-critic-no-evidence")
    assert d["provenance"].startswith("captured") and "SmolLM2-135M-Instruct" in d["model"]
    rubric = parse_rubric(ANTICIPATION)
    reading = read(lambda t: _validate_critic(t, RESPONSE, {"rubric": ""}), d["content"])
    assert reading.outcome == UNPARSED and reading.detail == "weakness 1 needs at least an issue"
    # the same weaknesses with an issue and evidence copied from the prompt's placeholder are refused instead
    obj = json.loads(d["content"])
    for w in obj["weaknesses"]:
        w.update(issue=w["criterion"], evidence="<text quoted from the RECOMMENDATION>")
    item = JudgeItem("i", "A port plans new berths.", None, RESPONSE)
    prompt = _critic_messages(item, rubric, [], None)[1]["content"]
    refused = read(lambda t: _validate_critic(t, RESPONSE, {"prompt": prompt}), json.dumps(obj))
    assert refused.outcome == REFUSED and refused.detail.startswith("weakness W1: the evidence must be copied")
    assert refused.detail.endswith("it is text of the prompt, not of the response")


async def test_a_real_critic_reply_served_to_the_pipeline_is_retried_as_unparsed(store, loopback_server):
    db, gateway = store
    real = real_replies.reply("adversarial-critic-no-evidence")
    loopback_server.queue(real)
    loopback_server.responder = Panel()
    sid = study(db, loopback_server.url)
    await judge_study(db, gateway, sid)
    c = counts(db, sid)["adversarial critic"]
    assert c["unparsed"] == 1 and c["refused"] == 0
    retried = [a for a in asks(loopback_server, "Critic") if "could not be used" in a]
    assert len(retried) == 1
    assert "Your previous reply could not be used: weakness 1 needs at least an issue." in retried[0]
