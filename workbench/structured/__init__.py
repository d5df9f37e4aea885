"""Structured steps: replies that must be JSON (issue 19 item 4).

`reading.py` reads a reply with a step's own parser and says how it went: parsed (taken as is), repaired (the
parser had to fix it) or unparsed. `counts.py` records each reading in the store and computes the counts per
step of a study, the one definition `metrics` and the report both print.
"""
