from tests.hardening.conftest import cases_dir  # noqa: F401  (the fixture: a copy of the shipped cases)
