"""Issue 15: every batch command's --help names how to call it (`workbench --batch …`) and says what it
does; packet export documents --rater and --out and shows an example."""

from __future__ import annotations

import argparse

import pytest

from workbench.cli.main import build_parser


def leaf_parsers(parser: argparse.ArgumentParser, path=()):
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield path, parser
        return
    for name, child in subs[0].choices.items():
        yield from leaf_parsers(child, (*path, name))


COMMANDS = list(leaf_parsers(build_parser()))


@pytest.mark.parametrize("path,parser", COMMANDS, ids=[" ".join(p) for p, _ in COMMANDS])
def test_every_command_usage_says_workbench_batch(path, parser):
    usage = parser.format_usage()
    assert usage.startswith(f"usage: workbench --batch {' '.join(path)}"), usage


def test_packet_export_documents_its_options_with_an_example():
    parser = dict(COMMANDS)[("packet", "export")]
    text = parser.format_help()
    assert "--rater NAME" in text and "only their items" in text
    assert "--out FILE" in text and "where to write the packet" in text
    assert "workbench --batch packet export glenda-crock-mock --rater rater-a --out a.json" in text


def test_the_readme_synopsis_lists_every_command():
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    synopsis = readme.split("## Batch mode", 1)[1].split("```", 2)[1]
    for path, _ in COMMANDS:
        assert any(line.strip().startswith(path[0]) and all(p in line for p in path) for line in synopsis.splitlines()
                   ), " ".join(path)


SHARED = [(path, parser) for path, parser in COMMANDS
          if parser.get_default("handler").__module__.startswith("workbench.cli.")]
# every registered protocol's own commands (`StudyProtocol.commands`), found as the CLI finds them
PROTOCOL_COMMANDS = [(path, parser) for path, parser in COMMANDS
                     if parser.get_default("handler").__module__.startswith("workbench.protocols.")]


def test_every_registered_protocol_command_is_in_the_help_checks():
    from workbench.protocol import registry

    groups = {path[0] for path, _ in PROTOCOL_COMMANDS}
    assert {name for name in registry.names() if registry.get(name).commands} <= groups
    assert {("calibration", "import"), ("faultline", "graph"), ("m11", "sample"), ("hindsight", "pilot")} <= {
        path for path, _ in PROTOCOL_COMMANDS}


@pytest.mark.parametrize("path,parser", SHARED + PROTOCOL_COMMANDS, ids=[" ".join(p) for p, _ in SHARED + PROTOCOL_COMMANDS])
def test_every_command_has_a_description_and_examples_that_parse(path, parser):
    """Issue 15 (shared commands) and issue 22 (protocol commands): a description and one or two examples;
    each example is a command line the parser accepts."""
    import shlex

    assert parser.description and len(parser.description) > 30, " ".join(path)
    text = parser.format_help()
    head = "example:" if text.count("\n  workbench --batch ") == 1 else "examples:"
    assert f"\n{head}\n" in text
    lines = [line.strip() for line in text.split(f"\n{head}\n", 1)[1].splitlines() if line.strip()]
    assert 1 <= len(lines) <= 2 and all(line.startswith("workbench --batch ") for line in lines)
    for line in lines:
        args = build_parser().parse_args(shlex.split(line)[2:])  # what follows `workbench --batch`
        assert args.handler is parser.get_default("handler"), line
        assert f" {' '.join(path)} " in f" {line} "


def test_a_description_is_wrapped_and_the_examples_are_kept_line_for_line():
    text = dict(COMMANDS)[("metrics",)].format_help()
    assert max(len(line) for line in text.split("examples:")[0].splitlines()) <= 100
    assert "\n  workbench --batch metrics glenda-crock-mock --csv --out scores.csv\n" in text + "\n"


@pytest.mark.parametrize("group", ["calibration", "faultline", "m11", "hindsight"])
def test_a_protocol_command_group_says_what_it_is_for(group):
    parser = next(p for path, p in leaf_parsers_with_groups(build_parser()) if path == (group,))
    assert parser.description and len(parser.description) > 30


def leaf_parsers_with_groups(parser: argparse.ArgumentParser, path=()):
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                yield from leaf_parsers_with_groups(child, (*path, name))
