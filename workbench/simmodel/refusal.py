"""The run-time half of the no-mixing rule: the runner asks before its first call.

`study create` already refuses a definition that names `sim` beside a real model; here the store is
asked too, so a study whose calls went to one kind of model never receives a call of the other kind
(a study re-created under the same name, a settings override, a replayed log from elsewhere).
"""

from __future__ import annotations


def refuse_mixing(db, study_id: str, definition: dict, error: type[Exception] = ValueError,
                  using: list[str] | None = None) -> None:
    """Raise `error` with the reason when running `study_id` now would mix simulated and real data."""
    from store.calls import study_models
    from workbench.simmodel.label import run_refusal

    problem = run_refusal(definition, study_models(db, study_id), using)
    if problem:
        raise error(problem)
