"""`export inspect`: a study as Inspect AI eval logs, so `inspect view` and `inspect_ai.analysis` read it.

One log per condition (a hindsight architecture, a faultline architecture, an M11 pipeline, a calibration
judge). Each run is one sample: its first prompt as the input, every turn the run kept as messages in order
(the turn's prompt as a user message and the reply as an assistant message, each carrying the turn, the
speaker and the call id in its metadata; the complete prompts are in the call log), the final output, usage
and cost, and the run's status and error. Scores per rubric criterion and rater or judge appear once the
study is unblinded. With `blind`, one log holds the blind items only: opaque ids and the text raters read.

Logs are written in Inspect's JSON format (plain text; a timestamped file name, which its viewer lists).
`inspect-ai` is an optional extra; `require_inspect` says how to install it.
"""

from __future__ import annotations

import re
import uuid
from datetime import datetime, timezone
from pathlib import Path

from workbench.exports.study_record import RunRecord, StudyRecord, criterion_names

INSTALL_HINT = "pip install -e '.[inspect]'  (or: pip install inspect-ai)"


class InspectMissing(Exception):
    pass


def require_inspect():
    try:
        import inspect_ai.log as inspect_log
    except ImportError:
        raise InspectMissing(f"`export inspect` needs the optional package inspect-ai: {INSTALL_HINT}") from None
    return inspect_log


def _stop_reason(finish_reason: str | None) -> str:
    return {"stop": "stop", "length": "max_tokens", "content_filter": "content_filter",
            "tool_calls": "tool_calls"}.get(finish_reason or "", "unknown")


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "_", name)


def _spec(record: StudyRecord, *, task_name: str, model: str, condition: str | None, samples: list, created: str):
    from inspect_ai.log import EvalConfig, EvalDataset, EvalSpec
    from inspect_ai.model import GenerateConfig

    study = record.study
    metadata = dict(record.provenance, study=study["id"])
    from workbench.simmodel.label import LABEL, is_simulated

    # every log of a simulated study says so, whatever its samples hold (the label only: the banner names the
    # model, which a blind export must not)
    if is_simulated(study["definition"]):
        metadata.update(simulated=True, label=LABEL)
    if condition is not None:
        metadata["condition"] = condition
    return EvalSpec(
        eval_id=uuid.uuid4().hex, run_id=uuid.uuid4().hex, created=created, task=task_name,
        task_id=f"{study['id']}:{study.get('freeze_hash') or 'unfrozen'}", task_version=0,
        # The study's description is the researcher's free text and may name models or conditions.
        task_description=None if condition is None else (study["definition"].get("description") or None),
        tags=[record.protocol] + ([condition] if condition else []),
        dataset=EvalDataset(name=study["id"], samples=len(samples), sample_ids=[s.id for s in samples]),
        model=model, model_generate_config=GenerateConfig(), config=EvalConfig(), metadata=metadata)


def _messages(run: RunRecord):
    from inspect_ai.model import ChatMessageAssistant, ChatMessageSystem, ChatMessageUser

    out = []
    for i, turn in enumerate(run.turns):
        meta = {"turn": turn.turn, "speaker": turn.agent, "role": turn.role, "call_id": turn.call_id,
                "finish_reason": turn.finish_reason, "replayed": turn.status == "replayed"}
        prompt = turn.messages
        if i == 0:
            out.extend(ChatMessageSystem(content=m["content"], metadata=meta) for m in prompt
                       if m.get("role") == "system")
        last_user = next((m for m in reversed(prompt) if m.get("role") == "user"), None)
        if last_user is not None:
            out.append(ChatMessageUser(content=last_user["content"], metadata=meta))
        out.append(ChatMessageAssistant(content=turn.response, model=turn.model, source="generate", metadata=meta))
    return out


def _usage(run: RunRecord) -> dict:
    from inspect_ai.model import ModelUsage

    usage: dict[str, ModelUsage] = {}
    for turn in run.turns:
        if turn.status != "ok":
            continue  # a replayed turn cost nothing this time; its answer's cost is on the original call
        u = usage.setdefault(turn.model, ModelUsage())
        u.input_tokens += turn.input_tokens or 0
        u.output_tokens += turn.output_tokens or 0
        u.total_tokens = u.input_tokens + u.output_tokens
        if turn.cost is not None:
            u.total_cost = (u.total_cost or 0.0) + turn.cost
    return usage


