"""Treatment fidelity (issue 45): in how many runs each condition's defining step actually happened.

A condition is compared with the others because of what it does (C2 debates a seconded motion, C3 fans out
scenarios, a faultline graph condition debates with belief graphs). A run whose defining step did not
happen still counts as its condition; this package says so. The protocol names each condition's step and
reads each run (`StudyProtocol.treatment_steps`, `treatment`); the table's layout, its renderings, the
mark on a table cell that stands on such runs and the study file's `on_missing_treatment` choice are shared
and live here:

- `policy.py`: `on_missing_treatment = "mark" | "exclude" | "refuse"` (default "mark"), checked with the key named;
  the mark (†)
- `table.py`: the table (condition, defining step, runs in which it happened / runs, flagged, detail) as JSON,
  CSV rows (`metrics --fidelity --csv`), text, Markdown and a RenderedTable (what a screen shows); a marked cell
  and its note. While a study's outputs are blinded it prints one condition-free line
- `study.py`: one study's table, its runs without their step, and one run's reading, asked of its protocol
  through the registry
- `watch.py`: the run-end words (batch's run line, the Runs grid), the "refuse" choice, as an event sink around
  a run's display, and the same words for a study's stored runs
"""
