"""A rater's link to the served desk: a credential for one rater of one study.

A link is `BASE/r/TOKEN/`; the token is 256 random bits, shown once when issued and stored only as its
SHA-256, so whoever reads the store cannot rebuild a link. A link is live until it expires or is revoked;
the server resolves a token to exactly one (study, rater), and nothing the browser sends can change which.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

import sqlite_utils

from store import desk_links as link_rows
from store import studies as study_rows
from workbench.scoring.rater_lock import RaterLock, RaterLockRefused, check_rater_lock

TOKEN_BYTES = 32          # 256 bits (the issue asks for at least 128)
DEFAULT_DAYS = 30
PREFIX = "/r/"
_TOKEN = re.compile(r"^[A-Za-z0-9_-]{20,100}$")  # the shape secrets.token_urlsafe gives; anything else is wrong
_LINK_LINE = re.compile(r"^(\S+)\s+(\S+)$")


class LinkError(Exception):
    """Links cannot be issued or revoked as asked; the message says why."""


@dataclass(frozen=True)
class Link:
    """A live link, resolved: who it admits to what."""

    id: int
    study_id: str
    rater: str
    expires_at: str

    @property
    def lock(self) -> RaterLock:
        return RaterLock(self.study_id, self.rater)


@dataclass(frozen=True)
class Issued:
    """A rater's line for the links file: the URL when it can be shown (new, or kept from the file)."""

    rater: str
    url: str | None
    issued_at: str
    expires_at: str
    new: bool


def now_text(now: datetime | None = None) -> str:
    return (now or datetime.now(timezone.utc)).isoformat(timespec="seconds")


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("ascii", "replace")).hexdigest()


def link_url(base_url: str, token: str) -> str:
    return f"{base_url.rstrip('/')}{PREFIX}{token}/"


def token_of(url: str) -> str | None:
    """The token in a link URL (None: not a link)."""
    match = re.search(r"/r/([^/?#]+)/?(?:[?#].*)?$", url)
    return match.group(1) if match else None


def resolve(db: sqlite_utils.Database, token: str, now: str | None = None) -> Link | None:
    """The live link this token opens, or None (unknown, revoked or expired: the caller does not say which)."""
    if not _TOKEN.match(token):
        return None
    row = link_rows.by_hash(db, token_hash(token))
    if row is None or row["revoked_at"] or row["expires_at"] <= (now or now_text()):
        return None
    return Link(row["id"], row["study_id"], row["rater"], row["expires_at"])


def study_raters(db: sqlite_utils.Database, study_id: str) -> list[str]:
    """The study's raters, each checked as rater mode checks it (frozen, not unblinded, a rater of it)."""
    row = study_rows.get_study(db, study_id)
    if row is None:
        raise LinkError(f"no study '{study_id}' in the store (create it with `workbench --batch study create FILE`)")
    raters = list((row.get("definition") or {}).get("raters") or [])
    if not raters:
        raise LinkError(f"study '{study_id}' names no raters: there is no desk to serve")
    try:
        for rater in raters:
            check_rater_lock(db, RaterLock(study_id, rater))
    except RaterLockRefused as exc:
        raise LinkError(str(exc)) from None
    return raters


def read_links_file(path: Path) -> dict[str, str]:
    """A links file written earlier: rater -> token (lines that are not `RATER URL` are ignored)."""
    if not path.exists():
        return {}
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        match = _LINK_LINE.match(line.strip())
        token = token_of(match.group(2)) if match else None
        if token:
            out[match.group(1)] = token
    return out


def issue_links(db: sqlite_utils.Database, study_id: str, base_url: str, *, days: int = DEFAULT_DAYS,
                known: dict[str, str] | None = None, now: datetime | None = None) -> list[Issued]:
    """A line per rater: a token from `known` (an earlier links file) that is still that rater's live link is
    kept; a rater with no live link gets a new one; a rater whose live link was issued elsewhere keeps it,
    without a URL (only its hash is stored: `revoke` it for a new one)."""
    if days < 1:
        raise LinkError(f"--days must be at least 1, not {days}")
    raters = study_raters(db, study_id)
    when = now or datetime.now(timezone.utc)
    at = now_text(when)
    live = {}
    for row in link_rows.live(db, study_id, at):
        live.setdefault(row["rater"], []).append(row)
    out = []
    for rater in raters:
        token = (known or {}).get(rater)
        kept = resolve(db, token, at) if token else None
        if kept is not None and (kept.study_id, kept.rater) == (study_id, rater):
            row = next(r for r in live[rater] if r["id"] == kept.id)
            out.append(Issued(rater, link_url(base_url, token), row["issued_at"], row["expires_at"], False))
        elif rater in live:
            row = live[rater][-1]
            out.append(Issued(rater, None, row["issued_at"], row["expires_at"], False))
        else:
            token = secrets.token_urlsafe(TOKEN_BYTES)
            expires = now_text(when + timedelta(days=days))
            link_rows.insert(db, {"study_id": study_id, "rater": rater, "token_hash": token_hash(token),
                                  "issued_at": at, "expires_at": expires})
            out.append(Issued(rater, link_url(base_url, token), at, expires, True))
    return out


def revoke(db: sqlite_utils.Database, study_id: str, rater: str) -> int:
    """Revoke the rater's links (the next `issue_links` gives them a new one); how many were live or not."""
    row = study_rows.get_study(db, study_id)
    if row is None:
        raise LinkError(f"no study '{study_id}' in the store")
    if rater not in ((row.get("definition") or {}).get("raters") or []):
        raise LinkError(f"'{rater}' is not a rater of study '{study_id}'")
    return link_rows.revoke(db, study_id, rater, now_text())


def links_text(issued: list[Issued]) -> str:
    """The links file: `RATER URL`, one line per rater whose URL can be shown."""
    return "".join(f"{i.rater} {i.url}\n" for i in issued if i.url)
