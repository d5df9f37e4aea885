"""Text from users and models, made safe to print on a terminal.

A case title, a model's reply or a server's error message may carry terminal
control sequences (clear the screen, set the window title, hide text, move the
cursor) or bidirectional overrides that make a line read differently from what
it holds. Every batch print of such text goes through `for_terminal`; the
TUI renders such text as plain Rich `Text` (never markup) after the same
stripping. `--json` output keeps the data exact but escapes the characters a
terminal would act on (`json_for_terminal`).
"""

from __future__ import annotations

import re

# ESC sequences: CSI (ESC [ ... final), OSC / DCS / SOS / PM / APC strings (ended by BEL or ESC \),
# and two-character escapes. Their 8-bit forms (0x9b CSI, 0x9d OSC, ...) are C1 controls, removed below.
_ESCAPES = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"             # CSI
    r"|\x1b[\]PX^_][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC, DCS, SOS, PM, APC
    r"|\x1b[ -/]*[0-~]"                    # two-character escapes (and ESC + intermediates)
    r"|\x1b")
# C0 controls but tab and newline, DEL, C1 controls, and the bidirectional embeddings, overrides
# and isolates (the "Trojan source" characters).
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_JSON_UNSAFE = re.compile("[\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def for_terminal(text: object) -> str:
    """`text` without escape sequences or control characters (tabs and newlines kept; CRLF -> LF)."""
    s = "" if text is None else str(text)
    if not s or (s.isprintable() and "\x1b" not in s):
        return s
    s = s.replace("\r\n", "\n")
    return _CONTROLS.sub("", _ESCAPES.sub("", s))


def json_for_terminal(document: str) -> str:
    """A JSON document with the characters a terminal acts on escaped (`\\u009b`): the same data to any
    JSON reader. (json.dumps already escapes C0 controls, ESC included.)"""
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", document)
