"""The faultline protocol's simulator: what the offline `sim` model answers to each of its calls.

Planted (from the study's `[simulation]` table, see workbench/simmodel/params.py):
- stances: on each contested claim the first persona opens for it (+1 or +2) and the second against
  (−1 or −2), drawn per debate item, persona and claim. At the close the gap between them is
  2·(opening SD + `stance_shift[condition]`) plus noise (SD 0.5), rounded and kept in −2…+2, so a
  condition's ΔSD comes out near its planted shift (< 0: the personas converge). Replicates of a
  debate draw their own noise, the opening is the debate's.
- belief adherence: each of a persona's three argument sentences per message restates a node of the
  belief graph its prompt shows with probability `adherence[condition]` (0.6 when not planted, the
  project's choice), else it is a sentence from outside any graph, so BA reads the planted share.
- accuracy: a stance on a verifiable claim (a baseline answer, a persona's closing) matches the claim's
  truth with probability `accuracy[condition]` (0.7 when not planted); self-consistency's five samples
  draw independently, so the majority vote can beat one sample.
- crux recurrence: each crux card asks its contested claim's question, reworded in every repeat (REWORDINGS), with
  probability `crux_recurrence[condition]` (1 when not planted), else a question of that run alone
  (ONE_OFF: unrelated subjects, each used once per debate and condition), so CR reads the planted share.
Replies speak each step's format: persona statements with one `On [claim id] …: … (+1).` line per claim
(latent conditions: PRIVATE: then PUBLIC:), belief graphs, QBAF maps, crux cards that cite the message
ids the claim was argued in, and the extractor's claims and stances, which it reads from the statement
itself (as a model would), so the protocol's own parsers and metrics read everything. Every reply
starts with the SIMULATED banner (and a latent reply's public part too).
"""

from __future__ import annotations

import json
import re

from workbench.simmodel import draws
from workbench.simmodel.label import REPLY_BANNER

DEFAULT_ADHERENCE = 0.6
DEFAULT_ACCURACY = 0.7
SENTENCES_PER_MESSAGE = 3
SUBJECTS = ("Open markets", "Independent regulators", "Peer-reviewed evidence", "Local communities", "New technology",
            "Public budgets", "Technical experts", "Future generations", "Voluntary cooperation", "Large institutions")
PREDICATES = ("deserve more trust than they are usually given.", "adapt more slowly than their critics assume.",
              "should carry the burden of proof before anything changes.",
              "tend to correct their own mistakes over time.", "matter more than the costs of the next few years.")
OFF_GRAPH = ("The details of the proposal decide more than the slogans on either side.",
             "My opponent skipped over the question of who pays.", "History offers examples that cut both ways here.",
             "We should say plainly what would change our minds.", "The numbers quoted so far leave out the transition.",
             "Nobody in this room disputes that the stakes are high.")
ONE_OFF = ("Should cities close their centres to private cars?", "Does homework help children learn?",
           "Should museums return objects taken in colonial times?", "Is a tax on air travel fair to the poor?",
           "Should voting be compulsory?", "Do open-plan offices hurt concentration?",
           "Should zoos keep elephants?", "Is daylight saving time worth keeping?",
           "Should professional athletes be allowed to unionise?", "Do loyalty cards cost shoppers money?",
           "Should libraries lend tools as well as books?", "Is remote surgery safe over public networks?",
           "Should fishing quotas be auctioned?", "Do speed cameras reduce road deaths?",
           "Should public broadcasters carry advertising?", "Is space tourism a waste of fuel?",
           "Should children learn to code before they learn to write essays?",
           "Do tall buildings make cities lonelier?", "Should chess be an Olympic sport?",
           "Is vinyl better than streaming for musicians' income?")
# A recurring crux is asked in other words in each repeat (as models do), so CR's equivalence must find it by
# meaning: the same claim under a different question frame per replicate.
REWORDINGS = ("Is it so that {claim}?", "Does the evidence show that {claim}?", "Would a careful observer agree that "
              "{claim}?", "Is it really true that {claim}?", "Can we take it that {claim}?",
              "Should we accept that {claim}?")
STANCE_WORDS = {-2: "strongly against", -1: "against", 0: "undecided on", 1: "for", 2: "strongly for"}
_CLAIM = re.compile(r"^- \[([^\]]+)\] (.*)$", re.MULTILINE)
_NODE = re.compile(r"^(n\d+) \(credence [\d.]+\): (.*)$", re.MULTILINE)
_STANCE = re.compile(r"^On \[([^\]]+)\][^\n]*\(([+-]?\d)\)\.?$", re.MULTILINE)
_MSG = re.compile(r"^\[([A-Z]-[a-z0-9]+)\] ([^:\n]+): (.*?)(?=^\[[A-Z]-[a-z0-9]+\] |\Z)", re.MULTILINE | re.DOTALL)


def node_claims(persona: str, seed: int) -> list[str]:
    """A persona's belief claims in its own order (50 distinct sentences)."""
    claims = [f"{s} {p}" for s in SUBJECTS for p in PREDICATES]
    draws.rng(seed, "faultline-graph-order", persona).shuffle(claims)
    return claims


