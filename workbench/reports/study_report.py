"""A study's whole Markdown report as `workbench --batch report` writes it and the TUI saves it: the
protocol's report, then the run and call counts and the call log's head (one function for both)."""

from __future__ import annotations

from pathlib import Path


def study_report_text(db, study_id: str, protocol, options: dict) -> str:
    """The report's text; `options` are the protocol's analysis options (comparisons, DQ, progress)."""
    from workbench.safe_text import for_terminal

    from workbench.reports import protocol_report

    text = protocol_report(db, study_id, protocol, options)
    from workbench.evaluators.report import report_section

    evaluators = report_section(db, study_id)  # every protocol's report lists every evaluator's quality
    if evaluators:
        from workbench.judges.planted_audit import planted_audit_report

        audit = planted_audit_report(db, study_id)
        text = text.rstrip("\n") + "\n\n" + evaluators + (f"\n{audit.text()}\n" if audit.model else "")
    # A report is read with `cat` and `less` too: a study description's or a reply's escape sequences and
    # control bytes would act on that terminal, so the file holds none (tabs and newlines stay).
    return for_terminal(text.rstrip("\n") + "\n\n" + cue_audit_section(db, study_id) + counts_section(db, study_id)
                        + connections_section(db, study_id) + provider_batch_section(db, study_id) + "\n"
                        + fidelity_section(db, study_id)
                        + structured_section(db, study_id) + "\n" + call_log_section(db, study_id))


def write_study_report(db, study_id: str, protocol, options: dict, out: str | Path) -> Path:
    """Write the report whole or not at all (the previous file, if any, stays until the new one is done)."""
    from workbench.files import write_text

    return write_text(out, study_report_text(db, study_id, protocol, options))


def cue_audit_section(db, study_id: str) -> str:
    """Which rubric criteria each condition's prompts cue beyond the baseline's (workbench.cue_audit); nothing
    for a protocol whose conditions are not audited."""
    from workbench.cue_audit import study_cue_audit

    audit = study_cue_audit(db, study_id)
    if audit is None:
        return ""
    lines = audit.lines()
    body = lines[0].removeprefix("cue audit   ") + "\n\n" + "".join(f"- {line.strip()}\n" for line in lines[1:])
    return ("## Cue audit\n\nSeed 000 §V: only the deliberative structure differs. A finding marked [project] is a "
            "cue of the project's own wording (a pre-registered deviation, or one to remove); [seed] is the seed's "
            "own prompt; [structure] a term of the seed's own description of the condition.\n\n" + body + "\n")


def counts_section(db, study_id: str) -> str:
    """The study's counts as `run` and `study show` print them (one definition: workbench.studies.counts)."""
    from workbench.studies.counts import study_counts

    lines = study_counts(db, study_id).text().splitlines()
    return "## Runs and calls\n\n" + "".join(f"- {line}\n" for line in lines)


def _listed(title: str, intro: str, lines: list[str]) -> str:
    """A report section of one intro and a bullet a line; nothing when there are no lines."""
    return f"\n## {title}\n\n{intro}\n\n" + "".join(f"- {line}\n" for line in lines) if lines else ""


def connections_section(db, study_id: str) -> str:
    """How the gateway adapted its connections to the study's endpoints, if it had to."""
    from workbench.studies.summary import connection_lines

    return _listed("Connections", "The gateway lowers an endpoint's connections when it interrupts streams or "
                   "refuses calls, and raises them again while calls succeed (slow start, additive increase, "
                   "multiplicative decrease; the project's rule):", connection_lines(db, study_id))


def provider_batch_section(db, study_id: str) -> str:
    """The study's provider batches, if it used any: states, requests, the batch price and the saving."""
    from workbench.studies.summary import provider_batch_lines

    return _listed("Provider batches", "Calls sent through the provider's Batches API (`--provider-batch`) are "
                   "recorded like direct calls (each names its batch); the batch price is litellm's cost map's:",
                   provider_batch_lines(db, study_id))


def fidelity_section(db, study_id: str) -> str:
    """In how many runs each condition's defining step happened, and the study's `on_missing_treatment`
    (workbench.fidelity: one definition with `metrics`)."""
    from workbench.fidelity.study import study_fidelity

    table = study_fidelity(db, study_id)
    return "" if table is None else table.markdown() + "\n"


def structured_section(db, study_id: str) -> str:
    """Parse counts per structured step (one definition with `metrics`: workbench.structured.counts)."""
    from workbench.structured.counts import parse_counts, schema_fallbacks, section

    return section(parse_counts(db, study_id), schema_fallbacks(db, study_id))


def call_log_section(db, study_id: str) -> str:
    """The call log's head as the store recorded it, kept in the store too: a published report pins its
    log, and `log verify` refuses a log that no longer holds this head."""
    from workbench.gateway.calllog import log_name
    from workbench.gateway.logcheck import record_head

    lines, head = record_head(db, study_id, "report")
    if not lines:
        return "## Call log\n\nNo model call has been logged for this study.\n"
    return (f"## Call log\n\nThe study's calls are in the hash-chained log `{log_name(study_id)}` beside the "
            f"store: {lines} lines, head hash `{head}`. `workbench --batch log verify {study_id}` checks that "
            "the log still holds every recorded call and this head.\n")
