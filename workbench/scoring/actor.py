"""Who does a recorded act (an unblinding, a rater's release): the name given, else the login name."""

from __future__ import annotations


def acting_user(name: str | None = None) -> str:
    if name:
        return name
    import getpass

    try:
        return getpass.getuser()
    except Exception:  # no login name in this environment
        return "unknown"
