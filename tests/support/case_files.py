"""A case file for tests: the front matter the case parser requires, every selection criterion met,
and the scenario and outcome sections (the one template the foundation, probe and study tests write)."""

from __future__ import annotations

CRITERIA = ("clear_decision_point", "outcome_visible", "knowledge_boundary", "causal_record",
            "manageable_contamination")


def case_text(*, id: str, title: str, scenario: str, outcome: str, type: str = "historical",
              domain: str = "policy", status: str = "ready", strategies: str = '["C"]',
              decision_date: str = "2019-04", complexity: str = "medium", concern_domain: str = "policy",
              rubric: str = "", source: str = "test fixture") -> str:
    """The text of a valid case file; `strategies` as TOML (`'["C"]'`, `"[]"`)."""
    criteria = "\n".join(f"{name} = true" for name in CRITERIA)
    return (f'+++\nid = "{id}"\ntitle = "{title}"\ntype = "{type}"\ndomain = "{domain}"\nstatus = "{status}"\n'
            f'strategies = {strategies}\ndecision_date = "{decision_date}"\ncomplexity = "{complexity}"\n'
            f'concern_domain = "{concern_domain}"\nrubric = "{rubric}"\nsource = "{source}"\n\n'
            f"[criteria]\n{criteria}\n+++\n\n## Scenario\n\n{scenario}\n\n## Outcome\n\n{outcome}\n")
