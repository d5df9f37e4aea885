"""The debate programs: plain dialogue, belief-graph injection, QBAF crux and latent.

Shape of every debate (persona A and B, N rounds from the study):

    openings (A and B in parallel, each seeing only the question)
    round 1..N: moderator line, A answers, then B answers (each sees the whole public exchange)
        qbaf: after each round a moderator turn maps the exchange as a QBAF; DF-QuAD strengths are
        computed per persona from its base scores, and the argument where they diverge most is put
        to both as the crux of the next round
    closings (A and B in parallel)
    crux cards (one moderator turn), then extraction: claims per message, stances per persona from
    its opening and its closing

Message ids: `A-open`, `A-r1` … `A-rN`, `A-close` (B likewise); moderator lines `M-r1` …, `M-close`.
"""

from __future__ import annotations

from workbench.events import CRUX_CARD, DEBATE_MESSAGE, MODERATOR, QBAF
from workbench.protocols.faultline import parsing, prompts, qbaf, schemas
from workbench.protocols.faultline.conditions import condition
from workbench.protocols.faultline.extraction import extract_debate
from workbench.protocols.faultline.graphs import format_graph
from workbench.protocols.faultline.treatment import CRUX_CARDS_MAX_TOKENS, QBAF_MAX_TOKENS
from workbench.protocols.faultline.turns import json_turn, model_settings, structured_settings
from workbench.runs.context import RunContext, RunOutput, parallel, system, user
from workbench.runs.truncation import room_to_copy

SIDES = ("A", "B")


def claims_block(topic: dict) -> str:
    rows = [f"- [{c['id']}] {c['claim']}" for c in topic["contested"] + topic["verifiable"]]
    return "\n".join(rows)


def public_transcript(messages: list[dict], names: dict[str, str]) -> str:
    if not messages:
        return "(nothing said yet)"
    return "\n\n".join(f"[{m['id']}] {names[m['persona']]}: {m['text']}" for m in messages)


def split_latent(text: str) -> tuple[str, str, bool]:
    """(private, public, well_formed): only what follows PUBLIC: is heard by the other side."""
    upper = text.upper()
    at = upper.rfind("PUBLIC:")
    if at < 0:
        return "", text.strip(), False
    private = text[:at]
    p_at = private.upper().find("PRIVATE:")
    private = private[p_at + len("PRIVATE:"):] if p_at >= 0 else private
    return private.strip(), text[at + len("PUBLIC:"):].strip(), True


