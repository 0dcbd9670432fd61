"""The interactive status line names where the tools run, and keeps it when the line is narrow."""

from __future__ import annotations

from tether.ai.faux import FauxModel
from tether.cli._runtime import RunSettings, build_runtime
from tether.cli._terminal_status import status_line, tools_host
from tether.cli._terminal_style import Styler


def runtime_for(tmp_path):
    faux = FauxModel([])
    settings = RunSettings(cwd=str(tmp_path), no_session=True)
    return build_runtime(settings, None, model=faux.model, stream_fn=faux.stream)


def line(runtime, width: int) -> str:
    return status_line(runtime, Styler(plain=True, width=lambda: width), width)


def test_a_remote_host_is_always_shown_and_a_local_run_says_so_while_there_is_room(tmp_path):
    runtime = runtime_for(tmp_path)
    assert "tools here" in line(runtime, 200)
    runtime.remote = "dev@127.0.0.1:2222:/srv/app"
    for width in (200, 80, 40):
        assert "tools on dev@127.0.0.1:2222" in line(runtime, width)
    assert "/srv/app" not in line(runtime, 200)


def test_the_host_is_cut_from_the_remote_spec():
    assert tools_host("root@build-box:22:/home/root/project") == "root@build-box:22"
    assert tools_host("build-box") == "build-box"


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
