"""What an instrument is: a name, a reader of a file's text, and how its reading is compared with the truth."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable


@dataclass(frozen=True)
class Option:
    """A command-line option of `read NAME` (`--flag VALUE`), handed to `read` as options[dest]."""

    flag: str                      # e.g. "--rubric"
    help: str
    default: Any = None
    choices: tuple[str, ...] | None = None

    @property
    def dest(self) -> str:
        return self.flag.lstrip("-").replace("-", "_")


@dataclass(frozen=True)
class Instrument:
    """One reader of model text.

    `read(text, options)` returns the JSON document `read NAME FILE --json` prints: the instrument's own keys
    (e.g. "perspectives") and always "flagged" (bool) and "reason" (why it is flagged or how it read, "" if
    nothing to say). It raises ValueError with a clear message for a file it cannot take at all (e.g. a crux
    file that is not a JSON list), which the command reports naming the file.

    `agrees(document, truth)` says whether an unflagged reading is what a careful human reads in the entry
    (`truth` is the corpus entry's `truth` table). `describe(document)` is the command's text output.
    """

    name: str                      # `read NAME`; also the corpus folder tests/corpus/NAME/
    title: str                     # one line: what it reads
    read: Callable[[str, dict], dict]
    agrees: Callable[[dict, dict], bool]
    describe: Callable[[dict], str]
    options: tuple[Option, ...] = field(default_factory=tuple)
    input_help: str = "a text file"  # what FILE holds
    # True where "unsure" is itself a reading a careful human can make (a second that says neither yes nor no
    # is read correctly as "unreadable"): a flagged document that agrees with the truth then counts as correct
    flag_can_agree: bool = False
    example: str = "reply.txt"       # FILE (and options) in the help's examples
