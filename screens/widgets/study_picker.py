"""The study picker of the sections that show one study at a time (Runs, Metrics, Scoring): one look (each
study with its protocol and status, newest first, "no study" while there is none), and one rule for which
study it shows.

A study newly chosen in Studies is followed once (Runs and Metrics say so while they show it); else the study
asked for, else the one shown stays, else the newest. Options are replaced without a Changed message, so
only a person's choice is one, and a person's choice of another study ends the following."""

from __future__ import annotations

from textual.widgets import Select

from screens.widgets.section import chosen_study

NO_STUDY = ("no study",)  # the one option's value while there is none (no blank row: it could be chosen)


def study_label(study: dict) -> str:
    """`id (protocol, status)`: the status is the core's one definition (store.studies.study_status)."""
    return f"{study['id']} ({study['protocol']}, {study['status_text']})"


class StudyPicker(Select):
    DEFAULT_CSS = """
    StudyPicker { width: 2fr; max-width: 60; margin-right: 1; }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__([("no study", NO_STUDY)], id="study-select", compact=True, allow_blank=False, **kwargs)
        self.followed: str | None = None   # the last study chosen in Studies that was followed (once per choice)
        self.following: str | None = None  # the study shown because it was chosen in Studies

    def show(self, studies: list[dict], shown: str | None, wanted: str | None = None) -> str | None:
        """List `studies` (rows with id, protocol and status_text, newest first) and select the study to show,
        which is returned (None: there is none)."""
        ids = [s["id"] for s in studies]
        chosen = chosen_study(self.app)
        if chosen in ids and chosen != self.followed:
            self.following = self.followed = chosen
            wanted = wanted if wanted in ids else chosen
        target = next((i for i in (wanted, shown) if i in ids), ids[0] if ids else None)
        with self.prevent(Select.Changed):
            self.set_options([(study_label(s), s["id"]) for s in studies] or [("no study", NO_STUDY)])
            if target:
                self.value = target
        return target

    def follows(self, study_id: str | None) -> bool:
        """`study_id` is shown because it was chosen in Studies."""
        return study_id is not None and study_id == self.following

    @staticmethod
    def study_of(value) -> str | None:
        """The study id a Changed message carries (None: the "no study" option)."""
        return value if isinstance(value, str) else None

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.value != self.following:  # a person chose another study (the message goes on to the section)
            self.following = None