def _scores(record: StudyRecord, db, run_id: str) -> dict:
    from inspect_ai.scorer import Score

    items = {k["item_id"] for k in record.key if k["run_id"] == run_id}
    rows = [r for r in record.scores if r["item_id"] in items]
    verdicts = [v for v in record.verdicts if v["item_id"] in items and v["status"] == "ok"]
    rubric = criterion_names(db, rows + verdicts)
    out = {}
    for r in rows:
        name = f"{r['rater']}/{rubric.get(r['rubric_hash'], 'rubric')}/{r['criterion']}"
        out[name] = Score(value=r["value"], metadata={"kind": "human", "rater": r["rater"], "item_id": r["item_id"],
                                                      "rubric": rubric.get(r["rubric_hash"]),
                                                      "criterion": r["criterion"], "at": r["at"]})
    for v in verdicts:
        name = f"{v['judge']}/{rubric.get(v['rubric_hash'], 'rubric')}/{v['criterion']}"
        out[name] = Score(value=v["value"], metadata={"kind": "judge", "rater": v["judge"], "model": v["model"],
                                                      "item_id": v["item_id"], "rubric": rubric.get(v["rubric_hash"]),
                                                      "criterion": v["criterion"], "pipeline": v["pipeline"]})
    return out


def _run_sample(record: StudyRecord, db, run: RunRecord):
    from inspect_ai.log import EvalError, EvalSample
    from inspect_ai.model import ModelOutput

    r = run.run
    text = (run.output or {}).get("text") or ""
    last = run.turns[-1] if run.turns else None
    model = last.model if last else ""
    first_prompt = next((m["content"] for m in reversed(run.turns[0].messages) if m.get("role") == "user"), "") \
        if run.turns else ""
    error = None
    if r["status"] not in ("done",) and r.get("error"):
        error = EvalError(message=r["error"], traceback="", traceback_ansi="")
    return EvalSample(
        id=r["id"], epoch=1, input=first_prompt, target="", messages=_messages(run),
        output=ModelOutput.from_content(model=model, content=text,
                                        stop_reason=_stop_reason(last.finish_reason if last else None)),
        scores=_scores(record, db, r["id"]) or None,
        metadata={"run_id": r["id"], "item_id": r["case_id"], "condition": r["condition"],
                  "replicate": r["replicate"], "status": r["status"], "error": r.get("error"),
                  "attempts": run.attempts, "cost": r.get("cost"), "cost_unknown": bool(r.get("cost_unknown"))},
        model_usage=_usage(run), error=error,
        started_at=r.get("started_at"), completed_at=r.get("finished_at"))


def _blind_sample(item: dict):
    from inspect_ai.log import EvalSample
    from inspect_ai.model import ModelOutput

    return EvalSample(id=item["id"], epoch=1, input=f"item {item['case_id']}", target="",
                      output=ModelOutput.from_content(model="blinded", content=item["text"]),
                      metadata={"item_id": item["id"], "case_id": item["case_id"], "pilot": bool(item["pilot"])})


def _log(record: StudyRecord, *, task_name: str, model: str, condition: str | None, samples: list, created: str):
    from inspect_ai.log import EvalLog, EvalPlan, EvalResults, EvalStats

    failed = sum(1 for s in samples if getattr(s, "error", None))
    status = "error" if samples and failed == len(samples) else "success"
    return EvalLog(status=status, eval=_spec(record, task_name=task_name, model=model, condition=condition,
                                             samples=samples, created=created),
                   plan=EvalPlan(name=record.protocol),
                   results=EvalResults(total_samples=len(samples), completed_samples=len(samples) - failed),
                   stats=EvalStats(started_at=created, completed_at=created), samples=samples)


def export_inspect(db, record: StudyRecord, out_dir: Path) -> list[Path]:
    """Write the logs into `out_dir` (an existing folder, written whole by the caller). Returns their paths."""
    inspect_log = require_inspect()
    now = datetime.now(timezone.utc)
    created = now.isoformat()
    stamp = now.strftime("%Y-%m-%dT%H-%M-%S+00-00")
    study_id = record.study["id"]
    logs: list[tuple[str, object]] = []
    if record.blind_items or not record.unblinded:
        samples = [_blind_sample(i) for i in record.blind_items]
        logs.append((f"{stamp}_{_safe(study_id)}_blind.json",
                     _log(record, task_name=study_id, model="blinded", condition=None, samples=samples,
                          created=created)))
    else:
        by_condition: dict[str, list[RunRecord]] = {}
        for run in record.runs:
            by_condition.setdefault(run.run["condition"], []).append(run)
        for condition, runs in by_condition.items():
            samples = [_run_sample(record, db, run) for run in runs]
            models = sorted({t.model for run in runs for t in run.turns}) or ["none"]
            logs.append((f"{stamp}_{_safe(study_id)}_{_safe(condition)}.json",
                         _log(record, task_name=study_id, model=models[-1] if len(models) == 1 else ",".join(models),
                              condition=condition, samples=samples, created=created)))
    paths = []
    for name, log in logs:
        path = out_dir / name
        inspect_log.write_eval_log(log, str(path), format="json")
        paths.append(path)
    return paths
