"""`workbench --batch m11 …`: the M11 protocol's own batch commands.

    m11 estimate STUDY             the cost estimate before running (tokens x litellm's price map)
    m11 export STUDY --out FILE    the per-study JSON results (every sample with its full debate)
    m11 sample STUDY               the human-validation sample (20 items, stratified by band)

`--limit N` and single-run mode are the study file's `[m11] limit` and `runs = 1`
(a study is frozen, so they are part of its definition, not of a command).
"""

from __future__ import annotations

import argparse
import json

from workbench.cli.context import protocol_study, study_action


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("m11", help="M11 module evaluation: cost estimate, JSON export, human sample",
                       description="Seed 003's own steps: estimate a study's cost before running it, export its "
                                   "results as JSON, and list the items sampled for human validation.")
    m11 = p.add_subparsers(dest="m11_command", metavar="ACTION", required=True)
    study_action(m11, "estimate", handle_estimate, dest="study",
                 help="estimated calls, tokens and cost of the study before running it",
                 description="The calls the study's pipeline will make over its loaded items (samples x "
                             "runs), their estimated input and output tokens and their cost on the study's "
                             "model, before any call is made.",
                 examples=("workbench --batch m11 estimate m11-sample-mock",
                           "workbench --batch --json m11 estimate m11-sample-mock"))
    x = study_action(m11, "export", handle_export, dest="study", help="write the study's results as one JSON file",
                     description="Write the study's metrics and every sample's results (scores, band, each "
                                 "pipeline run's verdict and evidence) into one JSON file, format m11-results/2, "
                                 "written whole.",
                     examples=("workbench --batch m11 export m11-sample-mock --out m11-results.json",))
    x.add_argument("--out", metavar="FILE", required=True)
    study_action(m11, "sample", handle_sample, dest="study",
                 help="the items sampled for human validation (seeded, stratified by band)",
                 description="The items chosen for human validation once the study has run: the study's "
                             "human_sample items, drawn with human_seed and stratified by pass band.",
                 examples=("workbench --batch m11 sample m11-sample-mock",
                           "workbench --batch --json m11 sample m11-sample-mock"))


def handle_estimate(args, ctx) -> int:
    from store.items import list_items
    from workbench.protocols.m11.cost import estimate

    study = protocol_study(ctx.db(), args.study, "m11")
    doc = estimate(study["definition"], [r["payload"] for r in list_items(ctx.db(), args.study)])
    cost = f"${doc['cost']:.4f}" if doc["cost"] is not None else f"undefined ({doc['undefined_reason']})"
    ctx.emit(doc, f"{doc['samples']} sample(s) x {doc['runs']} run(s): {doc['calls']} call(s), ~{doc['input_tokens']} "
                  f"input and ~{doc['output_tokens']} output tokens on {doc['model']}: {cost}")
    return 0


def write_export(db, study_id: str, out) -> tuple:
    """The study's results as one JSON file at `out`; returns (path, samples)."""
    from workbench.files import write_text
    from workbench.protocols.m11.export import export_document

    doc = export_document(db, study_id)
    return write_text(out, json.dumps(doc, indent=2, ensure_ascii=False, default=str) + "\n"), len(doc["samples"])


def export_entries() -> list:
    """`m11 export` in the TUI's export list: results.json in the folder the user names."""
    from pathlib import Path

    from workbench.exports.catalog import Export, ExportDone

    def write(db, study_id: str, out, *, replace: bool = False) -> ExportDone:
        from workbench.files import write_folder

        written = {}

        def fill(tmp: Path) -> list[Path]:  # a folder like every export's: nothing the user put there replaced
            path, written["samples"] = write_export(db, study_id, tmp / "results.json")
            return [path]

        [path] = write_folder(out, fill, replace=replace)
        return ExportDone([path], f"wrote {written['samples']} sample(s) of {study_id} to {path}",
                          {"samples": written["samples"]})

    return [Export("m11-results", "M11 results (JSON)", "every sample with its full debate, as `m11 export`",
                   write)]


def handle_export(args, ctx) -> int:
    protocol_study(ctx.db(), args.study, "m11")
    path, samples = write_export(ctx.db(), args.study, args.out)
    ctx.emit({"ok": True, "study": args.study, "out": str(path), "samples": samples},
             f"wrote {samples} sample(s) of {args.study} to {path}")
    return 0


def handle_sample(args, ctx) -> int:
    from workbench.protocols.m11 import PROTOCOL

    study = protocol_study(ctx.db(), args.study, "m11")
    texts = PROTOCOL.blind_texts(ctx.db(), args.study, study["definition"])
    ctx.emit({"study": args.study, "sample": [t["case_id"] for t in texts]},
             "\n".join(t["case_id"] for t in texts) or "no scored sample yet: run the study first")
    return 0
