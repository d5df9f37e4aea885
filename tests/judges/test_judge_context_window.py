"""A judge's prompt held against its model's context window, as a condition's is (issue 34's last gap):
refused at `study create` when the rubric and the case alone cannot fit, warned of when a response as long
as the study model's max_tokens may not, and checked again by `judge` on the responses themselves, before
any call. The window comes from a loopback llama.cpp server's /props; a word is a token there, and the
workbench's estimate (four characters a token) is larger, so what the estimate refuses the server would too.

Sizes of the shipped Glenda/Crock case (its own rubric is the largest): the direct judge's prompt with no
response is about 2,200 estimated tokens; with the judge's max_tokens (512) that is 2,713, and with a
response of the study model's max_tokens (1,024) 3,737."""

from __future__ import annotations

import pytest

from store import open_store
from store import verdicts as verdict_rows
from tests.faults.window_server import WindowServer, fresh_windows  # noqa: F401  (the fixture)
from tests.hardening.conftest import STUDY, batch, cases_dir, study_toml  # noqa: F401  (cases_dir: the fixture)
from workbench.gateway import context_window
from workbench.judges.calls import JudgeItem, JudgeSpec
from workbench.judges.context_fit import prompt_size


pytestmark = pytest.mark.usefixtures("fresh_windows")


def judged_study(tmp_path, url: str, pipeline: str = "direct") -> str:
    """The mock B1 study whose one judge is a local model at `url` with max_tokens 512."""
    text = study_toml(("B1",))
    judge = 'name = "judge-a"\nmodel = "mock"\ntemperature = 0.0\npipeline = "direct"'
    assert judge in text
    text = text.replace(judge, f'name = "judge-a"\nmodel = "openai/local"\napi_base = "{url}"\nmax_tokens = 512\n'
                               f'temperature = 0.0\npipeline = "{pipeline}"')
    path = tmp_path / "judged.toml"
    path.write_text(text)
    return str(path)


def test_create_refuses_a_judge_whose_rubric_and_case_alone_cannot_fit(tmp_path, cases_dir, capsys):
    db = tmp_path / "s.db"
    with WindowServer("llama.cpp", n_ctx=2048) as server:
        path = judged_study(tmp_path, server.url)
        code, _, err = batch(capsys, db, "study", "create", path)
        assert code == 1, err
        line = next(n for n, text in enumerate(open(path).read().splitlines(), start=1)
                    if text == 'model = "openai/local"')
        assert f"{path}:{line}: judges[0].model:" in err
        assert f"openai/local at {server.url}: judge judge-a's largest prompt (judge/glenda-crock, case " \
               "'glenda-crock') cannot fit" in err
        assert "max_tokens 512" in err and "context window of 2,048 tokens" in err and "--per-criterion" in err
        assert "condition" not in err
        assert server.generations == 0 and server.chat_bodies == []
    assert open_store(db)["studies"].count == 0  # nothing stored


def test_create_warns_when_a_response_of_max_tokens_may_not_fit(tmp_path, cases_dir, capsys):
    db = tmp_path / "s.db"
    with WindowServer("llama.cpp", n_ctx=3000) as server:
        code, _, err = batch(capsys, db, "study", "create", judged_study(tmp_path, server.url))
        assert code == 0, err
        assert "warning: openai/local" in err and "judge judge-a's largest prompt" in err
        assert "may not fit once the responses it scores and its debate run to max_tokens" in err
        assert "3,000 tokens" in err
        assert server.generations == 0


def test_a_window_large_enough_says_nothing(tmp_path, cases_dir, capsys):
    with WindowServer("llama.cpp", n_ctx=8192) as server:
        code, _, err = batch(capsys, tmp_path / "s.db", "study", "create", judged_study(tmp_path, server.url))
        assert code == 0 and "judge-a" not in err, err


