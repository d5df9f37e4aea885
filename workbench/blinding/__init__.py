"""Blind evaluation: scrubbing condition tells, opaque items, the sealed key, rater queues, unblinding.

See README.md in this directory for the rules. Modules: `scrub` (the
documented scrubber), `items` (`prepare_study`: outputs -> blind items + sealed
key + queues), `assign` (seeded per-rater order, sides, overlap), `context`
(what a study freezes), `unblind` (the recorded act and the labels it opens).
"""
