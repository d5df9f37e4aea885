"""Evaluator quality control (issue 32): gold and attention items planted among the real ones, each
evaluator's quality computed without unblinding, pre-registered exclusion rules, and a blind review of
judge verdicts. The study file's `[quality]` table (`settings.py`) pre-registers all of it."""
