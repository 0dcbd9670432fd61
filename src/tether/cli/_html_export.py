"""A session as one self-contained HTML page: a summary (models, tokens, cost), messages with
the assistant's Markdown rendered, tool calls with their results (edit diffs coloured),
approvals with who decided and why a person was asked — no scripts, no outside resources
(Markdown images and raw HTML are not rendered), every value escaped."""

from __future__ import annotations

import html
import json
from functools import cache
from typing import TYPE_CHECKING, Any

from tether.ai import (
    AssistantMessage,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from tether.session import (
    ApprovalEntry,
    CompactionEntry,
    MessageEntry,
    ModelChangeEntry,
    Session,
)

from ._usage_tally import UsageTally

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

__all__ = ["session_html"]

_STYLE = """
body { font: 14px/1.45 system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; color: #1d1d1f;
       background: #fafafa; padding: 0 1rem; }
h1 { font-size: 1.3rem; } .meta { color: #666; font-size: 12px; }
.msg { border-radius: 8px; padding: .6rem .9rem; margin: .7rem 0; background: #fff;
       border: 1px solid #e3e3e3; }
.user { border-left: 4px solid #3a7bd5; } .assistant { border-left: 4px solid #6a4; }
.tool_result { border-left: 4px solid #999; } .error { border-left-color: #d33; }
.approval { border-left: 4px solid #e90; font-size: 13px; }
.role { font-weight: 600; font-size: 12px; text-transform: uppercase; color: #555; }
pre { white-space: pre-wrap; word-break: break-word; background: #f4f4f4; padding: .5rem;
      border-radius: 6px; margin: .4rem 0; font: 12.5px/1.4 ui-monospace, monospace; }
.call { background: #eef6ff; } .thinking { color: #777; font-style: italic; }
.add { color: #176a1e; } .del { color: #b3261e; }
.summary { font-size: 13px; } .summary td { padding: 0 1rem 0 0; }
.text p { margin: .35rem 0; } .text code { background: #f4f4f4; padding: 0 .2rem; }
.text table { border-collapse: collapse; } .text td, .text th { border: 1px solid #ddd;
       padding: .1rem .4rem; } .why { color: #555; }
"""

_DECIDERS = {
    "approver": "a person",
    "session": "a person's answer for this session",
    "reviewer": "the reviewer",
}


def session_html(session: Session) -> str:
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'>",
        f"<title>tether session {_e(session.id[:8])}</title><style>{_STYLE}</style></head><body>",
        f"<h1>tether session {_e(session.id[:8])}</h1>",
        f"<div class='meta'>{_e(session.cwd)} · started {_e(session.header.timestamp)}"
        f" · {len(session.entries)} entries</div>",
    ]
    path = session.path_to()
    parts.append(_summary(path))
    for entry in path:
        if isinstance(entry, MessageEntry):
            parts.append(_message(entry.message))
        elif isinstance(entry, ApprovalEntry):
            parts.append(_approval(entry))
        elif isinstance(entry, ModelChangeEntry):
            parts.append(f"<div class='meta'>model: {_e(entry.provider)}/{_e(entry.model)}</div>")
        elif isinstance(entry, CompactionEntry):
            parts.append(
                f"<div class='msg'><span class='role'>compaction</span>"
                f"<pre>{_e(entry.summary)}</pre></div>"
            )
    parts.append("</body></html>")
    return "\n".join(parts)


def _message(message: Any) -> str:
    if isinstance(message, UserMessage):
        return f"<div class='msg user'><span class='role'>user</span>{_user(message)}</div>"
    if isinstance(message, AssistantMessage):
        body = []
        for block in message.content:
            if isinstance(block, TextContent):
                body.append(f"<div class='text'>{_markdown().render(_text(block.text))}</div>")
            elif isinstance(block, ThinkingContent):
                shown = "(redacted thinking)" if block.redacted else block.thinking
                body.append(f"<pre class='thinking'>{_e(shown)}</pre>")
            elif isinstance(block, ToolCall):
                body.append(_call(block))
        failed = message.failed
        if failed:
            body.append(f"<div>{_e(message.stop_reason)}: {_e(message.error_message or '')}</div>")
        css = "assistant error" if failed else "assistant"
        return f"<div class='msg {css}'><span class='role'>assistant</span>{''.join(body)}</div>"
    if isinstance(message, ToolResultMessage):
        text = "".join(b.text for b in message.content if isinstance(b, TextContent))
        images = sum(isinstance(b, ImageContent) for b in message.content)
        note = f" ({images} image{'s' if images != 1 else ''})" if images else ""
        css = "tool_result error" if message.is_error else "tool_result"
        return (
            f"<div class='msg {css}'><span class='role'>result · {_e(message.tool_name)}"
            f"{note}</span><pre>{_e(text)}</pre></div>"
        )
    return ""


