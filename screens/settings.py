"""The Settings section: models per role, the gateway's limits, which provider keys are present,
and a connection test.

Keys are never shown or stored: the screen lists the NAMES of provider key
variables set in the environment, and a model may name the variable holding
its key. Changes take effect when saved (ctrl+s); the connection test uses
the form as it stands, saved or not.

The screen paints first ("Loading the settings…"); after that frame a worker reads the saved settings off
the main thread and only then builds the form (about 75 fields: most of the time it takes to open) and
fills it. Nothing here waits on the network or a model: only the connection test calls one, on demand.
"""

from __future__ import annotations

import asyncio

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Horizontal, VerticalScroll
from textual.widgets import Button, DataTable, Input, Label, Select, Static
from textual.worker import Worker, WorkerState

from screens.widgets.section import SectionScreen
from screens.widgets.unsaved_guard import UnsavedGuard
from workbench.gateway.settings import (
    GATEWAY_FIELD_HELP,
    GATEWAY_FIELDS,
    MODEL_FIELD_HELP,
    MODEL_FIELDS,
    ROLES,
    GatewaySettings,
    SettingsError,
    form_values,
    load_settings,
    settings_from_form,
)

FIELD_LABELS = {"model": "model", "api_base": "api base", "temperature": "temp", "max_tokens": "max tok",
                "seed": "seed", "timeout": "timeout s", "api_key_env": "key variable", "max_connections": "max conn",
                "first_token_timeout": "1st tok s", "stall_timeout": "stall s", "structured": "JSON mode"}
GATEWAY_LABELS = {"concurrency": "concurrent calls", "cost_ceiling_default": "cost ceiling (USD)",
                  "stall_timeout": "stall timeout (s)", "max_attempts": "attempts per call",
                  "max_retry_time": "retry time bound (s)"}
TEST_PROMPT = "Reply with the single word: ok"
LOADING = "Loading the settings…"
FORM_ACTIONS = {"save", "revert", "test_connection", "remove_limit"}  # offered once the form is filled


def read_saved(db) -> GatewaySettings:
    """The saved settings, read in a worker thread on a connection of its own."""
    from workbench.paths import thread_connection

    conn = thread_connection(db)
    try:
        return load_settings(conn)
    finally:
        if conn is not db:
            conn.close()


def _label(text: str, tooltip: str, classes: str = "") -> Label:
    label = Label(text, classes=classes)
    label.tooltip = tooltip
    return label


