"""Seed 004's calibration study as a protocol; see README.md in this folder."""

from workbench.protocols.calibration.protocol import CalibrationProtocol

PROTOCOL = CalibrationProtocol()
