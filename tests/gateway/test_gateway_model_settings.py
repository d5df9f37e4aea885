"""Settings per role and the gateway limits: stored, validated with the field named, applied by build_gateway."""

from __future__ import annotations

import asyncio

import pytest

from store.calls import calls_for
from workbench.gateway import CallRequest, ModelSettings, build_gateway
from workbench.gateway.limits import ModelLimits
from workbench.gateway.settings import (
    GatewaySettings,
    SettingsError,
    form_values,
    load_settings,
    role_settings,
    save_settings,
    settings_from_form,
)


def form(**overrides):
    settings = GatewaySettings()
    roles = {r: form_values(settings.role(r)) for r in ("architecture", "judge", "probe")}
    roles["classifier"] = form_values(None)
    gateway = {"concurrency": "8", "cost_ceiling_default": "", "stall_timeout": "60", "max_attempts": "6",
               "max_retry_time": "300"}
    for key, value in overrides.items():
        where, name = key.split("__")
        (gateway if where == "gw" else roles[where])[name] = value
    return roles, gateway


def test_defaults_are_offline_and_round_trip(db):
    settings = load_settings(db)
    assert {settings.role(r).model for r in ("architecture", "judge", "probe", "classifier")} == {"mock"}
    settings.roles["probe"] = ModelSettings(model="openai/gpt-4o-mini", temperature=0.0, api_key_env="MY_KEY")
    settings.limits = {"openai/gpt-4o-mini": ModelLimits(rpm=30, tpm=None)}
    settings.cost_ceiling_default = 4.0
    save_settings(db, settings)
    again = load_settings(db)
    assert again.to_dict() == settings.to_dict()
    assert role_settings(db, "probe").api_key_env == "MY_KEY"
    # No classifier of its own: the probe model classifies, at temperature 0.
    assert role_settings(db, "classifier").model == "openai/gpt-4o-mini"


@pytest.mark.parametrize("override, message", [
    ({"probe__temperature": "hot"}, "probe.temperature: 'hot' is not a number"),
    ({"probe__temperature": "3"}, "probe.temperature: must be between 0 and 2"),
    ({"judge__model": ""}, "judge.model: is required"),
    ({"architecture__max_tokens": "1.5"}, "architecture.max_tokens: '1.5' is not a whole number"),
    ({"probe__api_key_env": "not a name"}, "probe.api_key_env: must name an environment variable"),
    ({"probe__max_connections": "0"}, "probe.max_connections: must be a whole number from 1 to 1024"),
    ({"probe__max_connections": "two"}, "probe.max_connections: 'two' is not a whole number"),
    ({"judge__first_token_timeout": "-5"}, "judge.first_token_timeout: must be a number of seconds above 0"),
    ({"judge__structured": "xml"}, "judge.structured: must be one of json_schema, json_object, none"),
    ({"classifier__seed": "3"}, "classifier.seed: set without a classifier model"),
    ({"gw__concurrency": "0"}, "concurrency: must be a whole number of at least 1"),
    ({"gw__cost_ceiling_default": "-1"}, "cost_ceiling_default: must be a positive number"),
])
def test_form_errors_name_the_field(override, message):
    roles, gateway = form(**override)
    with pytest.raises(SettingsError, match=message.replace("(", r"\(").replace(")", r"\)")):
        settings_from_form(roles, gateway, {})


def test_form_limits_and_classifier():
    roles, gateway = form(classifier__model="openai/gpt-4o-mini", classifier__temperature="0",
                          classifier__max_tokens="100", classifier__timeout="20")
    settings = settings_from_form(roles, gateway, {"m1": ("10", ""), "m2": ("", "")})
    assert settings.classifier.model == "openai/gpt-4o-mini" and settings.classifier.max_tokens == 100
    assert settings.limits == {"m1": ModelLimits(rpm=10, tpm=None)}  # an empty limit is no limit
    with pytest.raises(SettingsError, match="limits.m1.rpm"):
        settings_from_form(roles, gateway, {"m1": ("ten", "")})


def test_a_roles_connection_keys_are_settings_like_a_study_files():
    """What a study's [model] may say about reaching a server (a keyless local server, one slot, its timers,
    how it takes a schema), a role in the settings may say too, with the same rules."""
    roles, gateway = form(probe__api_key_env="none", probe__max_connections="1", probe__first_token_timeout="300",
                          probe__stall_timeout="90", probe__structured="json_object")
    probe = settings_from_form(roles, gateway, {}).roles["probe"]
    assert (probe.api_key_env, probe.max_connections, probe.first_token_timeout, probe.stall_timeout,
            probe.structured) == ("none", 1, 300.0, 90.0, "json_object")
    assert form_values(probe)["max_connections"] == "1" and form_values(probe)["first_token_timeout"] == "300"


def test_a_new_classifier_takes_the_classifiers_defaults_for_what_it_leaves_empty():
    roles, gateway = form(classifier__model="openai/other")
    classifier = settings_from_form(roles, gateway, {}).classifier
    assert (classifier.model, classifier.temperature, classifier.max_tokens) == ("openai/other", 0.0, 300)


async def test_build_gateway_applies_stored_limits(db, db_path, loopback_server):
    settings = load_settings(db)
    settings.concurrency = 1
    save_settings(db, settings)
    gateway = build_gateway(db, db_path)
    assert gateway.config.concurrency == 1
    loopback_server.latency = 0.1
    remote = ModelSettings(model="openai/x", api_base=loopback_server.url, timeout=5.0)
    await asyncio.gather(*(gateway.call(CallRequest(messages=[{"role": "user", "content": str(i)}],
                                                    settings=remote)) for i in range(3)))
    assert loopback_server.max_in_flight == 1


async def test_a_cancelled_call_is_on_record(db, make_gateway, remote, loopback_server):
    loopback_server.latency = 3.0
    task = asyncio.create_task(make_gateway().call(CallRequest(messages=[{"role": "user", "content": "slow"}],
                                                               settings=remote)))
    await asyncio.sleep(0.5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    [row] = calls_for(db)
    assert row["status"] == "cancelled" and row["error"] == "cancelled by the caller"
