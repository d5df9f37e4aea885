"""M11 module evaluation (seed 003): module outputs in; Likert debate verdicts, bands, binary comparison,
human agreement, confidence and cost out. See README.md in this folder."""

from workbench.protocols.m11.protocol import M11Protocol

PROTOCOL = M11Protocol()