def closing_gap(open_a: int, open_b: int, shift: float, z: float) -> int:
    """The gap between the two personas' closing stances: 2·(opening SD + shift) + noise, in 0…4."""
    sd_open = abs(open_a - open_b) / 2
    return int(min(4, max(0, round(2 * (sd_open + shift) + 0.5 * z))))


class FaultlineSimulator:
    def reply(self, request, params: dict, db) -> str:
        meta = request.metadata or {}
        phase = str(meta.get("phase") or "")
        prompt = "\n".join(str(m.get("content") or "") for m in request.messages)
        if phase == "belief_graph":
            return _json(belief_graph(prompt, str(request.agent or ""), params["seed"]))
        if phase == "extraction":
            return _json(extract(request.turn or "", prompt))
        world = World(params, db, request)
        if phase == "qbaf":
            return _json(world.qbaf(prompt))
        if phase == "crux":
            return _json(world.crux_cards(prompt))
        if phase == "answer":
            return f"{REPLY_BANNER}\n{world.answer(request.sample)}"
        if phase in ("opening", "round", "closing"):
            return world.statement(str(request.agent or ""), phase, prompt, request.turn or "")
        return f"{REPLY_BANNER}\nThis step has no simulated reply; this text carries no content."


def belief_graph(prompt: str, persona: str, seed: int) -> dict:
    m = re.search(r"Give exactly (\d+) claims", prompt)
    size = int(m.group(1)) if m else 20
    claims = node_claims(persona, seed)
    nodes = [{"id": f"n{i + 1}", "claim": claims[i % len(claims)] if i < len(claims) else f"{claims[i % len(claims)]} ({i})",
              "credence": round(draws.rng(seed, "credence", persona, i).uniform(0.1, 0.95), 2)} for i in range(size)]
    edges = [{"from": f"n{i}", "to": f"n{i + 1}", "type": "supports" if i % 3 else "attacks"}
             for i in range(1, size, 2)]
    return {"nodes": nodes, "edges": edges}


def extract(turn: str, prompt: str) -> dict:
    """The extractor: a message's argument sentences as its claims, or its stance lines as stances."""
    if turn.startswith("claims:"):
        text = _between(prompt, "Message:\n", "\n\nReply with one JSON object")
        sentences = [ln.strip() for ln in text.splitlines()
                     if ln.strip() and not ln.startswith(("[", "On [", "PRIVATE:", "PUBLIC:"))]
        return {"claims": sentences}
    text = _between(prompt, "Statement:\n", "\n\nReply with one JSON object")
    ids = re.findall(r"^- ([^:\n]+): ", _between(prompt, "Claims:\n", "\n\nStatement:"), re.MULTILINE)
    found = {cid: int(v) for cid, v in _STANCE.findall(text)}
    return {"stances": {cid: found.get(cid) for cid in ids}}


