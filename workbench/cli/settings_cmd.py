"""`workbench --batch settings show | settings set KEY VALUE`: every gateway setting the Settings screen has,
with the screen's own validation (workbench/gateway/settings.py `settings_from_form`: one copy of the rules).

Keys: `concurrency`, `cost_ceiling_default`, `stall_timeout`, `max_attempts`, `max_retry_time`; a role's model
field as `ROLE.FIELD` (roles: architecture, judge, probe, classifier; fields: model, api_base, temperature,
max_tokens, seed, timeout, and the connection keys api_key_env, max_connections, first_token_timeout,
stall_timeout, structured); a model's rate limit as `limits.MODEL.rpm` or `limits.MODEL.tpm`.
An empty VALUE clears an optional field.
"""

from __future__ import annotations

import argparse

from workbench.cli.context import OK, USAGE, CommandError, Context, command_group
from workbench.cli.examples import examples


def register(sub: argparse._SubParsersAction) -> None:
    ssub = command_group(sub, "settings", help="show or change the gateway's settings (the Settings screen's)",
                         dest="settings_command")
    show = ssub.add_parser("show", help="every gateway setting and its value",
                           description="Print every setting the Settings screen has: each role's model and "
                                       "sampling, the default concurrency, timers, retries, cost ceiling and "
                                       "rate limits. Key values are never stored, only their variable names.",
                           **examples("workbench --batch settings show", "workbench --batch --json settings show"))
    show.set_defaults(handler=show_settings)
    put = ssub.add_parser("set", help="change one setting, validated as the Settings screen does",
                          description="Set KEY to VALUE with the Settings screen's validation: concurrency, "
                                      "cost_ceiling_default, stall_timeout, max_attempts, max_retry_time; "
                                      "ROLE.FIELD for a role's model (architecture, judge, probe, classifier); "
                                      "limits.MODEL.rpm|tpm. An empty VALUE clears an optional field.",
                          **examples("workbench --batch settings set judge.model openai/gpt-4o-mini",
                                     "workbench --batch settings set probe.max_connections 1"))
    put.add_argument("key", metavar="KEY")
    put.add_argument("value", metavar="VALUE")
    put.set_defaults(handler=set_setting)


def _lines(doc: dict) -> str:
    out = []
    for name in ("concurrency", "cost_ceiling_default", "stall_timeout", "max_attempts", "max_retry_time"):
        out.append(f"{name:<22} {'' if doc[name] is None else doc[name]}")
    for role, ms in list(doc["roles"].items()) + [("classifier", doc["classifier"])]:
        if ms is None:
            out.append(f"{'classifier':<22} (the probed model, at temperature 0)")
            continue
        out.append(f"{role:<22} " + "  ".join(f"{k} {'' if v is None else v}" for k, v in ms.items()))
    for model, lim in doc["limits"].items():
        out.append(f"limits.{model:<15} rpm {lim['rpm'] or '-'}  tpm {lim['tpm'] or '-'}")
    return "\n".join(out)


def show_settings(args, ctx: Context) -> int:
    from workbench.gateway.settings import load_settings

    doc = load_settings(ctx.db()).to_dict()
    ctx.emit(doc, lambda: _lines(doc))
    return OK


def set_setting(args, ctx: Context) -> int:
    from workbench.gateway.settings import (
        DEFAULT_ROLE_SETTINGS, GATEWAY_FIELDS, MODEL_FIELDS, ROLES, SettingsError, form_values, load_settings,
        save_settings, settings_from_form,
    )

    db = ctx.db()
    current = load_settings(db)
    roles = {r: form_values(current.roles.get(r)) for r in DEFAULT_ROLE_SETTINGS}
    roles["classifier"] = form_values(current.classifier)
    gateway = {n: "" if getattr(current, n) is None else str(getattr(current, n)) for n in GATEWAY_FIELDS}
    limits = {m: ("" if lim.rpm is None else str(lim.rpm), "" if lim.tpm is None else str(lim.tpm))
              for m, lim in current.limits.items()}
    parts = args.key.split(".")
    if len(parts) == 1 and parts[0] in GATEWAY_FIELDS:
        gateway[parts[0]] = args.value
    elif args.key == "classifier.model" and not args.value.strip():  # the probed model classifies again
        roles["classifier"] = form_values(None)
    elif len(parts) == 2 and parts[0] in ROLES and parts[1] in MODEL_FIELDS:
        roles[parts[0]][parts[1]] = args.value
    elif len(parts) >= 3 and parts[0] == "limits" and parts[-1] in ("rpm", "tpm"):
        model = ".".join(parts[1:-1])
        rpm, tpm = limits.get(model, ("", ""))
        limits[model] = (args.value, tpm) if parts[-1] == "rpm" else (rpm, args.value)
    else:
        raise CommandError(f"unknown setting '{args.key}': use one of {', '.join(GATEWAY_FIELDS)}, ROLE.FIELD "
                           f"(roles {', '.join(ROLES)}; fields {', '.join(MODEL_FIELDS)}) or limits.MODEL.rpm|tpm",
                           code=USAGE)
    try:
        updated = settings_from_form(roles, gateway, limits)
    except SettingsError as exc:
        raise CommandError(f"settings: {exc}") from None
    save_settings(db, updated)
    ctx.emit({"ok": True, "key": args.key, "value": args.value, "settings": updated.to_dict()},
             f"set {args.key} = {args.value or '(empty)'}")
    return OK
