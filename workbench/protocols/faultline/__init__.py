"""The faultline protocol (seed 002): persona debates with belief graphs, crux cards and six metrics.
Light at import: every heavy part is imported inside the method that needs it."""

from workbench.protocols.faultline.protocol import FaultlineProtocol

PROTOCOL = FaultlineProtocol()
