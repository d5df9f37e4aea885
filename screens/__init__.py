"""The Textual app: one module per screen. Only this package imports Textual.

Nothing here is imported at start-up that the first screen does not need: the store, and with it
sqlite-utils, is opened after the first frame (screens/app.py, screens/store_opening.py)."""
