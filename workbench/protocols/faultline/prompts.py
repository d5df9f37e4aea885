"""Every prompt the faultline protocol sends. Seed 002 gives none: all are the project's own (README),
and all are pinned by the study's freeze (`TEMPLATES`)."""

from __future__ import annotations

PERSONA_SYSTEM = (
    "You are {name}, taking part in a structured debate.\n"
    "Your worldview: {worldview}\n"
    "Argue from this worldview in your own voice. Be concrete, answer the other side's points, "
    "and change your mind only when an argument actually persuades you.")

GRAPH_BLOCK = (
    "\n\nYour beliefs, as a graph of claims with your credence (0-1) in each, and how they bear on "
    "each other. Reason from them:\n{graph}")

LATENT_BLOCK = (
    "\n\nYou also hold the beliefs below privately:\n{graph}\n"
    "Each time you speak, first write PRIVATE: followed by a short note to yourself on which beliefs "
    "bear on the exchange and how your credences move; then write PUBLIC: followed by what you say. "
    "Only the PUBLIC part is heard by the others.")

DEBATE_CONTEXT = (
    "Debate question: {question}\n\n"
    "Claims on the table:\n{claims}\n\n"
    "The debate so far:\n{transcript}")

OPENING = "Give your opening statement: your position on the question and on the claims. At most 150 words."
ROUND = "Round {round} of {rounds}. Answer {other}'s last message and press your case. At most 120 words."
CLOSING = ("Give your closing statement: where you now stand on each claim on the table, and why. "
           "At most 150 words.")
PRIVATE_NOTES = "\n\nYour private notes so far:\n{notes}"

MODERATOR_ROUND = "Round {round} of {rounds}. Each of you: answer the other's strongest point."
MODERATOR_CLOSING = "Closing statements, please."
MODERATOR_CRUX = ("The crux so far: \"{argument}\" (its strength for {first}: {s1:.2f}; for {second}: {s2:.2f}). "
                  "Address it directly.")

QBAF = (
    "Below is a debate between {first} and {second}.\n\n{transcript}\n\n"
    "Map its arguments as a quantitative bipolar argumentation framework. Reply with one JSON object:\n"
    '{{"arguments": [{{"id": "a1", "text": "<one sentence>", "message": "<message id>", '
    '"base": {{"{first_id}": <0-1>, "{second_id}": <0-1>}}}}], '
    '"relations": [{{"from": "a1", "to": "a2", "type": "attack" | "support"}}]}}\n'
    "`base` is how plausible each debater takes the argument to be before the others bear on it. "
    "At most 12 arguments.")

CRUX_CARDS = (
    "Below is a finished debate between {first} and {second} on: {question}\n\n{transcript}\n\n"
    "Write crux cards: the questions on which their disagreement actually turns. For each card give the "
    "crux as a question, a diagnosis of why they disagree on it (values, facts or definitions), and the ids "
    "of the messages it rests on. Reply with one JSON object:\n"
    '{{"cards": [{{"question": "...", "diagnosis": "...", "messages": ["A-r1", "B-r1"]}}]}}\n'
    "One to four cards.")

CLAIMS = (
    "List every claim the speaker makes in this debate message, each as one short self-contained "
    "sentence in the speaker's terms. Do not add claims that are not in the message.\n\n"
    "Message:\n{text}\n\n"
    'Reply with one JSON object: {{"claims": ["...", "..."]}}')

STANCES = (
    "Below is a statement by {speaker}. For each claim listed, give the stance the statement takes on it: "
    "-2 strongly against, -1 against, 0 neutral or mixed, 1 for, 2 strongly for; null when the statement "
    "says nothing about it. Judge only from the statement.\n\nClaims:\n{claims}\n\nStatement:\n{text}\n\n"
    'Reply with one JSON object: {{"stances": {{"<claim id>": <-2..2 or null>}}}}')

BASELINE_ANSWER = (
    "Question: {question}\n\nClaims on the table:\n{claims}\n\n"
    "Answer the question, and say for each claim whether you hold it true or false, and why. At most 250 words.")

BELIEF_GRAPH = (
    "Write the belief graph of this persona.\n\nPersona: {name}\nWorldview: {worldview}\n\n"
    "Give exactly {size} claims the persona believes or doubts, on society, policy, technology and "
    "evidence, each one short sentence with the persona's credence in it (0 = certainly false, 1 = certainly "
    "true), and the relations between claims: one claim supports or attacks another. Reply with one JSON "
    "object:\n"
    '{{"nodes": [{{"id": "n1", "claim": "...", "credence": 0.8}}], '
    '"edges": [{{"from": "n1", "to": "n2", "type": "supports" | "attacks"}}]}}')

RETRY = "That reply could not be used ({error}). Reply again with the JSON object only."

TEMPLATES = {name: value for name, value in sorted(globals().items()) if name.isupper() and isinstance(value, str)}
