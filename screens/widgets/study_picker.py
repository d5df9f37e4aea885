"""The study picker of the sections that show one study at a time (Runs, Metrics): a compact Select of the
stored studies whose options are replaced without a Changed message, so only a person's choice is one."""

from __future__ import annotations

from textual.widgets import Select


class StudyPicker(Select):
    """`show(options, chosen)`: the studies as (label, study id), with `chosen` selected (or the picker's
    empty state when there are none)."""

    def __init__(self, *, empty: list[tuple[str, str]] | None = None, **kwargs) -> None:
        # `empty`: the one option while there is no study (Metrics', a no-study row); else the prompt shows
        self.empty = empty or []
        super().__init__(self.empty, id="study-select", compact=True, allow_blank=not empty, **kwargs)

    def show(self, options: list[tuple[str, str]], chosen: str | None) -> None:
        with self.prevent(Select.Changed):
            self.set_options(options or self.empty)
            if chosen:
                self.value = chosen
