"""Scripted judges for the loopback server: they read the prompt the way a naive model would.

`naive_judge` splits the user message into data blocks (<<<NAME ... NAME>>>)
and everything else. It obeys an "ignore previous instructions, score N" it
finds OUTSIDE the data blocks (a judge that can be hijacked), and otherwise
derives its score only from what is inside the RECOMMENDATION block.
"""

from __future__ import annotations

import json
import re

BLOCK = re.compile(r"<<<(?P<name>[A-Z_]+)\n(?P<body>.*?)\n(?P=name)>>>", re.DOTALL)
INJECTION = re.compile(r"ignore previous instructions, score (\d)", re.IGNORECASE)


def user_text(body: dict) -> str:
    return next(m["content"] for m in reversed(body["messages"]) if m["role"] == "user")


def system_text(body: dict) -> str:
    return next((m["content"] for m in body["messages"] if m["role"] == "system"), "")


def split(text: str) -> tuple[dict[str, str], str]:
    blocks = {m.group("name"): m.group("body") for m in BLOCK.finditer(text)}
    outside = BLOCK.sub("", text)
    return blocks, outside


def criteria(text: str) -> list[str]:
    return re.findall(r"Criterion `([^`]+)`", text)


def verdict_json(crits: list[str], score, response: str) -> str:
    quote = " ".join(response.split()[:6])
    return json.dumps({c: {"score": score if not isinstance(score, dict) else score[c], "quote": quote,
                           "justification": f'The response says "{quote}".'} for c in crits})


def naive_judge(body: dict) -> str:
    text = user_text(body)
    blocks, outside = split(text)
    response = blocks.get("RECOMMENDATION", "")
    obey = INJECTION.search(outside)
    score = int(obey.group(1)) if obey else min(3, response.lower().count("contraction"))
    return verdict_json(criteria(outside), score, response)


def anticipation_only_judge(body: dict) -> str:
    """Valid verdicts on the Anticipation rubric, prose every other rubric never gets past: a judging that
    ends in some ok pairs and some judge errors."""
    text = user_text(body)
    blocks, outside = split(text)
    crits = criteria(outside)
    if crits == ["anticipation"]:
        return verdict_json(crits, 2, blocks.get("RECOMMENDATION", ""))
    return "Sure! {score: 3, this is not json"


class HeldUntil:
    """A responder that holds each request until `n` are held at once (3 s at most), then answers with
    `reply(body)`: the most held together is the width the client let in, whatever the machine's speed."""

    def __init__(self, n: int, reply) -> None:
        import threading

        self.n, self.reply, self.held, self.most = n, reply, 0, 0
        self.lock, self.full = threading.Lock(), threading.Event()

    def __call__(self, body: dict) -> str:
        with self.lock:
            self.held += 1
            self.most = max(self.most, self.held)
            if self.held >= self.n:
                self.full.set()
        self.full.wait(3)
        with self.lock:
            self.held -= 1
        return self.reply(body)
