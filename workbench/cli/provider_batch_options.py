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


def provider_batch_config(args, endpoints: list[tuple[str, str | None]],
                          others: list[tuple[str, str | None]] = (), say=None):
    """The gateway's batch settings for this command, or None without --provider-batch. Before any call:
    refuses (CommandError) when a model of `endpoints` has no batch API; names each of `others` (models the
    command may also call, such as a study's judges during its runs) whose calls will go directly."""
    if not getattr(args, "provider_batch", False):
        return None
    from workbench.cli.context import USAGE, CommandError
    from workbench.gateway import NoBatchAPI, ProviderBatchConfig, refuse_unbatchable
    from workbench.gateway.provider_batch import batch_provider
    from workbench.gateway.api import ModelSettings

    if args.provider_batch_poll <= 0:
        raise CommandError("--provider-batch-poll must be more than 0 seconds", code=USAGE)
    try:
        refuse_unbatchable(endpoints)
    except NoBatchAPI as exc:
        raise CommandError(str(exc)) from None
    for model, base in sorted(set(others) - set(endpoints), key=str):
        if say is not None and batch_provider(ModelSettings(model=model, api_base=base)) is None:
            say(f"--provider-batch: {model} has no batch API; its calls go directly")
    return ProviderBatchConfig(retry=args.provider_batch_retry, poll_interval=args.provider_batch_poll)


def study_endpoints(definition: dict) -> list[tuple[str, str | None]]:
    """(model, api_base) of every model a study's runs call: [model] and the model tables of its protocol's
    section (judges are `judge`'s, see judge_endpoints)."""
    found = []
    model = definition.get("model") or {}
    if model.get("name"):
        found.append((model["name"], model.get("api_base") or None))
    section = definition.get(definition.get("protocol") or "")
    for sub in (section.values() if isinstance(section, dict) else ()):
        if isinstance(sub, dict) and isinstance(sub.get("name"), str) and sub["name"]:
            found.append((sub["name"], sub.get("api_base") or None))
    return found


def judge_endpoints(definition: dict) -> list[tuple[str, str | None]]:
    return [(j.get("model") or "mock", j.get("api_base") or None) for j in definition.get("judges") or []]