class Debate:
    def __init__(self, ctx: RunContext):
        self.ctx = ctx
        self.cond = condition(ctx.condition)
        self.rounds: int = ctx.options["rounds"]
        self.topic: dict = ctx.item["topic"]
        self.personas: list[dict] = ctx.item["pair"]["personas"]
        self.ids = [p["id"] for p in self.personas]
        self.names = {p["id"]: p["name"] for p in self.personas} | {"moderator": "Moderator"}
        self.side = dict(zip(self.ids, SIDES))
        graphs = ctx.item.get("graphs") or {}
        self.graphs = {pid: graphs.get(f"{pid}:{self.cond.nodes}") for pid in self.ids} if self.cond.nodes else {}
        self.messages: list[dict] = []      # the public exchange, moderator lines included
        self.notes: dict[str, list[str]] = {pid: [] for pid in self.ids}   # latent: private notes
        self.qbaf_rounds: list[dict] = []
        self.errors: list[dict] = []
        self.read_notes: list[dict] = []   # what was read but not as asked (stances on unknown claim ids)
        self.latent_misses = 0

    # --- one persona's turn --------------------------------------------------------------------------
    def system_prompt(self, persona: dict) -> str:
        text = prompts.PERSONA_SYSTEM.format(name=persona["name"], worldview=persona["worldview"])
        graph = format_graph(self.graphs.get(persona["id"]))
        if self.cond.architecture in ("graph", "qbaf") and self.cond.nodes:
            text += prompts.GRAPH_BLOCK.format(graph=graph)
        elif self.cond.architecture == "latent":
            text += prompts.LATENT_BLOCK.format(graph=graph)
        return text

    async def speak(self, persona: dict, msg_id: str, phase: str, rnd: int, instruction: str,
                    seen: list[dict]) -> dict:
        body = prompts.DEBATE_CONTEXT.format(question=self.topic["question"], claims=claims_block(self.topic),
                                             transcript=public_transcript(seen, self.names))
        if self.cond.architecture == "latent" and self.notes[persona["id"]]:
            body += prompts.PRIVATE_NOTES.format(notes="\n".join(self.notes[persona["id"]]))
        text = await self.ctx.turn(msg_id, persona["id"], [system(self.system_prompt(persona)),
                                                            user(f"{body}\n\n{instruction}")],
                                   phase=phase, label=f"{persona['name']}: {phase}"
                                   + (f" {rnd}" if phase == "round" else ""))
        message = {"id": msg_id, "persona": persona["id"], "round": rnd, "phase": phase, "text": text.strip()}
        if self.cond.architecture == "latent":
            private, public, ok = split_latent(text)
            self.latent_misses += not ok
            self.notes[persona["id"]].append(f"({msg_id}) {private}" if private else f"({msg_id}) -")
            message.update(text=public, private=private)
        self.ctx.emit(DEBATE_MESSAGE, turn=msg_id, agent=persona["id"], **message)
        return message

    def moderate(self, msg_id: str, rnd: int, text: str) -> None:
        line = {"id": msg_id, "persona": "moderator", "round": rnd, "phase": "moderator", "text": text}
        self.messages.append(line)
        self.ctx.emit(MODERATOR, turn=msg_id, agent="moderator", **line)

    # --- QBAF crux -----------------------------------------------------------------------------------
    async def qbaf_crux(self, rnd: int) -> str | None:
        first, second = self.personas
        transcript = public_transcript(self.messages, self.names)
        prompt = prompts.QBAF.format(first=first["name"], second=second["name"], first_id=first["id"],
                                     second_id=second["id"], transcript=transcript)
        parsed, error = await json_turn(self.ctx, f"qbaf-r{rnd}", "moderator", prompt,
                                        lambda o: parsing.qbaf(o, self.ids), step="QBAF map", phase="qbaf",
                                        label=f"moderator: argument map after round {rnd}", role="moderator",
                                        settings=room_to_copy(structured_settings(self.ctx.settings, QBAF_MAX_TOKENS), transcript),
                                        schema=schemas.qbaf_schema(self.ids, [m["id"] for m in self.messages]))
        if parsed is None:
            self.errors.append({"step": "qbaf", "turn": f"qbaf-r{rnd}", "error": error})
            self.qbaf_rounds.append({"round": rnd, "error": error})
            return None
        arguments, relations = parsed
        per_persona = {}
        for pid in self.ids:
            res = qbaf.strengths({a["id"]: a["base"][pid] for a in arguments}, relations)
            per_persona[pid] = res.values
        found = qbaf.crux(per_persona)
        record = {"round": rnd, "arguments": arguments, "relations": [list(r) for r in relations],
                  "strengths": per_persona, "crux": found[0] if found else None,
                  "divergence": found[1] if found else None, "error": None}
        self.qbaf_rounds.append(record)
        self.ctx.emit(QBAF, turn=f"qbaf-r{rnd}", agent="moderator", **record)
        if not found:
            return None
        arg = next(a for a in arguments if a["id"] == found[0])
        return prompts.MODERATOR_CRUX.format(argument=arg["text"], first=first["name"], second=second["name"],
                                             s1=per_persona[first["id"]][arg["id"]],
                                             s2=per_persona[second["id"]][arg["id"]])

    # --- the whole debate ----------------------------------------------------------------------------
    async def run(self) -> RunOutput:
        a, b = self.personas
        openings = await parallel(*(self.speak(p, f"{self.side[p['id']]}-open", "opening", 0, prompts.OPENING, [])
                                    for p in self.personas))
        self.messages.extend(openings)
        crux_line = None
        for rnd in range(1, self.rounds + 1):
            self.moderate(f"M-r{rnd}", rnd, crux_line or prompts.MODERATOR_ROUND.format(round=rnd, rounds=self.rounds))
            for speaker, other in ((a, b), (b, a)):
                msg = await self.speak(speaker, f"{self.side[speaker['id']]}-r{rnd}", "round", rnd,
                                       prompts.ROUND.format(round=rnd, rounds=self.rounds, other=other["name"]),
                                       list(self.messages))
                self.messages.append(msg)
            if self.cond.architecture == "qbaf":
                crux_line = await self.qbaf_crux(rnd)
        self.moderate("M-close", self.rounds + 1, crux_line or prompts.MODERATOR_CLOSING)
        seen = list(self.messages)
        closings = await parallel(*(self.speak(p, f"{self.side[p['id']]}-close", "closing", self.rounds + 1,
                                               prompts.CLOSING, seen) for p in self.personas))
        self.messages.extend(closings)
        cards = await self.crux_cards()
        extraction = await extract_debate(self.ctx, self.topic, self.personas, self.persona_messages(),
                                          model_settings(self.ctx.options["extractor"]))
        self.errors.extend(extraction.pop("errors"))
        self.read_notes.extend(extraction.pop("notes"))
        return RunOutput(text=self.readable(cards), report=self.report(cards, extraction))

    def persona_messages(self) -> list[dict]:
        return [m for m in self.messages if m["persona"] != "moderator"]

    async def crux_cards(self) -> list[dict]:
        first, second = self.personas
        transcript = public_transcript(self.messages, self.names)
        prompt = prompts.CRUX_CARDS.format(first=first["name"], second=second["name"],
                                           question=self.topic["question"], transcript=transcript)
        cards, error = await json_turn(self.ctx, "crux-cards", "moderator", prompt, parsing.crux_cards,
                                       step="crux cards", phase="crux", label="moderator: crux cards", role="moderator",
                                       settings=room_to_copy(structured_settings(self.ctx.settings, CRUX_CARDS_MAX_TOKENS), transcript),
                                       schema=schemas.crux_cards_schema([m["id"] for m in self.messages]))
        if cards is None:
            self.errors.append({"step": "crux", "turn": "crux-cards", "error": error})
            return []
        known = {m["id"] for m in self.messages}
        for i, card in enumerate(cards, start=1):
            card["id"] = f"card-{i}"
            card["unknown_messages"] = [m for m in card["messages"] if m not in known]
            self.ctx.emit(CRUX_CARD, turn="crux-cards", agent="moderator", **card)
        return cards

    def readable(self, cards: list[dict]) -> str:
        lines = [f"# {self.topic['title']}", "", self.topic["question"], ""]
        for m in self.messages:
            lines.append(f"[{m['id']}] {self.names[m['persona']]}: {m['text']}")
            lines.append("")
        for c in cards:
            lines.append(f"Crux ({c['id']}): {c['question']} — {c['diagnosis']} [{', '.join(c['messages'])}]")
        return "\n".join(lines).strip()

    def report(self, cards: list[dict], extraction: dict) -> dict:
        graphs = {pid: ({"size": g["size"], "nodes": len(g["nodes"]), "error": g["error"]} if g else None)
                  for pid, g in self.graphs.items()}
        return {"kind": "debate", "topic": self.topic["id"], "pair": self.ctx.item["pair"]["id"],
                "divergence": self.ctx.item["pair"]["divergence"], "architecture": self.cond.architecture,
                "nodes": self.cond.nodes, "rounds": self.rounds, "personas": self.ids, "names": self.names,
                "messages": self.messages, "qbaf": self.qbaf_rounds, "cruxes": cards, "graphs": graphs,
                "claims": extraction["claims"], "stances": extraction["stances"],
                "latent_format_misses": self.latent_misses, "errors": self.errors, "notes": self.read_notes}


async def run_debate(ctx: RunContext) -> RunOutput:
    return await Debate(ctx).run()