def test_judge_refuses_before_any_call_when_the_server_came_back_smaller(tmp_path, cases_dir, capsys):
    db = tmp_path / "s.db"
    with WindowServer("llama.cpp", n_ctx=8192) as server:
        assert batch(capsys, db, "study", "create", judged_study(tmp_path, server.url))[0] == 0
        assert batch(capsys, db, "run", STUDY)[0] == 0
        server.n_ctx = 2048
        context_window.forget()  # a new process: the window is asked again
        code, _, err = batch(capsys, db, "judge", STUDY)
        assert code == 1, err
        assert f"study '{STUDY}' cannot be judged: openai/local at {server.url}: judge judge-a's largest prompt" in err
        assert "cannot fit" in err and "context window of 2,048 tokens" in err
        assert server.generations == 0 and server.chat_bodies == []
    assert verdict_rows.verdict_rows(open_store(db), STUDY, "judge-a") == []


def test_judge_measures_the_responses_themselves_not_the_bound(tmp_path, cases_dir, capsys):
    """3,200 tokens: create warns (a response of 1,024 tokens would not fit), but the responses (the mock's
    and the pilots', about 320 tokens at the most) are shorter, so `judge` goes ahead and asks the server."""
    db = tmp_path / "s.db"
    with WindowServer("llama.cpp", n_ctx=3200) as server:
        code, _, err = batch(capsys, db, "study", "create", judged_study(tmp_path, server.url))
        assert code == 0 and "judge judge-a's largest prompt" in err and "may not fit" in err
        assert batch(capsys, db, "run", STUDY)[0] == 0
        code, _, err = batch(capsys, db, "judge", STUDY)
        assert "cannot be judged" not in err and "may not fit" not in err
        assert server.generations > 0


def test_an_adversarial_judge_counts_its_debate():
    """The Judge stage carries the Critic's and the Defender's replies, the MetaJudge also the Judge's scores:
    with replies of max_tokens, 2 and 3 of them; the direct judge carries none."""
    item = JudgeItem(id="x", scenario="S " * 400, outcome="O " * 200, response="R " * 300)
    from tests.blinding.study_fixture import ANTICIPATION
    from workbench.rubrics import parse_rubric

    rubric = parse_rubric(ANTICIPATION)
    direct = prompt_size(JudgeSpec(name="d", model="openai/x", api_base="http://h", max_tokens=700), item, rubric)
    adversarial = prompt_size(JudgeSpec(name="a", model="openai/x", api_base="http://h", max_tokens=700,
                                        pipeline="adversarial"), item, rubric)
    assert direct.short_replies == direct.full_replies
    assert adversarial.full_replies - adversarial.short_replies >= 2 * 700
    assert abs(adversarial.short_replies - direct.short_replies) < 150  # the same documents, other instructions
    # the response is counted at four characters a token, as the gateway estimates: 400 characters more
    longer = prompt_size(JudgeSpec(name="d", model="openai/x", api_base="http://h", max_tokens=700),
                         JudgeItem(id="x", scenario=item.scenario, outcome=item.outcome, response="R " * 500), rubric)
    assert longer.short_replies - direct.short_replies in (99, 100, 101)


def test_create_warns_of_a_judge_whose_max_tokens_is_short_of_its_rubrics_reply(tmp_path, cases_dir, capsys):
    """Issue 40: a 200-token judge of a three-criterion rubric had two of six replies cut; `create` says so
    (3 criteria x 90 tokens = 270), and says nothing of the one-criterion rubrics it can answer."""
    path = tmp_path / "short.toml"
    with WindowServer("llama.cpp", n_ctx=8192) as server:
        path.write_text(open(judged_study(tmp_path, server.url)).read().replace("max_tokens = 512", "max_tokens = 200"))
        code, _, err = batch(capsys, tmp_path / "s.db", "study", "create", str(path))
    assert code == 0, err
    warned = [line for line in err.splitlines() if "is below what rubric" in line]
    assert len(warned) == 1 and "judge 'judge-a': max_tokens 200" in warned[0]
    assert "rubric 'glenda-crock' needs for its reply (3 criteria x about 90 tokens" in warned[0]
    assert "raise the judge's max_tokens to 270 or more" in warned[0] and "--per-criterion" in warned[0]
