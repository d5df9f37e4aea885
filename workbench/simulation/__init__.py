"""Simulated studies: the offline `sim` model, simulated raters, planted-effect recovery and power.

`sim` is a seeded simulator that speaks each protocol's formats with effects
planted by the study file's `[simulation]` table (frozen with the definition).
Everything it produces is labelled SIMULATED (`label.py`): every reply starts
with a banner, and every report heading, metrics document and CSV row of a
study on `sim` says so. A study cannot mix `sim` with real models.

- `params.py`   the `[simulation]` table: defaults, validation, reading it back
- `label.py`    what makes a study simulated, the label, the no-mixing rule
- `draws.py`    seeded draws per call key: the same study gives the same text
- `truth.py`    the planted "true" score of a response (what judges and raters perceive, plus noise)
- `engine.py`   the gateway's entry: which simulator answers a call
- `judge.py`    simulated LLM-judge replies (valid JSON with quotes from the response)
- `raters.py`   simulated human raters through the packet import path
- `power.py`    power analysis and planted-effect recovery on the statistics core (no model calls)
"""
