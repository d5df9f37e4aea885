"""The Textual app: one module per screen. Only this package imports Textual.

The store's module is loaded first (through workbench.paths): sqlite-utils is then imported by store/db.py,
which keeps its optional pandas import out (start-up time; the screens never need pandas to open)."""

import workbench.paths  # noqa: F401  (first, see above)
