"""The ACC baselines on the same topics and model: a single-agent answer, and self-consistency
(5 independent draws of one identical prompt, `sample=0..4`, majority vote per claim)."""

from __future__ import annotations

from workbench.events import BASELINE_VOTE
from workbench.protocols.faultline import prompts
from workbench.protocols.faultline.conditions import SC_SAMPLES, SELF_CONSISTENCY, condition
from workbench.protocols.faultline.debate import claims_block
from workbench.protocols.faultline.extraction import claim_rows, stances_of, unknown_claims
from workbench.protocols.faultline.measures import majority
from workbench.protocols.faultline.turns import model_settings
from workbench.runs.context import RunContext, RunOutput, parallel, user


async def run_baseline(ctx: RunContext) -> RunOutput:
    cond = condition(ctx.condition)
    topic = ctx.item["topic"]
    samples = SC_SAMPLES if cond.id == SELF_CONSISTENCY else 1
    prompt = [user(prompts.BASELINE_ANSWER.format(question=topic["question"], claims=claims_block(topic)))]
    answers = await parallel(*(ctx.turn("answer" if k == 0 else f"answer:{k}", "model", prompt, phase="answer",
                                        label=f"answer {k + 1} of {samples}", sample=k) for k in range(samples)))
    settings = model_settings(ctx.options["extractor"])
    per_sample, errors, notes = [], [], []
    ids, _ = claim_rows(topic)
    for k, text in enumerate(answers):
        found, error = await stances_of(ctx, f"stance:answer:{k}", "the answer", text, topic, settings, sample=k)
        per_sample.append(dict(found) if found is not None else None)
        if found is None:
            errors.append({"step": "stances", "turn": f"stance:answer:{k}", "error": error})
        elif note := unknown_claims(f"stance:answer:{k}", found, ids):
            notes.append(note)
    verifiable = [c["id"] for c in topic["verifiable"]]
    parsed = [s for s in per_sample if s is not None]
    final = {cid: (majority([s[cid] for s in parsed]) if parsed else None) for cid in verifiable}
    ctx.emit(BASELINE_VOTE, agent="model", samples=per_sample, final=final,
             **({"notes": [n["note"] for n in notes]} if notes else {}))
    text = "\n\n---\n\n".join(answers)
    return RunOutput(text=text, report={"kind": "baseline", "topic": topic["id"], "architecture": cond.id,
                                        "answers": answers, "stances": per_sample, "final": final,
                                        "errors": errors, "notes": notes})
