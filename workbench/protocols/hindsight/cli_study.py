"""The study a hindsight batch command names, or a clear error."""

from __future__ import annotations


def study_or_fail(ctx, study_id: str) -> dict:
    from store.studies import get_study
    from workbench.cli.context import CommandError

    study = get_study(ctx.db(), study_id)
    if study is None:
        raise CommandError(f"no study '{study_id}' in the store (create it with `workbench --batch study create FILE`)")
    if study["protocol"] != "hindsight":
        raise CommandError(f"study '{study_id}' is a {study['protocol']} study, not a hindsight one")
    return study
