"""The interactive status line names where the tools run, and keeps it when the line is narrow."""

from __future__ import annotations

from tether.ai.faux import FauxModel
from tether.cli._terminal_status import status_line
from tether.cli._terminal_style import Styler
from tether.remote import RemoteTarget
from tether.runtime import RunSettings, build_runtime


def runtime_for(tmp_path):
    faux = FauxModel([])
    settings = RunSettings(cwd=str(tmp_path), no_session=True)
    return build_runtime(settings, None, model=faux.model, stream_fn=faux.stream)


def line(runtime, width: int) -> str:
    return status_line(runtime, Styler(plain=True, width=lambda: width), width)


def test_a_remote_host_is_always_shown_and_a_local_run_says_so_while_there_is_room(tmp_path):
    runtime = runtime_for(tmp_path)
    assert "tools here" in line(runtime, 200)
    runtime.remote = RemoteTarget("127.0.0.1", "dev", 2222, "/srv/app")
    for width in (200, 80, 40):
        assert "tools on dev@127.0.0.1:2222" in line(runtime, width)
    assert "/srv/app" not in line(runtime, 200)


def test_a_remote_target_names_its_address_and_directory():
    target = RemoteTarget("build-box", "root", 2222, "/home/root/project")
    assert target.address == "root@build-box:2222"
    assert str(target) == "root@build-box:2222:/home/root/project"
    assert str(RemoteTarget("build-box")) == "build-box"


async def test_context_use_follows_a_compaction_before_the_next_response(tmp_path):
    from tether.ai import AssistantMessage, TextContent, Usage, UserMessage
    from tether.ai.faux import faux_text
    from tether.cli._terminal_status import context_percent

    faux = FauxModel([faux_text("short summary")])
    settings = RunSettings(cwd=str(tmp_path), no_session=True)
    runtime = build_runtime(settings, None, model=faux.model, stream_fn=faux.stream)
    window = runtime.model.context_window
    big = "x" * (window * 2)  # ≈ half the window in the estimate (4 characters a token)
    runtime.agent.state.messages = [
        UserMessage(big),
        AssistantMessage([TextContent("ok")], usage=Usage(input=window // 2, output=10)),
        UserMessage("and now?"),
        AssistantMessage([TextContent("fine")], usage=Usage(input=window // 2 + 20, output=5)),
    ]
    before = context_percent(runtime)
    assert before == round(100 * (window // 2 + 25) / window)
    outcome = await runtime.compact()
    assert outcome.compacted and outcome.tokens_after < outcome.tokens_before
    after = context_percent(runtime)
    expected = runtime.compactor.context_tokens(list(runtime.agent.state.messages))
    assert after == round(100 * expected / window) and after < before


def test_loaded_skills_are_counted_once_there_are_any(tmp_path, monkeypatch):
    from tests.skills.support import write_skill

    monkeypatch.setenv("TETHER_HOME", str(tmp_path / "th"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    write_skill(tmp_path / "th" / "skills", "one")
    write_skill(tmp_path / "th" / "skills", "two")
    runtime = runtime_for(tmp_path)
    assert runtime.skills is not None
    assert "skill" not in line(runtime, 200)
    runtime.skills.activate("one")
    assert "1 skill loaded" in line(runtime, 200)
    runtime.skills.activate("two")
    assert "2 skills loaded" in line(runtime, 200)


def test_the_status_line_says_which_guards_are_on(tmp_path, monkeypatch):
    from tether.tools.operations._sandbox import BubblewrapSandbox

    monkeypatch.setattr(BubblewrapSandbox, "available", staticmethod(lambda: False))
    runtime = runtime_for(tmp_path)
    assert "sandbox off, no jail: proof alone" in line(runtime, 200)
    assert "no jail: proof alone" in line(runtime, 60)
    monkeypatch.setattr(BubblewrapSandbox, "available", staticmethod(lambda: True))
    settings = RunSettings(cwd=str(tmp_path), no_session=True, sandbox=False)
    faux = FauxModel([])
    jailed = build_runtime(settings, None, model=faux.model, stream_fn=faux.stream)
    assert "sandbox off, jail on" in line(jailed, 200)


def test_tokens_no_reply_reported_are_unknown_and_partly_reported_ones_are_a_floor(tmp_path):
    from tether.ai import AssistantMessage, TextContent, Usage

    runtime = runtime_for(tmp_path)
    runtime.agent.state.messages.append(AssistantMessage([TextContent("a")]))
    shown = line(runtime, 200)
    assert "tokens unknown" in shown and "cost unknown" in shown and "ctx ?" in shown
    assert "↑0" not in shown
    reported = AssistantMessage([TextContent("b")], usage=Usage(input=1500, output=40))
    runtime.agent.state.messages.append(reported)
    shown = line(runtime, 200)
    assert "↑1.5k+ ↓40+" in shown and "$0.000+" in shown
