"""The `sim` model's entry point: which simulator answers a call.

The gateway hands every call on `sim` to `reply(request, db)` (`workbench.gateway.mock.sim_text`;
this package sits below the gateway, so it imports none of the machinery above it). Judge calls
get the shared judge simulator; everything else goes to the protocol's own
simulator (`StudyProtocol.simulator()`, found through the registry). The
study's `[simulation]` table comes with the call (RunContext puts it in the
request's metadata) or, for calls made outside a run (judges), from the study.
Every reply a protocol writes starts with `REPLY_BANNER`, so nothing simulated
can be taken for a model's answer.
"""

from __future__ import annotations

from workbench.simmodel import judge
from workbench.simmodel.label import REPLY_BANNER
from workbench.simmodel.params import params_of


def definition_of(request, db) -> dict:
    meta = request.metadata or {}
    if "simulation" in meta or "protocol" in meta:
        return {"protocol": meta.get("protocol"), "simulation": meta.get("simulation")}
    if request.study_id and db is not None:
        from store.studies import get_study

        row = get_study(db, request.study_id)
        if row is not None:
            return row["definition"]
    return {}


def reply(request, db) -> str:
    definition = definition_of(request, db)
    params = params_of(definition)
    simulator = None
    if definition.get("protocol"):
        from workbench.protocol import registry

        simulator = registry.get(definition["protocol"]).simulator()
    # judge calls go to the shared judge simulator, unless the protocol's own simulator answers that role
    # (calibration: its runs are judges)
    if request.role == "judge" and request.role not in getattr(simulator, "roles", ()):
        return judge.reply(request, params)
    if simulator is None:
        return (f"{REPLY_BANNER}\nThis protocol has no simulator for role {request.role}; "
                "this text stands for a reply and carries no content.")
    return simulator.reply(request, params, db)
