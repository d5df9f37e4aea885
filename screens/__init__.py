"""The Textual app: one module per screen. Only this package imports Textual.

The store is imported first: sqlite-utils is then loaded by store/db.py, which keeps the optional pandas
import out of it (start-up time; the screens never need pandas to open)."""

import store  # noqa: F401  (first, see above)
