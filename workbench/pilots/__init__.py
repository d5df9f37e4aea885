"""Calibration pilots (seed 000 §VI): the two known-direction items every rater and judge scores first.

Below blinding (which adds the pilot texts), scoring (which holds a rater who
fails) and judges (which checks a judge the same way); it reads the store and
imports none of them.
"""
