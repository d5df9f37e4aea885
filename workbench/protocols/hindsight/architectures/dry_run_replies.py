"""The dry run's stand-in replies for hindsight's programs: each one what the turn's parser reads as the reply
that keeps the meeting going, so `study create`'s context check measures the committee's largest prompt.

A stand-in the parsers cannot read ends a committee before its debate: no `SECOND:` line, and every motion dies
unseconded (issue 40: a C2 study that could not fit a 2,048-token window was created without a word). Here a
motion is moved and seconded, every debate speech moves an amendment of its own (the committee's limit rules
the rest out of order, minuted, as with a real model), every amendment is seconded and adopted, and the chair
restates the motion: the path of the most turns and the longest minutes the study's options allow. The text
around each tagged line is the dry run's padding, as long as the reply is measured to be.
"""

from __future__ import annotations


def stand_in(request, padding: str) -> str | None:
    """The reply to one turn of a hindsight program (None: the padding alone does)."""
    turn = request.turn or ""
    step = turn.split(":", 1)[0]
    if step.startswith("second"):
        return _tagged("SECOND: yes", padding)
    if step.startswith("vote"):
        return _tagged("VOTE: aye", padding)
    if step.startswith("motion") or step == "restate":
        return _tagged(f"MOTION: the motion of {turn}", padding)
    if step.startswith("debate"):
        return _tagged(f"AMENDMENT: the amendment of {turn}", padding)
    return None


def _tagged(line: str, padding: str) -> str:
    """The tagged line, then the padding that makes up the rest of the reply's length."""
    rest = padding[len(line) + 1:]
    return f"{line}\n{rest}" if rest else line
