"""What `study show` prints and the Studies screen shows: definition, freeze, runs, totals."""

from __future__ import annotations

import sqlite_utils

from store import runs as run_rows
from store.topology import topology_for_study
from workbench.simmodel.label import LABEL, is_simulated
from workbench.studies.lookup import load_study


def study_summary(db: sqlite_utils.Database, study_id: str, *, cue_audit: bool = False) -> dict:
    """`cue_audit`: also run the cue audit (workbench.cue_audit; embeddings cached in the store, the model
    loaded only for texts it has not seen): `study show` asks for it, a screen's quick summary does not."""
    from workbench.studies.counts import study_counts

    study = load_study(db, study_id)
    audit = None
    if cue_audit:
        from workbench.cue_audit import study_cue_audit

        found = study_cue_audit(db, study_id)
        audit = found.to_dict() if found is not None else None
    return {
        "id": study["id"],
        "protocol": study["protocol"],
        "status": study["status"],  # store.studies.study_status: the one definition
        "status_text": study["status_text"],
        "unblinded_at": study.get("unblinded_at"),
        "created_at": study["created_at"],
        "frozen_at": study["frozen_at"],
        "freeze_hash": study["freeze_hash"],
        "definition": study["definition"],
        "runs": run_rows.status_counts(db, study_id),
        "planned_runs": len(planned_runs(db, study)),
        "counts": study_counts(db, study_id).to_dict(),  # the same counts as `run` and the report
        "topology": [{k: t[k] for k in ("case_id", "condition", "pattern", "switching_assumption",
                                         "convergent_recommendation")} for t in topology_for_study(db, study_id)],
        "connections": connection_lines(db, study_id),
        "provider_batches": provider_batch_lines(db, study_id),
        "cue_audit": audit,
    }


def connection_lines(db: sqlite_utils.Database, study_id: str) -> list[str]:
    """How the gateway adapted the connections to this study's endpoints (study show, the report)."""
    from store.connections import changes_for
    from workbench.gateway.connections import summary_lines

    return summary_lines(changes_for(db, study_id))


def provider_batch_lines(db: sqlite_utils.Database, study_id: str) -> list[str]:
    """The study's provider batches and their saving (study show, the report)."""
    from store.provider_batches import batches_for
    from workbench.gateway.provider_batch import summary_lines

    return summary_lines(batches_for(db, study_id))


def planned_runs(db: sqlite_utils.Database, study: dict) -> list[dict]:
    """Every run the study will have, as its protocol plans them (hindsight: case x condition x
    replicate, P1 always 3), in grid order."""
    from workbench.protocol.registry import protocol_of

    d = study["definition"]
    return [{"id": run_id(study["id"], p.item_id, p.condition, p.replicate), "case_id": p.item_id,
             "condition": p.condition, "replicate": p.replicate}
            for p in protocol_of(d).planned_runs(db, study["id"], d)]


def run_id(study_id: str, case_id: str, condition: str, replicate: int) -> str:
    return f"{study_id}/{case_id}/{condition}/{replicate}"


def summary_text(s: dict) -> str:
    """`study show` in words, for every protocol: the shared keys, then what the protocol says it holds."""
    from workbench.protocol.registry import protocol_of

    d = s["definition"]
    m = d.get("model") or {}
    lines = [
        f"study {s['id']}  protocol {s['protocol']}  status {s.get('status_text') or s['status']}"
        + (f"  {LABEL}" if is_simulated(d) else ""),
        f"created {s['created_at']}  frozen {s['frozen_at'] or '(not yet: the first run freezes it)'}",
        f"freeze hash {s['freeze_hash'] or '-'}",
    ]
    if d.get("description"):
        lines.append(d["description"])
    if not d.get("cases"):  # a protocol without cases says what it holds instead
        lines.append(f"holds       {protocol_of(d).summary_line(d)}")
    if d.get("cases"):
        lines.append(f"cases       {', '.join(d['cases'])}")
    if d.get("conditions"):
        lines.append(f"conditions  {', '.join(d['conditions'])}  replicates {d.get('replicates', 1)}"
                     + (" (P1: 3)" if d.get("cases") else ""))
    if m:
        lines.append(f"model       {m.get('name')}" + (f" @ {m['api_base']}" if m.get("api_base") else "")
                     + f"  temperature {m.get('temperature')}  seed {m.get('seed')}  max_tokens {m.get('max_tokens')}"
                     f"  timeout {m.get('timeout')}s")
    lines += [
        "judges      " + (", ".join(f"{j['name']} ({j['model']}, {j.get('pipeline', 'direct')}, runs {j.get('runs', 1)})"
                                     for j in d.get("judges") or []) or "-"),
        f"raters      {', '.join(d.get('raters') or []) or '-'}",
        f"rubrics     {', '.join(d.get('rubrics') or []) or '-'}",
        "thresholds  " + (", ".join(f"{k} {v}" for k, v in (d.get("thresholds") or {}).items()) or "-"),
        f"cost ceiling {'$%.2f' % d['cost_ceiling'] if d.get('cost_ceiling') is not None else '-'}",
    ]
    arch = d.get("architectures", {})
    if "C1" in arch:
        # who reads the coordinator's framing, and C3's fan: pre-registered choices a reader must see (issue 42);
        # a study stored before the options kept what the tool did then (respondents framed, a tail-risk fan)
        framing = arch["C1"].get("framing") or "respondents (stored before the option)"
        lines.append(f"C1          {arch['C1']['respondents']} respondents; framing: {framing}")
    if "C2" in arch:
        c2 = arch["C2"]
        roster = ", ".join(f"{r['name']}{' (chair)' if r['chair'] else ''}" for r in c2["roster"])
        lines.append(f"C2          roster: {roster}; mover {c2['mover']}; {c2['debate_rounds']} debate rounds; "
                     f"up to {c2['max_amendments']} amendments; {c2['statement_words']} words a statement")
    if "C3" in arch:
        fan = arch["C3"].get("fan") or "tail-risk (stored before the option)"
        lines.append(f"C3          {arch['C3']['scenarios']} scenarios (fan: {fan}), then the C2 committee")
    from workbench.studies.counts import StudyCounts

    counts = StudyCounts.from_dict(s["counts"])
    lines.append(f"runs        {s['planned_runs']} planned; {counts.runs_text()}")
    lines.append(f"counts      {counts.calls_text()}")
    if counts.errors_text():
        lines.append(f"errors      {counts.errors_text()}")
    if counts.truncated_text():
        lines.append(f"truncated   {counts.truncated_text()}")
    if counts.cut_text():   # structured replies cut at max_tokens, and how many were asked again with more room
        lines.append(f"cut         {counts.cut_text()}")
    if counts.lost.text():
        lines.append(f"lost        {counts.lost.text()}")
    for topo in s["topology"]:
        extra = f" (switching assumption: {topo['switching_assumption']})" if topo["switching_assumption"] else ""
        lines.append(f"topology    {topo['case_id']} {topo['condition']}: {topo['pattern']}{extra}")
    lines += [f"connections {line.removeprefix('connections ')}" for line in s.get("connections", [])]
    lines += s.get("provider_batches", [])
    if s.get("cue_audit"):
        from workbench.cue_audit import audit_lines

        lines += audit_lines(s["cue_audit"])
    return "\n".join(lines)
