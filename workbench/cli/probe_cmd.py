"""`workbench --batch probe CASE_ID [--model M] [--api-base URL]`: the contamination probe, headless."""

from __future__ import annotations

import argparse
from dataclasses import replace

from workbench.cli.context import FAILED, OK, USAGE, CommandError, Context, add_model_choice
from workbench.cli.examples import examples
from workbench.events import CALL_RETRY, TURN_STARTED, Event


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("probe", help="ask a model whether it recognizes a case (seed 000 §III)",
                       description="Show the case's scenario to a fresh model instance, ask whether it recognizes "
                                   "the real event, classify the answer and record the verdict on the case. "
                                   "Exit 1 if the probe fails or its answer could not be classified.",
                       **examples("workbench --batch probe glenda-crock --model gpt-4o-mini",
                                  "workbench --batch probe glenda-crock --model ollama/llama3 --api-base http://localhost:11434"))
    p.add_argument("case_id", metavar="CASE_ID")
    add_model_choice(p, model="litellm model string (default: the settings' probe model)",
                     api_base="the model's server, e.g. a local one")
    p.add_argument("--classifier", metavar="MODEL",
                   help="the model that classifies the answer (default: Settings' classifier, else the judge "
                        "model when it is another real model, else the probed model, with a warning)")
    p.add_argument("--classifier-api-base", dest="classifier_api_base", metavar="URL",
                   help="the classifier's server")
    p.add_argument("--no-file", action="store_true", help="keep the result in the store only; leave the case file as it is")
    p.set_defaults(handler=probe)


class _ProgressSink:
    """Progress lines on stderr: which step is running and every retry."""

    def __init__(self, ctx: Context) -> None:
        from workbench.cli.signals import quiet_when_gone

        self.ctx = ctx
        self.say = quiet_when_gone(ctx.info)

    def emit(self, event: Event) -> None:
        if event.kind == "probe_warning":
            self.say(f"probe {event.agent}: warning: {event.payload['warning']}")
        elif event.kind == TURN_STARTED:
            step = "asking" if event.turn == "probe" else "classifying the answer with"
            self.say(f"probe {event.agent}: {step} {event.payload.get('model')}")
        elif event.kind == CALL_RETRY:
            self.say(f"probe {event.agent}: attempt {event.payload['attempt']} failed "
                          f"({event.payload['error']}); retrying in {event.payload['wait']:.1f}s")


def probe(args, ctx: Context) -> int:
    from workbench.cases.probes import ProbeError, run_probe
    from workbench.cli.signals import run_interruptible
    from workbench.gateway import build_gateway
    from workbench.gateway.settings import role_settings

    db = ctx.db()
    settings = role_settings(db, "probe")
    if args.model:
        # A model named on the command line does not inherit another model's server.
        settings = replace(settings, model=args.model, api_base=None)
    if args.api_base:
        settings = replace(settings, api_base=args.api_base)
    if not args.model:  # issue 15: Settings' offline probe model cannot classify; offer the real ones
        from workbench.cases.library import load_case
        from workbench.cases.probe_models import is_offline, offline_probe_message, probe_model_choices

        if is_offline(settings.model) and load_case(db, args.case_id) is not None:  # an unknown case: its error
            raise CommandError(offline_probe_message(settings.model, probe_model_choices(db), command=(
                f"workbench --batch probe {args.case_id}")), code=USAGE)
    classifier = None
    if args.classifier:
        classifier = replace(role_settings(db, "classifier"), model=args.classifier,
                             api_base=args.classifier_api_base or None, temperature=0.0)
    gateway = build_gateway(db, ctx.db_path)
    try:
        result = run_interruptible(  # a signal: the call in flight recorded as cancelled, nothing stored
            lambda: run_probe(db, gateway, args.case_id, settings, _ProgressSink(ctx), classifier=classifier,
                              record_in_file=not args.no_file),
            what=f"the probe of '{args.case_id}'", resume=f"workbench --batch probe {args.case_id} (the same options)")
    except ProbeError as exc:
        raise CommandError(str(exc)) from exc
    doc = {"ok": result.verdict != "error", "probe": result.to_dict()}

    def human() -> str:
        lines = [f"{result.case_id} on {result.model}: {result.verdict}"
                 + (" (placeholder: mock model)" if result.placeholder else ""),
                 f"  {result.advice}"]
        if result.reason:
            lines.append(f"  classifier ({result.classifier_model}): {result.reason}")
        if result.classifier_warning:
            lines.append(f"  warning: {result.classifier_warning}")
        if result.file_note:
            lines.append(f"  {result.file_note}")
        return "\n".join(lines)

    ctx.emit(doc, human)
    return OK if result.verdict != "error" else FAILED
