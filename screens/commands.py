"""Command palette providers (ctrl+p). Titles are namespaced: "go: Metrics", "cases: open …".

A section adds its own commands with a provider in its screen's `COMMANDS`
(active while that screen is shown), titled "<section>: <what>".
"""

from __future__ import annotations

from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider


class ListProvider(Provider):
    """A provider over the (title, help, callback) triples that `commands()` returns; subclass it for a
    section's palette commands and list it in that screen's `COMMANDS`."""

    def commands(self) -> list[tuple[str, str, object]]:
        raise NotImplementedError

    async def discover(self) -> Hits:
        for title, help_text, callback in self.commands():
            yield DiscoveryHit(title, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, callback in self.commands():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), callback, text=title, help=help_text)


class StudyCommandProvider(ListProvider):
    """A section's palette commands over the stored studies (`study_ids`, read as the palette opens), offered
    while that section, which lists this provider in its `COMMANDS`, is on top."""

    async def startup(self) -> None:
        from workbench.studies.lookup import list_studies

        self.study_ids = [s["id"] for s in list_studies(self.app.db)]

    def commands(self):
        screen = self.screen
        return self.commands_for(screen) if type(self) in getattr(screen, "COMMANDS", ()) else []

    def commands_for(self, screen) -> list[tuple[str, str, object]]:
        raise NotImplementedError


class NavigationCommands(ListProvider):
    """`go: <Section>` for every section the app has."""

    def commands(self):
        app = self.app
        # on the scoring desk the number keys are scores, so no section key is offered as a shortcut
        keys = not getattr(self.screen, "owns_digits", False)
        return [(f"go: {s.title}", f"{s.key} · {s.description}" if keys else s.description,
                 partial(app.action_go, s.id))
                for s in getattr(app, "sections", [])]


class SectionActions(ListProvider):
    """`<section>: <what a key does>` for the shown section's own keys (Metrics' recompute, Settings' save,
    test connection …), so every section's palette offers its actions. `PALETTE_SKIP` on a screen leaves
    out actions its own provider offers already (Cases' new case, Runs' run and pause). Only the project's
    bindings (they all have an id) are listed, not Textual's own (copy text)."""

    def commands(self):
        from screens.sections import palette_prefix

        screen = self.screen
        section_id = getattr(screen, "SECTION_ID", "")
        if not section_id:
            return []
        prefix, skip = palette_prefix(section_id), getattr(screen, "PALETTE_SKIP", set())
        out, seen = [], set()
        for active in screen.active_bindings.values():
            binding = active.binding
            if (active.node is not screen or not active.enabled or binding.system or binding.id is None
                    or binding.action.split("(", 1)[0] in skip
                    or binding.action.startswith(("go_key", "app.")) or binding.action in seen):
                continue
            seen.add(binding.action)
            key = self.app.get_key_display(binding)
            out.append((f"{prefix} {binding.description.lower()}", f"{key} · {active.tooltip or binding.tooltip}",
                        partial(screen.run_action, binding.action)))
        return out


class CaseCommands(ListProvider):
    """`cases: new`, `cases: open <id>` for every stored case, `cases: probe all ready cases`."""

    async def startup(self) -> None:
        # The case list is read off the event loop, in a thread worker, as blocking work should be.
        db = self.app.db
        worker = self.app.run_worker(partial(_case_titles, db), thread=True, exit_on_error=False,
                                     group="palette")
        try:
            self.cases = await worker.wait()
        except Exception:  # a store problem must not break the palette; the section shows it
            self.cases = []

    def commands(self):
        app = self.app
        out = [("cases: new case", "open the editor on a new, empty case", partial(app.open_cases, None, "new")),
               ("cases: probe all ready cases", "run the contamination probe on every ready case",
                partial(app.open_cases, None, "probe_all"))]
        for case_id, title in getattr(self, "cases", []):
            out.append((f"cases: open {case_id}", title, partial(app.open_cases, case_id, "open")))
        return out


def _case_titles(db) -> list[tuple[str, str]]:
    from workbench.cases.listing import case_summaries

    return [(c["id"], c["title"]) for c in case_summaries(db)]


class OtherSections(ListProvider):
    """Every other section's commands, from anywhere (help says `studies:` works anywhere): each section's
    own keys (`runs: reload`, `metrics: recompute` …) and, for a section with per-study commands (Studies:
    `studies: freeze <study>` …), those; choosing one goes to that section and does it there. The section
    modules are imported when the palette opens, off the event loop, never at start-up."""

    async def startup(self) -> None:
        worker = self.app.run_worker(partial(_section_classes, self.app), thread=True, exit_on_error=False,
                                     group="palette")
        try:
            self.sections = await worker.wait()
        except Exception:  # a section that cannot be imported shows why when opened; here it is left out
            self.sections = []
        self.extra = []
        for section, cls in self.sections:
            entries = getattr(cls, "palette_entries", None)
            if entries is not None:
                self.extra += await entries(self.app, partial(self.app.in_section, section.id))

    def commands(self):
        from screens.sections import palette_prefix

        here = getattr(self.screen, "SECTION_ID", "")
        out = [(title, help_text, callback) for section_id, title, help_text, callback in getattr(self, "extra", [])
               if section_id != here]
        for section, cls in getattr(self, "sections", []):
            if section.id == here:
                continue  # SectionActions and the screen's own providers list the shown section's commands
            skip = getattr(cls, "PALETTE_SKIP", set())
            for binding in getattr(cls, "BINDINGS", []):
                name = binding.action.split("(", 1)[0]
                if binding.id is None or name in skip or binding.action.startswith(("go_key", "app.")):
                    continue
                out.append((f"{palette_prefix(section.id)} {binding.description.lower()}",
                            f"in {section.title} · {binding.tooltip}",
                            partial(self.app.in_section, section.id, "run_action", binding.action)))
        return out


def _section_classes(app) -> list:
    """(section, its screen class) for every section whose module imports."""
    import importlib

    out = []
    for section in getattr(app, "sections", []):
        module, _, name = section.target.partition(":")
        try:
            out.append((section, getattr(importlib.import_module(module), name)))
        except Exception:
            continue
    return out

