"""The study file's connection keys (issue 19): checked with file:line, given to the gateway, and outside the
freeze except `structured`, which shapes the reply."""

from __future__ import annotations

import pytest

from tests.runner.studykit import create, study_text
from workbench.runs.settings import study_model_settings
from workbench.studies import StudyError, create_study, freeze_study
from workbench.studies.definition import parse_study_text


def with_model_keys(name: str, keys: str, judge_keys: str = "") -> str:
    text = study_text(name)
    text = text.replace("timeout = 20\n", f"timeout = 20\n{keys}\n")
    return text.replace('model = "mock"\n', f'model = "mock"\n{judge_keys}\n')


def test_the_keys_reach_the_models_settings(store):
    db, _, _ = store
    create(db, with_model_keys("ck1", 'api_key_env = "none"\nmax_connections = 1\nfirst_token_timeout = 300\n'
                                      'stall_timeout = 90\nstructured = "json_object"',
                               'max_connections = 2\nstructured = "none"'))
    from store.studies import get_study
    from workbench.judges.calls import JudgeSpec

    definition = get_study(db, "ck1")["definition"]
    s = study_model_settings(definition)
    assert (s.api_key_env, s.max_connections, s.first_token_timeout, s.stall_timeout, s.structured) == \
        ("none", 1, 300.0, 90.0, "json_object")
    judge = JudgeSpec.from_definition(definition["judges"][0]).settings()
    assert (judge.max_connections, judge.structured) == (2, "none")


def test_a_file_without_them_keeps_the_definition_it_had():
    definition = parse_study_text(study_text("ck2"))
    assert not {"api_key_env", "max_connections", "structured"} & set(definition["model"])


@pytest.mark.parametrize("line,key,why", [
    ("max_connections = 0", "model.max_connections", "whole number from 1"),
    ('api_key_env = "not a name"', "model.api_key_env", "environment variable"),
    ('structured = "yaml"', "model.structured", "json_schema, json_object, none"),
    ("stall_timeout = -1", "model.stall_timeout", "seconds above 0"),
])
def test_a_bad_value_names_the_file_line_and_key(store, line, key, why):
    db, _, _ = store
    with pytest.raises(StudyError) as info:
        create_study(db, text=with_model_keys("ck3", line), name="bad.toml")
    text = str(info.value)
    assert f"bad.toml:" in text and key in text and why in text


def test_a_frozen_study_may_change_its_connections_but_not_its_structured_mode(store):
    db, _, _ = store
    create(db, with_model_keys("ck4", "max_connections = 4"))
    frozen = freeze_study(db, "ck4")["freeze_hash"]
    result = create_study(db, text=with_model_keys("ck4", "max_connections = 1\nfirst_token_timeout = 600"),
                          name="test.toml")
    assert result["action"] == "updated" and freeze_study(db, "ck4")["freeze_hash"] == frozen
    with pytest.raises(StudyError, match="structured"):
        create_study(db, text=with_model_keys("ck4", 'max_connections = 1\nstructured = "none"'), name="test.toml")
