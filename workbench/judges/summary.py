"""What a judging pass leaves behind, shared by `workbench --batch judge` and the TUI's judge action: the
call log's recorded head and the per-judge summary lines (item-rubric pairs judged, ok, judge errors,
failed calls, calibration)."""

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
    """The judging summary: per judge, its item-rubric pairs (`workbench.rubrics.units`) and how they
    ended in this command and where the study stands; the last line is the outcome, `ok` only when nothing
    failed and none of these judges' pairs in the study is a judge error."""
    from workbench.rubrics import units

    lines = []
    for j in doc.get("judges", []):
        cal = j.get("calibration") or {}
        runs = f"{j['runs']} run{'' if j['runs'] == 1 else 's'}"
        lines.append(f"{j['name']} ({j['model']}, {j['pipeline']}, {runs}): "
                     + units.judged_text(j["judged"], j["judge_errors"], of=j["to_judge"])
                     + (f" ({j['retried']} judged again by --retry-errors)" if j.get("retried") else "")
                     + (f", {j['retries']} retr{'y' if j['retries'] == 1 else 'ies'}" if j.get("retries") else "")
                     + (f" ({j['quote_retries']} after a quote not found in the response)"
                        if j.get("quote_retries") else "")
                     + cut_text(j)
                     + f"; {j['skipped']} already judged, "
                     f"{j['failed_calls']} failed call{'' if j['failed_calls'] == 1 else 's'}; "
                     f"calibration {cal.get('state', '-')}"
                     + (f" (held: {units.pairs(j['held_back'])} not judged)" if j["held"] else ""))
        if (j["study_judged"], j["study_judge_errors"]) != (j["judged"], j["judge_errors"]):
            lines.append("  in the study: " + units.judged_text(j["study_judged"], j["study_judge_errors"]))
        lines += [f"  {f}" for f in j.get("failures", [])[:10]]
        if j.get("same_reply"):
            lines.append(f"  {j['same_reply']} retried pair(s) got the same invalid reply again with a new seed: "
                         f"{j['model']} ignores seeds (or answers deterministically), so another --retry-errors "
                         "round will not help; change the judge's model, temperature or max_tokens")
        if j["model"] == "mock" and j["judge_errors"] and not j["ok"]:
            lines.append("  (the built-in mock model answers with placeholder prose, never a verdict: every "
                         "item-rubric pair is a judge error; name a real model in [[judges]])")
    if doc.get("stopped"):
        lines.append(f"stopped: {doc['stopped']}")
    audit = doc.get("audit")
    if audit:
        acc = "-" if audit["accuracy"] is None else f"{audit['accuracy']:.0%}"
        p = "-" if audit["p_value"] is None else f"{audit['p_value']:.3g}"
        lines.append(f"blindness audit ({audit['model']}): {audit['correct']}/{audit['n']} right = {acc} vs chance "
                     f"{audit['chance']:.0%} (p = {p}, {audit['invalid']} invalid)"
                     + ("; LEAK SUSPECTED: the scrubber leaves tells" if audit["leak_suspected"] else ""))
    lines.append(judging_outcome(bool(doc.get("ok")), sum(j["study_judge_errors"] for j in doc.get("judges", []))))
    return "\n".join(lines)


class NoticeLines:
    """The gateway's notices during judging or an audit, as progress lines (batch and the Studies screen): a call
    past its first-token timeout on a server that may still be busy with a request an earlier command abandoned
    (workbench/gateway/abandoned.py). An event sink."""

    def __init__(self, say) -> None:
        self.say = say

    def emit(self, event) -> None:
        from workbench.events import CALL_NOTICE

        if event.kind == CALL_NOTICE:
            self.say(f"notice: {event.agent or 'a judge'}: {event.payload['message']}")


def heartbeat_text(calls: list[dict], done: int, total: int, eta: float | None) -> str:
    """Judging's heartbeat, one line in batch and on the Studies screen: the calls in flight for long with their
    signs of life (workbench/gateway/live_calls.py), the pairs ended of those to judge, and the command's ETA."""
    from workbench.rubrics import units
    from workbench.gateway.live_calls import duration, long_calls_text

    return f"working: {long_calls_text(calls)}; {done}/{total} {units.PAIRS}, eta {duration(eta, '?')}"


def cut_text(j: dict) -> str:
    """Replies cut at max_tokens, named as such (not as parse errors), and what their retries made of them."""
    if not j.get("cut"):
        return ""
    n = j["cut"]
    text = f", {n} repl{'y' if n == 1 else 'ies'} cut at max_tokens {j.get('max_tokens') or ''}".rstrip()
    parts = []
    if j.get("cut_mended"):
        parts.append(f"{j['cut_mended']} mended by a larger max_tokens or one criterion a call")
    if j.get("cut_errors"):
        parts.append(f"{j['cut_errors']} still cut: raise the judge's max_tokens")
    return text + (f" ({'; '.join(parts)})" if parts else "")


def judging_outcome(ok: bool, judge_errors: int) -> str:
    """The summary's last word: `ok` only when the command did its work and no pair judged is a judge error."""
    from workbench.rubrics import units

    if not ok:
        return "not complete"
    if judge_errors:
        return (f"done with {units.judge_errors(judge_errors)} ({units.PAIRS} kept with their raw replies and "
                "excluded from metrics; --retry-errors judges them again)")
    return "ok"