class World:
    """One call's planted context: the study item (topic, pair), the condition, the replicate."""

    def __init__(self, params: dict, db, request):
        meta = request.metadata or {}
        self.params, self.seed = params, params["seed"]
        self.item_id, self.condition = str(meta.get("item") or ""), str(meta.get("condition") or "")
        self.replicate = int(meta.get("replicate") or 0)
        self.payload = _payload(db, request.study_id, self.item_id)
        self.topic = self.payload.get("topic") or {}
        pair = self.payload.get("pair") or {}
        self.personas = [p["id"] for p in pair.get("personas") or []]

    def _p(self, key: str, default: float) -> float:
        return (self.params.get(key) or {}).get(self.condition, default)

    def stance(self, persona: str, claim: str, phase: str) -> int:
        side = self.personas.index(persona) if persona in self.personas else 0
        sign = 1 if side == 0 else -1
        strength = lambda who: 1 + draws.rng(self.seed, "open", self.item_id, who, claim).randrange(2)
        if phase != "closing":
            return sign * strength(persona)
        a, b = strength(self.personas[0]), -strength(self.personas[1]) if len(self.personas) > 1 else -1
        z = draws.normal(self.seed, "close", self.item_id, self.condition, self.replicate, claim)
        gap = closing_gap(a, b, self._p("stance_shift", 0.0), z)
        mid = (a + b) / 2   # where the two meet: around the middle of their opening positions
        hi = int(min(2, max(-2 + gap, round(mid + gap / 2 + 1e-9))))
        return hi if side == 0 else hi - gap

    def verifiable(self, claim: dict, *key) -> int:
        right = draws.rng(self.seed, "accuracy", self.item_id, self.condition, self.replicate, claim["id"], *key
                          ).random() < self._p("accuracy", DEFAULT_ACCURACY)
        return (1 if claim.get("truth") else -1) * (1 if right else -1)

    def stance_lines(self, persona: str, phase: str, *key) -> list[str]:
        lines = []
        for c in self.topic.get("contested") or []:
            v = self.stance(persona, c["id"], phase)
            lines.append(f"On [{c['id']}] {c['claim'].rstrip('.')}: I am {STANCE_WORDS[v]} it ({v:+d}).")
        for c in self.topic.get("verifiable") or []:
            v = self.verifiable(c, persona, *key) if phase == "closing" else 0
            lines.append(f"On [{c['id']}] {c['claim'].rstrip('.')}: I am {STANCE_WORDS[v]} it ({v:+d}).")
        return lines

    def statement(self, persona: str, phase: str, prompt: str, turn: str) -> str:
        nodes = _NODE.findall(prompt)
        adherence = self._p("adherence", DEFAULT_ADHERENCE)
        sentences = []
        for i in range(SENTENCES_PER_MESSAGE):
            r = draws.rng(self.seed, "sentence", self.item_id, self.condition, self.replicate, turn, i)
            if nodes and r.random() < adherence:
                sentences.append(nodes[r.randrange(len(nodes))][1])
            else:
                sentences.append(OFF_GRAPH[r.randrange(len(OFF_GRAPH))])
        public = "\n".join([REPLY_BANNER, *sentences, *self.stance_lines(persona, phase)])
        if "PRIVATE:" in prompt and "PUBLIC:" in prompt:   # the latent condition's two-part reply
            note = f"Beliefs {', '.join(n for n, _ in nodes[:2]) or 'none'} bear on this exchange."
            return f"{REPLY_BANNER}\nPRIVATE: {note}\nPUBLIC: {public}"
        return public

    def answer(self, sample: int) -> str:
        lines = ["The answer, claim by claim:"]
        for c in self.topic.get("contested") or []:
            lines.append(f"On [{c['id']}] {c['claim'].rstrip('.')}: I am {STANCE_WORDS[0]} it (+0).")
        for c in self.topic.get("verifiable") or []:
            v = self.verifiable(c, "answer", sample)
            lines.append(f"On [{c['id']}] {c['claim'].rstrip('.')}: I am {STANCE_WORDS[v]} it ({v:+d}).")
        return "\n".join(lines)

    def qbaf(self, prompt: str) -> dict:
        ids = re.findall(r'"base": \{"([^"]+)": <0-1>, "([^"]+)": <0-1>\}', prompt)
        first, second = ids[0] if ids else (self.personas + ["a", "b"])[:2]
        args, relations = [], []
        for mid, _name, _text in _MSG.findall(prompt):
            if mid.startswith("M-"):
                continue
            own = mid.startswith("A-")
            r = draws.rng(self.seed, "qbaf", self.item_id, self.condition, self.replicate, mid)
            hi, lo = round(r.uniform(0.6, 0.9), 2), round(r.uniform(0.1, 0.4), 2)
            args.append({"id": f"a{len(args) + 1}", "text": f"The argument made in {mid}.", "message": mid,
                         "base": {first: hi if own else lo, second: lo if own else hi}})
        for i in range(1, len(args)):
            relations.append({"from": args[i]["id"], "to": args[i - 1]["id"], "type": "attack"})
        return {"arguments": args[:12], "relations": [r for r in relations
                                                      if int(r["from"][1:]) <= 12 and int(r["to"][1:]) <= 12]}

    def crux_cards(self, prompt: str) -> dict:
        """One card per contested claim, citing every persona message that states a stance on it."""
        messages = [(mid, text) for mid, _name, text in _MSG.findall(prompt) if not mid.startswith("M-")]
        cards = []
        recurs = self._p("crux_recurrence", 1.0)
        for j, c in enumerate((self.topic.get("contested") or [])[:4]):
            cited = [mid for mid, text in messages if f"On [{c['id']}]" in text]
            own = draws.rng(self.seed, "crux", self.item_id, self.condition, self.replicate, c["id"]).random() >= recurs
            claim = f"{c['claim'][0].lower()}{c['claim'][1:].rstrip('.')}"
            question = (ONE_OFF[(self.replicate * 4 + j) % len(ONE_OFF)] if own else
                        REWORDINGS[self.replicate % len(REWORDINGS)].format(claim=claim))
            cards.append({"question": question,
                          "diagnosis": f"They weigh the evidence on {c['claim'].rstrip('.').lower()} differently.",
                          "messages": cited})
        return {"cards": cards or [{"question": "What is the question really about?",
                                    "diagnosis": "No contested claim was given.", "messages": []}]}


def _payload(db, study_id: str | None, item_id: str) -> dict:
    if db is None or not study_id or not item_id:
        return {}
    from store.items import get_item

    row = get_item(db, study_id, item_id)
    return (row or {}).get("payload") or {}


def _between(text: str, start: str, end: str) -> str:
    a = text.find(start)
    if a < 0:
        return ""
    a += len(start)
    b = text.find(end, a)
    return text[a:] if b < 0 else text[a:b]


def _json(data) -> str:
    return f"{REPLY_BANNER}\n{json.dumps(data, ensure_ascii=False)}"


SIMULATOR = FaultlineSimulator()
