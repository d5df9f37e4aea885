"""The calibration protocol's screens: importing interactions, and the study's results (outcome first)."""
