"""The hindsight protocol (seed 000) and its parts: architectures, report, study-file keys."""

from workbench.protocols.hindsight.protocol import HindsightProtocol

PROTOCOL = HindsightProtocol()

__all__ = ["PROTOCOL", "HindsightProtocol"]
