"""B3 reader: the reply made readable before any layout is tried: no reasoning trace or echoed prompt, and
no decoration that hides a layout (setext headings, blockquotes, HTML, emoji and arrow bullets).
"""

from __future__ import annotations

import re
import unicodedata

from workbench.protocols.hindsight.architectures.perspectives.titles import BULLET, HEADING, alone_as_title


_ARROWS = "→⇒➜➔➤▶►▸‣◦▪•"


_TRACE = re.compile(r"<think(?:ing)?>.*?(?:</think(?:ing)?>|$)|\[/?INST\]|<\|[\w-]+\|>|</?s>", re.IGNORECASE | re.DOTALL)


# the prompt's instruction echoed on a line of its own ("**Give 3-5 genuinely different perspectives on this decision,
# then synthesize a recommendation.**"), as small models do: the model's copy of the call, no title of a view
_ECHOED_CALL = re.compile(r"^[ \t>*_#-]*(?:please[ \t]+)?(?:give|provide|list|offer|present)\b[^\n]*\bperspectives\b"
                          r"[^\n]*\b(?:synthesi[sz]e|recommendation)\b[^\n]*$\n?", re.IGNORECASE | re.MULTILINE)


def answer_of(text: str) -> str:
    """The reply without a reasoning trace (`<think>…</think>`), the chat template's tokens a small model echoes
    (`[/INST]`, `<|im_end|>`) and the prompt's instruction echoed on a line of its own: none is the answer."""
    return _ECHOED_CALL.sub("", _TRACE.sub("", text or ""))


def normalised(text: str) -> list[str]:
    """The reply's lines with the decoration that hides a layout taken off: a setext heading (a title underlined
    with === or ---) as a `#`/`##` heading, a blockquote's `>`, emoji and symbols before a title (`🛡️ Security`),
    and an arrow or symbol bullet (`→ Legal: ...`) as `- `."""
    out: list[str] = []
    for line in _one_label_a_line(_from_html(text)).splitlines():
        if re.fullmatch(r"[ \t]*(?:```|~~~)[\w-]*[ \t]*", line):
            out.append("")
            continue  # a code fence is no title
        underline = re.fullmatch(r"[ \t]*(=+|-+)[ \t]*", line)
        if underline and len(line.strip()) >= 3 and out and alone_as_title(out[-1]) \
                and not (HEADING.match(out[-1]) or BULLET.match(out[-1])):
            out[-1] = ("# " if line.strip()[0] == "=" else "## ") + out[-1].strip()
            continue
        if re.fullmatch(r"[ \t]*(?:-{3,}|\*{3,}|_{3,}|(?:[-*_][ \t]){2,}[-*_])[ \t]*", line):
            out.append("")
            continue  # a horizontal rule separates, like a blank line
        line = re.sub(r"^[ \t]*>[ \t]?", "", line)
        line = re.sub(r"^([ \t]*)(\d)\ufe0f?\u20e3", r"\1\2.", line)  # a keycap digit ("1️⃣") as the number it shows
        indent = line[:len(line) - len(line.lstrip())]
        rest = line.lstrip()
        if rest and rest[0] in _ARROWS:
            line = indent + "- " + rest[1:].lstrip()
        else:
            stripped = rest
            while stripped and unicodedata.category(stripped[0]) in ("So", "Sk", "Cf", "Mn"):
                stripped = stripped[1:]
            if stripped != rest and stripped.strip():
                line = indent + stripped.lstrip()
            marked = re.match(r"([ \t]*(?:\d{1,2}[.)]|[-*+])[ \t]+)(\S.*)$", line)  # "1. 🛡️ **Quality**", "- 🔧 Legal"
            if marked:
                item = marked.group(2)
                while item and unicodedata.category(item[0]) in ("So", "Sk", "Cf", "Mn"):
                    item = item[1:]
                if item.strip():
                    line = marked.group(1) + item.lstrip()
        out.append(line)
    return out


_HTML_TAG = re.compile(r"</?(?:h[1-6]|p|strong|b|em|i|u|li|ol|ul|br|div|span|section|blockquote)\b[^>\n]*>",
                       re.IGNORECASE)


def _from_html(text: str) -> str:
    """HTML as small models write it, as the markdown it stands for: <h3> a `###` heading, <strong> bold, <li> of
    an <ol> a numbered line, of a <ul> a bullet, <p> and <br> line breaks."""
    if not _HTML_TAG.search(text):
        return text
    flags = re.IGNORECASE | re.DOTALL
    text = re.sub(r"<h([1-6])\b[^>]*>(.*?)</h\1\s*>",
                  lambda m: "\n\n" + "#" * int(m.group(1)) + " " + " ".join(m.group(2).split()) + "\n\n", text,
                  flags=flags)
    text = re.sub(r"<(strong|b)\b[^>]*>(.*?)</\1\s*>", r"**\2**", text, flags=flags)
    text = re.sub(r"</?(?:em|i|u|span)\b[^>]*>", "", text, flags=re.IGNORECASE)

    def numbered(m: re.Match) -> str:
        items = re.findall(r"<li\b[^>]*>(.*?)(?=</li\s*>|<li\b|$)", m.group(1), flags=flags)
        return "\n" + "\n".join(f"{n}. {' '.join(item.split())}" for n, item in enumerate(items, start=1)) + "\n"

    text = re.sub(r"<ol\b[^>]*>(.*?)(?:</ol\s*>|$)", numbered, text, flags=flags)
    text = re.sub(r"<li\b[^>]*>", "\n- ", text, flags=re.IGNORECASE)
    text = re.sub(r"<br\s*/?>", "\n", text, flags=re.IGNORECASE)
    text = _HTML_TAG.sub("\n", text)
    return "\n".join(line.strip() if not line.strip() or not line.startswith((" ", "\t")) or
                     not BULLET.match(line.strip()) else line for line in text.splitlines())


_LABEL_IN_LINE = re.compile(r"(?:(?<=[.!?])|(?<=[.!?][*_\"”']))[ \t]+(?=[*_]*(?:perspective|viewpoint|view|angle|lens)[ \t]+"
                            r"#?(?:\d|one|two|three|four|five|six|[A-H])\b[ \t*_]*[:.—–-])", re.IGNORECASE)


def _one_label_a_line(text: str) -> str:
    """`Perspective 1: ... Perspective 2: ...` run together in one paragraph, as a line per label."""
    return "\n".join(_LABEL_IN_LINE.sub("\n", line) if len(_LABELLED_ANY.findall(line)) >= 2 else line
                     for line in text.splitlines())


_LABELLED_ANY = re.compile(r"\b(?:perspective|viewpoint|view|angle|lens)[ \t]+#?(?:\d|one|two|three|four|five|six|[A-H])\b"
                           r"[ \t*_]*[:.—–-]", re.IGNORECASE)