class SettingsScreen(UnsavedGuard, SectionScreen):
    """Models per role, concurrency and rate limits, the cost ceiling, keys present, a connection test."""

    SECTION_ID = "settings"
    SUB_TITLE = "Settings"
    CSS_PATH = "styles/settings.tcss"
    BINDINGS = [
        Binding("ctrl+s", "save", "Save", id="settings.save", tooltip="Check and save the settings"),
        Binding("ctrl+r", "revert", "Revert", id="settings.revert", tooltip="Drop unsaved changes: show what is saved"),
        Binding("ctrl+t", "test_connection", "Test connection", id="settings.test",
                tooltip="Make one tiny call with the chosen role's model (as in the form) and report latency or the error"),
        Binding("delete", "remove_limit", "Remove limit", id="settings.remove_limit", show=False,
                tooltip="Remove the rate limit selected in the table"),
        Binding("escape", "leave_field", "Leave field", id="settings.leave_field", show=False,
                tooltip="Leave the field being typed in: the section keys (1-6) work again"),
    ]
    PALETTE_SKIP = {"leave_field"}
    loaded = False  # the form is built and filled with the saved settings
    baseline: tuple | None = None  # the form as loaded or last saved

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "leave_field":
            return isinstance(self.focused, Input)
        if action in FORM_ACTIONS:
            return self.loaded
        return True

    def action_leave_field(self) -> None:
        """Escape in a field: no field has the focus, so the number keys go to the sections, not the field."""
        self.set_focus(None)

    def compose_section(self) -> ComposeResult:
        with VerticalScroll(id="settings-body"):
            yield Static(LOADING, id="settings-loading")

    def form(self) -> list:
        """The form's widgets, built once the saved settings are read (see the module's doc)."""
        role_grid = [Label("role", classes="grid-head")]
        role_grid += [_label(FIELD_LABELS[name], MODEL_FIELD_HELP[name], "grid-head") for name in MODEL_FIELDS]
        for role, help_text in ROLES.items():
            role_grid.append(_label(role, help_text, "role-name"))
            for name in MODEL_FIELDS:
                placeholder = "(probe model)" if role == "classifier" and name == "model" else ""
                role_grid.append(Input(id=f"role-{role}-{name}", classes=f"field-{name}", compact=True,
                                       placeholder=placeholder, tooltip=MODEL_FIELD_HELP[name]))
        gateway_grid = []
        for name in GATEWAY_FIELDS:
            gateway_grid += [_label(GATEWAY_LABELS[name], GATEWAY_FIELD_HELP[name]),
                             Input(id=f"gw-{name}", compact=True, tooltip=GATEWAY_FIELD_HELP[name])]
        return [
            Static("Models per role", classes="settings-heading"),
            Grid(*role_grid, id="role-grid"),
            Static("Limits", classes="settings-heading"),
            Grid(*gateway_grid, id="gateway-grid"),
            Static("Rate limits per model (requests and tokens per minute)", classes="settings-heading"),
            Horizontal(
                Input(placeholder="model", id="limit-model", compact=True,
                      tooltip="litellm model string the limit applies to"),
                Input(placeholder="rpm", id="limit-rpm", compact=True, tooltip="requests per minute (empty: no limit)"),
                Input(placeholder="tpm", id="limit-tpm", compact=True, tooltip="tokens per minute (empty: no limit)"),
                Button("Set limit", id="limit-set", compact=True, tooltip="Add or replace this model's limits"),
                id="limit-editor"),
            DataTable(id="limits-table", cursor_type="row", show_cursor=True),
            Static("Provider keys in the environment", classes="settings-heading"),
            Static("", id="keys-present"),
            Static("Connection test", classes="settings-heading"),
            Horizontal(
                Select([(r, r) for r in ROLES], value="probe", allow_blank=False, id="test-role", compact=True,
                       tooltip="Whose model to call"),
                Button("Test connection", id="test-connection", compact=True,
                       tooltip="One tiny call (ctrl+t); reports latency or the provider's error"),
                id="test-row"),
            Static("", id="test-result"),
            Static("", id="settings-problem"),
        ]

    def on_mount(self) -> None:
        self.limits: dict[str, tuple[str, str]] = {}
        self.call_after_refresh(self.load)  # after the screen's first frame

    def load(self) -> Worker:
        return self._load()

    @work(exclusive=True, group="settings-load", exit_on_error=False)
    async def _load(self) -> None:
        saved = await asyncio.to_thread(read_saved, self.app.db)
        body = self.query_one("#settings-body")
        await body.mount_all(self.form())
        table = self.query_one("#limits-table", DataTable)
        for key in ("model", "rpm", "tpm"):
            table.add_column(key, key=key)
        self.load_form(saved)
        self.show_keys()
        await self.query_one("#settings-loading").remove()
        self.loaded = True
        self.refresh_bindings()

    def on_screen_resume(self) -> None:
        if self.loaded:
            self.show_keys()

    # -- the form ---------------------------------------------------------------------------------

    def load_form(self, settings: GatewaySettings) -> None:
        for role in ROLES:
            values = form_values(settings.classifier if role == "classifier" else settings.roles[role])
            for name in MODEL_FIELDS:
                self.query_one(f"#role-{role}-{name}", Input).value = values[name]
        for name in GATEWAY_FIELDS:
            value = getattr(settings, name)
            self.query_one(f"#gw-{name}", Input).value = "" if value is None else (
                f"{value:g}" if isinstance(value, float) else str(value))
        self.limits = {m: ("" if lim.rpm is None else str(lim.rpm), "" if lim.tpm is None else str(lim.tpm))
                       for m, lim in settings.limits.items()}
        self.show_limits()
        self.baseline = self.form_state()
        self.show_problem(None)

    def form_state(self) -> tuple:
        roles = {role: {name: self.query_one(f"#role-{role}-{name}", Input).value for name in MODEL_FIELDS}
                 for role in ROLES}
        gateway = {name: self.query_one(f"#gw-{name}", Input).value for name in GATEWAY_FIELDS}
        return roles, gateway, dict(self.limits)

    def form_settings(self) -> GatewaySettings:
        roles, gateway, limits = self.form_state()
        return settings_from_form(roles, gateway, limits)

    def has_unsaved_changes(self) -> bool:
        return self.loaded and self.form_state() != self.baseline

    async def resolve_unsaved_changes(self) -> bool:
        """Ask save / discard / cancel when there are unsaved changes (runs in a worker)."""
        from screens.confirm import DISCARD, SAVE, unsaved_changes_dialog

        if not self.has_unsaved_changes():
            return True
        choice = await self.app.push_screen_wait(unsaved_changes_dialog("The settings"))
        if choice == DISCARD:
            self.action_revert()
            return True
        return choice == SAVE and self.action_save()

    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        if event.input.id and event.input.id.startswith(("role-", "gw-")):
            self.sub_title = "Settings · modified" if self.has_unsaved_changes() else "Settings"

    def show_problem(self, message: str | None) -> None:
        self.query_one("#settings-problem", Static).update(
            Text(message, style="bold red") if message else Text(""))

    # -- actions ----------------------------------------------------------------------------------

    def action_save(self) -> bool:
        from workbench.gateway.settings import save_settings

        try:
            settings = self.form_settings()
        except SettingsError as exc:
            self.show_problem(f"not saved: {exc}")
            self.notify(str(exc), title="Settings not saved", severity="error")
            return False
        save_settings(self.app.db, settings)
        self.load_form(settings)
        self.sub_title = "Settings"
        self.notify("Settings saved", title="Settings")
        return True

    def action_revert(self) -> None:
        self.load_form(load_settings(self.app.db))
        self.sub_title = "Settings"

    # -- rate limits ------------------------------------------------------------------------------

    def show_limits(self) -> None:
        table = self.query_one("#limits-table", DataTable)
        table.clear()
        for model, (rpm, tpm) in sorted(self.limits.items()):
            table.add_row(model, rpm or "-", tpm or "-", key=model)
        if not self.limits:
            table.add_row(Text("no limits", style="dim"), "", "", key="")

    @on(Button.Pressed, "#limit-set")
    def set_limit(self) -> None:
        model = self.query_one("#limit-model", Input).value.strip()
        rpm = self.query_one("#limit-rpm", Input).value.strip()
        tpm = self.query_one("#limit-tpm", Input).value.strip()
        if not model:
            self.show_problem("limits: name the model the limit applies to")
            return
        for label, value in (("rpm", rpm), ("tpm", tpm)):
            if value and not (value.isdigit() and int(value) > 0):
                self.show_problem(f"limits.{model}.{label}: '{value}' is not a whole number of at least 1")
                return
        if rpm or tpm:
            self.limits[model] = (rpm, tpm)
        else:
            self.limits.pop(model, None)
        for wid in ("#limit-model", "#limit-rpm", "#limit-tpm"):
            self.query_one(wid, Input).value = ""
        self.show_problem(None)
        self.show_limits()
        self.sub_title = "Settings · modified" if self.has_unsaved_changes() else "Settings"

    def action_remove_limit(self) -> None:
        table = self.query_one("#limits-table", DataTable)
        if not self.limits or table.row_count == 0:
            return
        key = table.coordinate_to_cell_key((table.cursor_row, 0)).row_key.value
        if key in self.limits:
            del self.limits[key]
            self.show_limits()
            self.sub_title = "Settings · modified" if self.has_unsaved_changes() else "Settings"

    # -- keys and the connection test -------------------------------------------------------------

    def show_keys(self) -> None:
        from workbench.gateway.secrets import present_key_names

        names = present_key_names()
        text = Text(", ".join(names) if names else "none set", style="" if names else "dim")
        text.append("\nNames only: keys are read from the environment at call time and never stored or shown.",
                    style="dim")
        self.query_one("#keys-present", Static).update(text)

    @on(Button.Pressed, "#test-connection")
    def _test_pressed(self) -> None:
        self.action_test_connection()

    def action_test_connection(self) -> None:
        role = self.query_one("#test-role", Select).value
        try:
            settings = self.form_settings().role(str(role))
        except SettingsError as exc:
            self.show_problem(f"cannot test: {exc}")
            return
        self.show_problem(None)
        self.query_one("#test-result", Static).update(Text(f"calling {settings.model}…", style="dim"))
        self.test_connection(str(role), settings)

    @work(exclusive=True, group="settings-test", exit_on_error=False)
    async def test_connection(self, role: str, settings) -> Text:
        from dataclasses import replace

        from workbench.gateway import CallRequest, GatewayConfig, GatewayError, build_gateway
        from workbench.gateway.retry import RetryPolicy

        probe = replace(settings, max_tokens=8, timeout=min(settings.timeout, 30.0))
        # One attempt: the point is to see the provider's answer or its error, not to ride it out.
        gateway = build_gateway(self.app.db, self.app.db_path,
                                config=GatewayConfig(concurrency=1, retry=RetryPolicy(max_attempts=1)))
        try:
            result = await gateway.call(CallRequest(messages=[{"role": "user", "content": TEST_PROMPT}],
                                                    settings=probe, role="test", turn="connection-test",
                                                    cache=False))
        except GatewayError as exc:
            return Text.assemble((f"{role} · {settings.model}: failed", "bold red"), f" — {exc}")
        reply = " ".join(result.text.split())[:60]
        note = " (placeholder: mock model)" if result.placeholder else ""
        return Text.assemble((f"{role} · {settings.model}: ok", "bold green"),
                             f" in {result.latency_ms:.0f} ms{note} — replied “{reply}”")

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group == "settings-load" and event.state == WorkerState.ERROR:
            self.query_one("#settings-loading", Static).update(
                Text(f"The settings could not be read: {event.worker.error}", style="bold red"))
        if event.worker.group != "settings-test":
            return
        result = self.query_one("#test-result", Static)
        if event.state == WorkerState.SUCCESS:
            result.update(event.worker.result)
        elif event.state == WorkerState.ERROR:
            result.update(Text(f"the test failed: {event.worker.error}", style="bold red"))
