"""`--provider-batch` and its options, shared by `run` and `judge`: the calls go as provider batches."""

from __future__ import annotations

import argparse


def add_provider_batch_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--provider-batch", action="store_true",
                   help="send the calls as provider batches (OpenAI-format Batches API: half price, results "
                        "within 24 h), round by round; --resume polls the open batches, never sends them twice")
    p.add_argument("--provider-batch-retry", choices=("batch", "direct"), default="batch",
                   help="a failed or expired item goes into the next batch (default) or is sent at once directly")
    p.add_argument("--provider-batch-poll", type=float, default=30.0, metavar="SECONDS",
                   help="seconds between polls of an open batch (default 30)")


def provider_batch_config(args, endpoints: list[tuple[str, str | None]]):
    """The gateway's batch settings for this command, or None without --provider-batch. Refuses (CommandError),
    before any call, a model of `endpoints` whose provider has no batch API."""
    if not getattr(args, "provider_batch", False):
        return None
    from workbench.cli.context import USAGE, CommandError
    from workbench.gateway import NoBatchAPI, ProviderBatchConfig, refuse_unbatchable

    if args.provider_batch_poll <= 0:
        raise CommandError("--provider-batch-poll must be more than 0 seconds", code=USAGE)
    try:
        refuse_unbatchable(endpoints)
    except NoBatchAPI as exc:
        raise CommandError(str(exc)) from None
    return ProviderBatchConfig(retry=args.provider_batch_retry, poll_interval=args.provider_batch_poll)


def run_endpoints(db, study: dict) -> list[tuple[str, str | None]]:
    """(model, api_base) of every model a study's runs call: each planned run's settings as its protocol gives
    them (a calibration run calls its judge), and the model tables of the protocol's section (faultline's
    extractor and graph builder)."""
    from workbench.protocol.registry import protocol_of
    from workbench.runs.settings import run_settings

    d = study["definition"]
    protocol = protocol_of(d)
    found = {(s.model, s.api_base or None)
             for s in (run_settings(protocol, d, plan) for plan in protocol.planned_runs(db, study["id"], d))}
    section = d.get(d.get("protocol") or "")
    for sub in (section.values() if isinstance(section, dict) else ()):
        if isinstance(sub, dict) and isinstance(sub.get("name"), str) and sub["name"]:
            found.add((sub["name"], sub.get("api_base") or None))
    return sorted(found, key=str)


def judge_endpoints(definition: dict) -> list[tuple[str, str | None]]:
    return [(j.get("model") or "mock", j.get("api_base") or None) for j in definition.get("judges") or []]
