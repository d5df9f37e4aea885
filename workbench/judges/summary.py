"""What a judging pass leaves behind, shared by `workbench --batch judge` and the TUI's judge action: the
call log's recorded head and the per-judge summary lines (ok, judge errors, failed calls, calibration)."""

from __future__ import annotations


def keep_log_head(db, study_id: str) -> None:
    """The judges' calls are in the study's log: keep its head (best effort on a full disk)."""
    from store import is_disk_full
    from workbench.gateway.logcheck import record_head

    try:
        record_head(db, study_id, "judge")
    except Exception as exc:
        if not is_disk_full(exc):
            raise


def judging_text(doc: dict) -> str:
    lines = []
    for j in doc.get("judges", []):
        cal = j.get("calibration") or {}
        lines.append(f"{j['name']} ({j['model']}, {j['pipeline']}, {j['runs']} run(s)): {j['ok']} ok, "
                     f"{j['judge_errors']} judge error(s)"
                     + (f" ({j['retried']} judged again by --retry-errors)" if j.get("retried") else "")
                     + (f", {j['retries']} retr{'y' if j['retries'] == 1 else 'ies'}" if j.get("retries") else "")
                     + (f" ({j['quote_retries']} after a quote not found in the response)"
                        if j.get("quote_retries") else "")
                     + f", {j['skipped']} already judged, "
                     f"{j['failed_calls']} failed call(s); calibration {cal.get('state', '-')}"
                     + (" (held: rest not judged)" if j["held"] else ""))
        lines += [f"  {f}" for f in j.get("failures", [])[:10]]
        if j.get("same_reply"):
            lines.append(f"  {j['same_reply']} retried pair(s) got the same invalid reply again with a new seed: "
                         f"{j['model']} ignores seeds (or answers deterministically), so another --retry-errors "
                         "round will not help; change the judge's model, temperature or max_tokens")
        if j["model"] == "mock" and j["judge_errors"] and not j["ok"]:
            lines.append("  (the built-in mock model answers with placeholder prose, never a verdict: every "
                         "item is a judge error; name a real model in [[judges]])")
    if doc.get("stopped"):
        lines.append(f"stopped: {doc['stopped']}")
    audit = doc.get("audit")
    if audit:
        acc = "-" if audit["accuracy"] is None else f"{audit['accuracy']:.0%}"
        p = "-" if audit["p_value"] is None else f"{audit['p_value']:.3g}"
        lines.append(f"blindness audit ({audit['model']}): {audit['correct']}/{audit['n']} right = {acc} vs chance "
                     f"{audit['chance']:.0%} (p = {p}, {audit['invalid']} invalid)"
                     + ("; LEAK SUSPECTED: the scrubber leaves tells" if audit["leak_suspected"] else ""))
    lines.append("ok" if doc.get("ok") else "not complete")
    return "\n".join(lines)
