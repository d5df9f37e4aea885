"""What a run of an item is given: the protocol's own payload, or the one `load_items` stored.

The default lives here rather than in the protocol interface, which imports nothing of the store.
"""

from __future__ import annotations

from typing import Any


def stored_payload(db, study_id: str, item_id: str) -> Any:
    """The payload `load_items` stored for the item; KeyError when the study has no such item."""
    from store.items import get_item

    row = get_item(db, study_id, item_id)
    if row is None:
        raise KeyError(f"no item '{item_id}' in study '{study_id}'")
    return row["payload"]


def run_item(db, protocol, study_id: str, item_id: str) -> Any:
    """`ctx.item` of a run: `protocol.item_payload`, or the stored payload when it returns None."""
    payload = protocol.item_payload(db, study_id, item_id)
    return stored_payload(db, study_id, item_id) if payload is None else payload
