"""Inspect AI's side of `whole_process_bench.py`, as a user types it: an Inspect task over the same judge prompts.

    inspect eval benchmarks/inspect_calibration_task.py -T prompts=PROMPTS.jsonl \
        --model openai-api/bench/bench --model-base-url URL --max-connections 32

`PROMPTS.jsonl` holds one request a line (`{"messages": [...], "max_tokens": N}`): the requests the workbench's
run of the same study sent, so both sides ask the same server the same things. One sample per request, the
`generate()` solver, no scorer (the workbench's run scores nothing either). Inspect writes its eval log as it
always does.
"""

import json

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageAssistant, ChatMessageSystem, ChatMessageUser, GenerateConfig
from inspect_ai.solver import generate

ROLES = {"system": ChatMessageSystem, "user": ChatMessageUser, "assistant": ChatMessageAssistant}


@task
def calibration_judges(prompts: str, max_tokens: int = 256) -> Task:
    with open(prompts, encoding="utf-8") as fh:
        requests = [json.loads(line) for line in fh if line.strip()]
    samples = [Sample(id=i, input=[ROLES[m["role"]](content=m["content"]) for m in r["messages"]])
               for i, r in enumerate(requests, start=1)]
    return Task(dataset=MemoryDataset(samples), solver=generate(),
                config=GenerateConfig(max_tokens=max_tokens, temperature=0.0))
