"""The offline `sim` model: a seeded simulator that answers calls the gateway hands it.

`sim` speaks each protocol's formats with effects planted by the study file's
`[simulation]` table (frozen with the definition). Everything it produces is
labelled SIMULATED: every reply starts with a banner, and every report heading,
metrics document and CSV row of a study on `sim` says so. A study cannot mix
`sim` with real models.

This package sits below the gateway (`workbench.gateway.mock` calls `engine.reply`), so it imports no
machinery above it: only the protocol registry (which finds each protocol's `simulate.py`) and the store.
The simulated raters, the power analysis and the report marks, which stand on scoring, metrics and
reports, live in `workbench.simulation`.

- `params.py`   the `[simulation]` table: defaults, validation, reading it back; the `sim` model string
- `label.py`    what makes a study simulated, the label, the no-mixing rule
- `refusal.py`  the run-time half of the no-mixing rule (asks the store which models a study called)
- `draws.py`    seeded draws per call key: the same study gives the same text
- `truth.py`    the planted "true" score of a response (what judges and raters perceive, plus noise)
- `engine.py`   the gateway's entry: which simulator answers a call
- `judge.py`    simulated LLM-judge replies (valid JSON with quotes from the response)
"""
