"""Faultline test kit: a study in a file store (definition built by the protocol's own section check),
a real gateway, and a scripted model that speaks every faultline format from the request alone."""

from __future__ import annotations

import json
import re

from store import open_store
from tests.support.gateways import test_gateway

TOPIC, PAIR = "nuclear-power", "technologist-and-ethicist"   # persona ids: tech-optimist, precautionary-ethicist


def definition(*, conditions=("plain",), rounds=2, replicates=1, api_base="", model="openai/scripted",
               topics=(TOPIC,), pairs=(PAIR,), extra: dict | None = None) -> dict:
    from workbench.protocols.faultline.section import check_section

    d = {"name": "fl-study", "protocol": "faultline", "conditions": list(conditions), "replicates": replicates,
         "model": {"name": model, "api_base": api_base, "temperature": 0.7, "seed": 7, "max_tokens": 512,
                   "timeout": 20.0}}
    problems = []
    data = {"faultline": {"topics": list(topics), "pairs": list(pairs), "rounds": rounds, **(extra or {})}}
    d["faultline"] = check_section(data, d, lambda k, m: problems.append((k, m)))
    assert not problems, problems
    return d


def make_study(tmp_path, **kw):
    """(db, db_path, study_id, definition): the study row saved and its items loaded."""
    from store.studies import save_study
    from workbench.protocols.faultline import PROTOCOL

    db_path = tmp_path / "store.db"
    db = open_store(db_path)
    d = definition(**kw)
    save_study(db, study_id=d["name"], name=d["name"], protocol="faultline", definition=d, source_text=None,
               cost_ceiling=None)
    PROTOCOL.load_items(db, d["name"], d)
    return db, db_path, d["name"], d


gateway = test_gateway


# --- the scripted model --------------------------------------------------------------------------
STANCE_BY_PERSONA = {  # opening, closing stances on every claim: the optimist for, the ethicist against
    "Technology optimist": (2, 1), "Precautionary ethicist": (-2, -1),
}
TRUE_CLAIMS = {"chernobyl-year"}  # what the scripted answers get right (plants-emit-co2 is false: right too)


def _last_user(body: dict) -> str:
    return next((m["content"] for m in reversed(body["messages"]) if m["role"] == "user"), "")


def _system(body: dict) -> str:
    return next((m["content"] for m in body["messages"] if m["role"] == "system"), "")


def scripted(body: dict) -> str:
    last, sys_text = _last_user(body), _system(body)
    if last.startswith("That reply could not be used"):
        last = body["messages"][0]["content"]
    if "Write the belief graph" in last:
        size = int(re.search(r"exactly (\d+) claims", last).group(1))
        name = re.search(r"Persona: (.+)", last).group(1)
        nodes = [{"id": f"n{i}", "claim": f"{name} holds that nuclear power claim number {i} is true.",
                  "credence": round(0.5 + (i % 5) / 10, 2)} for i in range(1, size + 1)]
        edges = [{"from": "n1", "to": "n2", "type": "supports"}, {"from": "n3", "to": "n2", "type": "attacks"}]
        return json.dumps({"nodes": nodes, "edges": edges})
    if "Map its arguments" in last:
        ids = re.search(r'"base": \{"([^"]+)": <0-1>, "([^"]+)": <0-1>\}', last).groups()
        return json.dumps({"arguments": [
            {"id": "a1", "text": "New reactors cut emissions.", "message": "A-r1", "base": {ids[0]: 0.9, ids[1]: 0.3}},
            {"id": "a2", "text": "Waste stays dangerous for millennia.", "message": "B-r1",
             "base": {ids[0]: 0.4, ids[1]: 0.8}}],
            "relations": [{"from": "a2", "to": "a1", "type": "attack"}]})
    if "Write crux cards" in last:
        return "Here are the cards:\n```json\n" + json.dumps({"cards": [
            {"question": "Is nuclear waste storage a solved problem?",
             "diagnosis": "They weigh long-lived waste risk differently.", "messages": ["A-r1", "B-r1"]},
            {"question": "How fast must electricity emissions fall this decade?",
             "diagnosis": "They disagree on the urgency of climate targets.", "messages": ["A-open"]}]}) + "\n```"
    if "List every claim" in last:
        text = last.split("Message:\n", 1)[1].split("\n\nReply with", 1)[0]
        return json.dumps({"claims": [s.strip() + "." for s in text.split(".") if s.strip()]})
    if "give the stance the statement takes" in last:
        ids = re.findall(r"^- ([a-z0-9-]+): ", last, re.M)
        speaker = re.search(r"a statement by (.+?)\. For each", last).group(1)
        if speaker == "the answer":  # baselines: right on chernobyl-year, wrong on plants-emit-co2
            return json.dumps({"stances": {i: (2 if i in TRUE_CLAIMS or i != "plants-emit-co2" else 1) for i in ids}})
        closing = "closing" in last.split("Statement:\n", 1)[1][:60]
        v = STANCE_BY_PERSONA[speaker][1 if closing else 0]
        st = {i: v for i in ids}
        st["chernobyl-year"], st["plants-emit-co2"] = 2, -2   # both personas right on both verifiable claims
        return json.dumps({"stances": st})
    if "Answer the question, and say for each claim" in last:
        return "Nuclear power helps. The Chernobyl accident was in 1986. Reactors emit carbon dioxide."
    name = re.match(r"You are (.+?), taking part", sys_text)
    name = name.group(1) if name else "someone"
    ask = last.rsplit("\n\n", 1)[-1]   # the instruction closes the message (the transcript comes before it)
    rnd = re.match(r"Round (\d+) of", ask)
    phase = ("opening" if "opening statement" in ask else "closing" if "closing statement" in ask else
             f"round {rnd.group(1)}" if rnd else "turn")
    words = {"Technology optimist": "Reactors are clean and safe. Modern designs cut emissions fast",
             "Precautionary ethicist": "Waste lasts for millennia. Accidents harm people who never consented"}
    speech = f"{phase} statement: {words.get(name, 'I have a view')}."
    node = re.search(r"n1 \(credence [0-9.]+\): (.+)", sys_text)
    if node:  # a persona with its graph in context repeats its first belief word for word (BA: grounded)
        speech += " " + node.group(1)
    if "PUBLIC:" in sys_text:  # latent
        return f"PRIVATE: my belief n1 bears on this ({phase}).\nPUBLIC: {speech}"
    return speech
