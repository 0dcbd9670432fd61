"""``tether sessions export ID --html FILE``: one self-contained page, rendered by a real
headless Chromium (Debian's ``chromium``, installed by .ci/run)."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from PIL import Image

from tether.ai import (
    AssistantMessage,
    TextContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from tether.session import ApprovalEntry, ModelChangeEntry, SessionStore

from .support import run_tether

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def chromium(*args: str, profile: str) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM is not None
    flags = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={profile}",
    ]
    return subprocess.run(
        [CHROMIUM, *flags, *args], capture_output=True, text=True, timeout=90, check=False
    )


def recorded_session(home, project):
    session = SessionStore(str(home / "sessions")).create(str(project))
    session.append_message(UserMessage("fix <the> bug & run it"))
    call = ToolCall(
        "c1",
        "edit",
        {
            "path": "stats.py",
            "edits": [{"old_text": "return total + 1", "new_text": "return total"}],
        },
    )
    session.append_message(
        AssistantMessage(
            [TextContent("Removing the stray + 1."), call],
            stop_reason="tool_use",
            usage=Usage(input=900, output=30, cost=0.0035),
        )
    )
    session.append(
        ApprovalEntry(
            tool_call_id="c1",
            tool_name="edit",
            digest="d" * 64,
            decision="allowed",
            decided_by="approver",
            reason="allow_once; asked because stats.py: a write needs a person in this mode",
        )
    )
    session.append_message(ToolResultMessage("c1", "edit", [TextContent("Edited stats.py")]))
    session.append(ModelChangeEntry(provider="anthropic", model="claude-sonnet-4-5"))
    session.append_message(
        AssistantMessage(
            [
                TextContent(
                    "**Fixed** and `verified`.\n\n- one <b>x</b>\n- ![t](http://x.test/p.png)"
                )
            ],
            provider="anthropic",
            model="claude-sonnet-4-5",
            usage=Usage(input=1200, output=345, cost=0.0125),
        )
    )
    session.close()
    return session


async def test_the_export_is_escaped_and_self_contained(tmp_path):
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    session = recorded_session(home, project)
    page = tmp_path / "session.html"
    done = await run_tether(
        "sessions", "export", session.id[:8], "--html", str(page), home=home, cwd=project
    )
    assert done.code == 0, done.stderr
    html = page.read_text(encoding="utf-8")
    assert "fix &lt;the&gt; bug &amp; run it" in html
    for loads_or_leads_out in ("<script", "<img", "<link", "<a ", "src=", "href=", "url("):
        assert loads_or_leads_out not in html
    assert "![t](http://x.test/p.png)" in html  # a Markdown image stays text
    assert "- return total + 1" in html and "+ return total" in html
    assert "allowed by a person (allow_once)" in html
    assert "asked because stats.py: a write needs a person in this mode" in html
    assert "&lt;b&gt;x&lt;/b&gt;" in html  # raw HTML in Markdown stays text
    assert "<img" not in html


@pytest.mark.skipif(
    CHROMIUM is None, reason="Debian's chromium is not installed (.ci/run installs it)"
)
async def test_the_export_renders_in_headless_chromium(tmp_path):
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    session = recorded_session(home, project)
    page = tmp_path / "session.html"
    done = await run_tether(
        "sessions", "export", session.id, "--html", str(page), home=home, cwd=project
    )
    assert done.code == 0, done.stderr
    dom = chromium("--dump-dom", page.as_uri(), profile=str(tmp_path / "profile-1"))
    assert "Removing the stray + 1." in dom.stdout
    assert "stats.py" in dom.stdout
    assert "<strong>Fixed</strong> and <code>verified</code>." in dom.stdout  # Markdown rendered
    assert "<li>one &lt;b&gt;x&lt;/b&gt;</li>" in dom.stdout
    assert "asked because stats.py: a write needs a person in this mode" in dom.stdout
    assert "anthropic/claude-sonnet-4-5" in dom.stdout
    assert "2,100 in · 375 out" in dom.stdout and "$0.0160" in dom.stdout  # the summary
    shot = tmp_path / "shot.png"
    chromium(
        f"--screenshot={shot}",
        "--window-size=1000,800",
        page.as_uri(),
        profile=str(tmp_path / "p2"),
    )
    image = Image.open(shot).convert("RGB")
    colours = image.getcolors(maxcolors=1_000_000)
    assert image.size == (1000, 800)
    assert colours is not None and len(colours) > 20  # text, boxes and colours: not a blank page


async def test_tokens_no_reply_reported_are_unknown_in_the_summary(tmp_path):
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    session = SessionStore(str(home / "sessions")).create(str(project))
    session.append_message(UserMessage("hi"))
    session.append_message(AssistantMessage([TextContent("hello")], provider="llamacpp", model="m"))
    session.close()
    page = tmp_path / "session.html"
    done = await run_tether(
        "sessions", "export", session.id, "--html", str(page), home=home, cwd=project
    )
    assert done.code == 0, done.stderr
    html = page.read_text(encoding="utf-8")
    assert "<td>tokens</td><td>unknown (the server reported no usage)</td>" in html
    assert "<td>cost</td><td>not reported by the provider</td>" in html
    assert "0 in · 0 out" not in html
