"""Simulated studies above the `sim` model: simulated raters, planted-effect recovery, power, report marks.

The `sim` model itself (its engine, planted parameters, draws, truth, judge and label) is
`workbench.simmodel`, below the gateway. What here stands on scoring, metrics and reports:

- `raters.py`       simulated human raters through the packet import path
- `power.py`        power analysis and planted-effect recovery on the statistics core (no model calls)
- `comparisons.py`  which comparisons a study pre-registers (its protocol says), for the power analysis
- `marks.py`        what a report and a metrics document of a simulated or dry-run study carry
"""
