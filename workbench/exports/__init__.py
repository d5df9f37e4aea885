"""Whole-study exports for other tools: Inspect AI eval logs (`inspect_log`) and one tidy, documented
dataset of long-format CSV tables with a Frictionless `datapackage.json` (`tables`).

Both read the study through `study_record`, which applies the blinding rule once: before unblinding,
nothing that names a condition, a model or a rater leaves the store, and no score does.
"""
