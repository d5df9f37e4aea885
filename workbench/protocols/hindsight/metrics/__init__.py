"""Hindsight's metrics (seed 000 Tables 1-4, agreement, judge calibration, probes; seed 001's decision
quality) on the shared statistics of `workbench.metrics`.

- `study_data.py`        one hindsight study as plain data (the shared ratings, its cases, topology, probes,
                         perspectives, outputs and concern scores)
- `tables.py`            Tables 1-4 and the overall table, metrics and comparisons
- `agreement_report.py`  inter-rater, human vs judge, judge panel, judge errors, blindness audit
- `judge_calibration.py` calibration of the judges' scores against the raters'
- `dq_study.py`          DQ-1/2/3 of the study's runs and the sequential vs parallel baseline
- `concern_coverage.py`  DQ-3's concern scores: a model's assessment through the gateway, or a rater's file
- `analysis.py`          every part of the analysis of one study
- `render.py`            the analysis as rendered tables (CLI, report and Metrics screen alike)
- `drilldown.py`         the items and scores behind one number
- `plot_data.py`         the Metrics screen's plot series
- `export.py`            the long-format CSV of every score and verdict
- `section.py`           the door the shared Metrics section and `metrics` command use (through the registry)
"""
