"""What every batch command gets: the store path, the output mode, and how to print."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

from workbench.cli.examples import examples as help_examples

# Exit codes of the batch contract (DESIGN.md).
OK = 0
FAILED = 1
USAGE = 2


class CommandError(Exception):
    """Failed work or invalid input: printed as it is, exit code 1 (or `code`)."""

    def __init__(self, message: str, code: int = FAILED, details: Any = None):
        super().__init__(message)
        self.code = code
        self.details = details


@dataclass
class Context:
    db_path: Path
    json: bool = False
    # `desk serve`'s server (screens/desk_server.serve_study: textual-serve is the screens'), handed down by
    # the `workbench` command as the TUI is; None from any other entry point
    serve_desk: Callable[..., None] | None = None

    _db: Any = None

    def db(self):
        """The migrated store, opened on first use and bootstrapped with the shipped library."""
        if self._db is None:
            from store import open_store
            from workbench.cases.library import bootstrap

            self._db = open_store(self.db_path)
            bootstrap(self._db)
        return self._db

    def emit(self, document: Any, human: Callable[[], str] | str | None = None, *,
             study: str | None = None, protocol: str | None = None) -> None:
        """Print the result: one JSON document with --json, else the human text. Either way, what a
        case, a rater or a model wrote cannot drive the terminal (workbench.safe_text).

        `study`: the study the result is about. Whatever the protocol, the result then names the study
        and its protocol (the protocol contract, tests/contract): the JSON document's `study` and
        `protocol`, the text's first line `study ID  protocol NAME` unless it starts so already."""
        from workbench.safe_text import for_terminal, json_for_terminal

        if study is not None:
            protocol = protocol or self._protocol_of(study)
            if isinstance(document, dict):
                document = {"study": study, **document}
                if protocol is not None:  # a log outside any study (`_global`) has none to name
                    document.setdefault("protocol", protocol)
            if not self.json and human is not None:
                human = named_text(study, protocol, human() if callable(human) else human)
        if self.json:
            with self.stdout() as out:
                out.write(json_for_terminal(json.dumps(document, indent=2, ensure_ascii=False, default=str)))
                out.write("\n")
        elif human is not None:
            text = human() if callable(human) else human
            if text:
                with self.stdout() as out:
                    print(for_terminal(text), file=out)

    @staticmethod
    @contextlib.contextmanager
    def stdout():
        """stdout, for a result. A reader that stopped early (`workbench --batch … | head`) has what it
        wanted: the rest goes to /dev/null, with no traceback now or when Python flushes at exit, and the
        command finishes its work."""
        try:
            yield sys.stdout
            sys.stdout.flush()
        except BrokenPipeError:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())

    def _protocol_of(self, study_id: str) -> str | None:
        from workbench.studies.lookup import find_study

        row = find_study(self.db(), study_id)
        return (row["definition"].get("protocol") or "hindsight") if row else None

    def info(self, message: str) -> None:
        """Progress and notes: stderr, so that --json keeps stdout to one document."""
        from workbench.safe_text import for_terminal

        print(for_terminal(message), file=sys.stderr, flush=True)

    def close(self) -> None:
        if self._db is not None:
            db, self._db = self._db, None
            try:
                db.close()
            except Exception as exc:  # a full disk may refuse the closing checkpoint; the commits stand
                from store import is_disk_full

                if not is_disk_full(exc):
                    raise


def named_text(study: str, protocol: str | None, text: str) -> str:
    """The text, headed by `study ID  protocol NAME` unless its first line names both already."""
    first = text.split("\n", 1)[0]
    if first.startswith(f"study {study}") and (protocol is None or f"protocol {protocol}" in first):
        return text
    return f"study {study}" + (f"  protocol {protocol}" if protocol else "") + f"\n{text}"


def protocol_study(db, study_id: str, protocol: str) -> dict:
    """The stored study a protocol's own command names, or a clear error when there is none or it is a
    study of another protocol (one rule for every protocol's batch commands)."""
    from workbench.studies.lookup import find_study

    study = find_study(db, study_id)
    if study is None:
        raise CommandError(f"no study '{study_id}' in the store (create it with `workbench --batch study create FILE`)")
    if study["protocol"] != protocol:
        raise CommandError(f"study '{study_id}' is a {study['protocol']} study, not a {protocol} one")
    return study


def command_group(sub: argparse._SubParsersAction, name: str, *, help: str, dest: str, description: str | None = None,
                  metavar: str = "ACTION") -> argparse._SubParsersAction:
    """A batch command made of actions (`study create|show|…`): the subparsers its actions are added to
    (`args.<dest>` names the one given; one is required)."""
    parser = sub.add_parser(name, help=help, description=description)
    return parser.add_subparsers(dest=dest, metavar=metavar, required=True)


def study_action(sub: argparse._SubParsersAction, name: str, handler: Callable, *, help: str, description: str,
                 examples: tuple[str, ...], dest: str = "study_id", study_help: str | None = None
                 ) -> argparse.ArgumentParser:
    """A batch command (or a command's action) on one stored study: its parser, STUDY its first argument
    (`args.<dest>`), its help's examples, its handler set. The caller adds the rest of its arguments."""
    parser = sub.add_parser(name, help=help, description=description, **help_examples(*examples))
    parser.add_argument(dest, metavar="STUDY", help=study_help)
    parser.set_defaults(handler=handler)
    return parser


def add_model_choice(parser: argparse.ArgumentParser, *, model: str, api_base: str) -> None:
    """`--model MODEL` and `--api-base URL` (`args.model`, `args.api_base`): the model a command calls in place of
    its default; `model` and `api_base` are their help."""
    parser.add_argument("--model", metavar="MODEL", help=model)
    parser.add_argument("--api-base", metavar="URL", help=api_base)


def add_by(parser: argparse.ArgumentParser, who: str) -> None:
    """`--by NAME`: who records the act (`workbench.scoring.actor.acting_user` reads the default)."""
    parser.add_argument("--by", metavar="NAME", help=f"{who} (default: the login name)")


@contextlib.contextmanager
def refusals(*errors: type[Exception]) -> Iterator[None]:
    """The core's refusals of a request (`errors`: a study not found, a rule not met) as a CommandError
    carrying their message, exit 1."""
    try:
        yield
    except errors as exc:
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc  # a KeyError's str quotes it
        raise CommandError(str(message)) from None
