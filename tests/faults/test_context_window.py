"""Context windows known before the first call (issue 34, finding 2)."""

from __future__ import annotations

import asyncio

import pytest

from tests.faults.window_server import WindowServer, fresh_windows  # noqa: F401  (the fixture)
from tests.hardening.conftest import batch, study_toml
from tests.support.loopback import LoopbackServer
from workbench.gateway import ContextOverflow, build_gateway
from workbench.gateway.api import CallRequest, ModelSettings
from workbench.gateway import context_window


pytestmark = pytest.mark.usefixtures("fresh_windows")


@pytest.mark.parametrize("kind, source", [("llama.cpp", "/props (llama.cpp)"),
                                          ("vllm", "max_model_len (vLLM)"),
                                          ("llama-cpp-python", "refusal of an oversized request")])
def test_each_kind_of_server_tells_its_window_without_a_generation(kind, source):
    with WindowServer(kind, n_ctx=2048) as server:
        window = context_window.window_of(ModelSettings(model="openai/local", api_base=server.url))
        assert window is not None and window.tokens == 2048 and source in window.source
        assert server.generations == 0
        if kind == "llama-cpp-python":  # one oversized request, max_tokens 1, refused before evaluating
            [probe] = server.chat_bodies
            assert probe["max_tokens"] == 1 and probe["prompt_words"] >= context_window.PROBE_TOKENS
            assert server.refused == 1
        else:
            assert server.chat_bodies == []


def test_a_server_that_reports_nothing_is_never_sent_the_oversized_request():
    with LoopbackServer() as server:
        assert context_window.window_of(ModelSettings(model="openai/local", api_base=server.url)) is None
        assert server.count == 0


def test_a_silent_server_is_asked_once_however_many_judges_share_it(monkeypatch):
    asked: list[str] = []
    monkeypatch.setattr(context_window, "_from_server", lambda s: asked.append(s.api_base))
    panel = [ModelSettings(model="openai/local", api_base=url) for url in ("http://a/v1", "http://a/v1/", "http://b/v1")]
    assert [context_window.window_of(s) for s in panel * 2] == [None] * 6
    assert asked == ["http://a/v1", "http://b/v1"]
    context_window.forget()  # a new process asks again
    assert context_window.window_of(panel[0]) is None and len(asked) == 3


def test_litellm_model_info_gives_a_hosted_models_window():
    window = context_window.window_of(ModelSettings(model="gpt-4"))
    assert window.tokens == 8192 and window.source == "litellm's model info"
    assert context_window.window_of(ModelSettings(model="mock")) is None


def local_study(tmp_path, url: str, *, max_tokens: int, conditions=("B1",)) -> str:
    text = study_toml(conditions).replace('name = "mock"\napi_base = ""',
                                          f'name = "openai/local"\napi_base = "{url}"', 1)
    text = text.replace("max_tokens = 1024", f"max_tokens = {max_tokens}")
    path = tmp_path / "local.toml"
    path.write_text(text)
    return str(path)


def test_study_create_refuses_a_program_that_cannot_fit_before_any_call(tmp_path, cases_dir, capsys):
    db = tmp_path / "s.db"
    with WindowServer("llama-cpp-python", n_ctx=2048) as server:
        path = local_study(tmp_path, server.url, max_tokens=2000)
        code, _, err = batch(capsys, db, "study", "create", path)
        assert code == 1, err
        assert "openai/local at " in err and "context window of 2,048 tokens" in err
        assert "max_tokens 2,000" in err and "--n_ctx" in err and "fewer rounds" in err
        assert server.generations == 0


def test_a_committee_that_may_outgrow_the_window_is_warned_of_at_create_and_run(tmp_path, cases_dir, capsys):
    """C2's later rounds carry the earlier replies: with replies at max_tokens they outgrow the window."""
    db = tmp_path / "s.db"
    with WindowServer("llama.cpp", n_ctx=6000) as server:
        path = local_study(tmp_path, server.url, max_tokens=1500, conditions=("B1", "C2"))
        code, out, err = batch(capsys, db, "study", "create", path)
        assert code == 0, err
        assert "warning: openai/local" in err and "condition C2's largest prompt" in err
        assert "may not fit once the replies run to max_tokens" in err and "6,000 tokens" in err
        assert "condition B1" not in err
        assert server.generations == 0


def test_run_refuses_when_the_server_was_restarted_with_a_smaller_window(tmp_path, cases_dir, capsys):
    db = tmp_path / "s.db"
    with WindowServer("vllm", n_ctx=8192) as server:
        path = local_study(tmp_path, server.url, max_tokens=2000)
        assert batch(capsys, db, "study", "create", path)[0] == 0
        server.n_ctx = 1024
        context_window.forget()  # a new process: the window is asked again
        code, _, err = batch(capsys, db, "run", "hardening-mock")
        assert code == 1 and "cannot run" in err and "context window of 1,024 tokens" in err
        assert server.generations == 0


def test_an_overflow_stops_the_endpoints_other_calls_with_the_same_message(tmp_path):
    from store import open_store

    db = open_store(tmp_path / "g.db")
    with WindowServer("llama-cpp-python", n_ctx=50) as server:
        gateway = build_gateway(db, tmp_path / "g.db")
        settings = ModelSettings(model="openai/local", api_base=server.url, max_tokens=10)

        async def both():
            big = CallRequest(messages=[{"role": "user", "content": "word " * 80}], settings=settings)
            small = CallRequest(messages=[{"role": "user", "content": "hello"}], settings=settings)
            with pytest.raises(ContextOverflow) as first:
                await gateway.call(big)
            with pytest.raises(ContextOverflow) as second:
                await gateway.call(small)
            return str(first.value), str(second.value)

        first, second = asyncio.run(both())
        assert first == second and "context window of 50 tokens" in first and "--n_ctx" in first
        assert "other runs are stopped" in first
        assert server.refused == 1 and server.generations == 0  # never retried, the second never sent
        assert context_window.learned[("openai/local", server.url)].tokens == 50


def test_a_turn_cut_by_the_window_is_marked_apart_from_max_tokens_and_never_continued(tmp_path):
    from store import open_store
    from workbench.events import TURN_FINISHED, ListSink
    from workbench.runs.context import RunContext

    db = open_store(tmp_path / "g.db")
    with WindowServer("llama-cpp-python", n_ctx=100, reply_words=60) as server:
        gateway = build_gateway(db, tmp_path / "g.db")
        settings = ModelSettings(model="openai/local", api_base=server.url, max_tokens=60)
        sink = ListSink()
        ctx = RunContext(gateway=gateway, sink=sink, settings=settings, item="", options={},
                         definition={"model": {"on_truncation": "continue"}})

        async def turns():
            await ctx.turn("t1", "a", [{"role": "user", "content": "word " * 70}], phase="p", label="window")
            await ctx.turn("t2", "a", [{"role": "user", "content": "word " * 5}], phase="p", label="room")

        asyncio.run(turns())
        finished = [e.payload for e in sink.events if e.kind == TURN_FINISHED]
        assert [(p["truncated"], p["cut_by"]) for p in finished] == [(True, "window"), (False, None)]
        assert server.generations == 2  # the window-cut reply was not continued
        assert ctx.was_cut("t1")
    from workbench.runs.truncation import cut_by

    assert cut_by("length", 60, 60) == "max_tokens" and cut_by("length", 30, 60) == "window"
    assert cut_by("stop", 3, 60) is None
