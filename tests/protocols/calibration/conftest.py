from tests.support.loopback import loopback_server  # noqa: F401  (the fixture)