def _summary(path: list[Any]) -> str:
    """Models used, turns, tokens and cost over the messages on this branch."""
    models: list[str] = []
    turns = 0
    tally = UsageTally()
    for entry in path:
        if isinstance(entry, ModelChangeEntry):
            name = f"{entry.provider}/{entry.model}"
        elif isinstance(entry, MessageEntry) and isinstance(entry.message, AssistantMessage):
            message = entry.message
            turns += 1
            tally.add(message)
            name = f"{message.provider}/{message.model}" if message.model else ""
        else:
            continue
        if name and name not in models:
            models.append(name)
    rows = [
        ("model", ", ".join(models) or "not recorded"),
        ("assistant turns", f"{turns:,}"),
        ("tokens", tally.tokens_text(with_cache=False, between=" · ")),
    ]
    if tally.cache_read or tally.cache_write:
        rows.append(("cache", f"{tally.cache_read:,} read · {tally.cache_write:,} written"))
    cost = "not reported by the provider" if tally.unknown or not tally.cost else tally.cost_text()
    rows.append(("cost", cost))
    cells = "".join(f"<tr><td>{_e(k)}</td><td>{_e(v)}</td></tr>" for k, v in rows)
    return f"<div class='msg summary'><table>{cells}</table></div>"


def _approval(entry: ApprovalEntry) -> str:
    """Who decided and, for a person, why they were asked (the gate's reason after ``;``)."""
    decider = _DECIDERS.get(str(entry.decided_by), str(entry.decided_by))
    answer, _, asked = str(entry.reason).partition("; asked because ")
    head = f"<b>{_e(entry.tool_name)}</b> {_e(entry.decision)} by {_e(decider)}"
    if answer and answer != entry.decision:
        head += f" ({_e(answer)})"
    why = f"<div class='why'>asked because {_e(asked)}</div>" if asked else ""
    return (
        f"<div class='msg approval'><span class='role'>approval</span> {head}{why}"
        f"<div class='meta'>digest {_e(str(entry.digest)[:16])}</div></div>"
    )


@cache
def _markdown() -> MarkdownIt:
    """CommonMark with tables and strikethrough; raw HTML escaped, links and images left as
    written (the page loads nothing from outside and leads nowhere a model chose)."""
    from markdown_it import MarkdownIt

    parser = MarkdownIt("commonmark", {"html": False})
    return parser.enable(["table", "strikethrough"]).disable(["image", "link", "autolink"])


def _text(value: object) -> str:
    return value if isinstance(value, str) else str(value)


def _user(message: UserMessage) -> str:
    if isinstance(message.content, str):
        return f"<pre>{_e(message.content)}</pre>"
    shown = []
    for block in message.content:
        if isinstance(block, TextContent):
            shown.append(f"<pre>{_e(block.text)}</pre>")
        else:
            shown.append(f"<div>(image {_e(block.mime_type)})</div>")
    return "".join(shown)


def _call(call: ToolCall) -> str:
    head = f"<div><b>{_e(call.name)}</b></div>"
    edits = call.arguments.get("edits") if call.name == "edit" else None
    if isinstance(edits, list):
        lines = [f"{_e(str(call.arguments.get('path', '')))}"]
        for edit in edits:
            if isinstance(edit, dict):
                lines += [
                    f"<span class='del'>- {_e(line)}</span>"
                    for line in str(edit.get("old_text", "")).splitlines()
                ]
                lines += [
                    f"<span class='add'>+ {_e(line)}</span>"
                    for line in str(edit.get("new_text", "")).splitlines()
                ]
        return f"{head}<pre class='call'>{'<br>'.join(lines)}</pre>"
    arguments = json.dumps(call.arguments, indent=2, ensure_ascii=False)
    return f"{head}<pre class='call'>{_e(arguments)}</pre>"


def _e(text: object) -> str:
    """Escaped for HTML; a value of the wrong type in a hand-edited file is shown as written."""
    return html.escape(text if isinstance(text, str) else str(text), quote=True)
