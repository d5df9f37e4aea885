"""LLM judges over blind items, the adversarial pipeline, the blindness audit, calibration pilots.

- `run.judge_study(db, gateway, study_id, ...)`: every judge of the study over
  every blind item and rubric (pilots first), verdicts appended.
- `direct.direct_run` / `adversarial.adversarial_run`: one run of one judge on
  one item and rubric; `aggregate` combines 1 or 3 runs (HIGH/MEDIUM/LOW).
- `prompt`: the seed 000 §VI evaluator prompt with data delimiters; `parse`:
  validating a JSON verdict (range, quote from the response).
- `audit.audit_study` / `audit.audit_report`: accuracy of an LLM guessing the
  architecture, against chance; `planted_audit`: can it tell gold items from real
  ones. Both ask through `audit_runner.run_audit` (one runner, two item sources).
- `calibration`: the two pilot items and the direction check for raters and judges.
- `results.current_verdicts` / `results.judge_error_counts`: reads for the metrics.
"""
