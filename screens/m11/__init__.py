"""The M11 dashboard (seed 003 §10): overview, Likert profile, sample browser with the debate, confidence."""
