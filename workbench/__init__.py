"""Hindsight Workbench core: cases, studies, architectures, gateway, blinding, judges, metrics.

Nothing in this package imports Textual (a test enforces it); the TUI in
`screens/` and the batch CLI are two consumers of the same core.
"""

__version__ = "0.1.0"
