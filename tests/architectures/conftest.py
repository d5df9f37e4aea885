"""Fixtures for the architectures tests (defined once in tests/support/study_fixtures.py)."""

from tests.support.loopback import loopback_server  # noqa: F401  (the fixture)
from tests.support.study_fixtures import run_conditions, server, store  # noqa: F401
