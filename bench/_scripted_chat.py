"""A scripted OpenAI Chat Completions server for ``bench/counterparts.sh``: it stands in for the
model when the counterpart under test is an MCP server or host, not a model.

    python bench/_scripted_chat.py PORT LOG

The requested model id names the tool to call (``mcp__fs__read_text_file``); the arguments are
``script_args`` from the request body (a ``models.toml`` ``extra_body``), else a default for
``read`` and ``bash``. Once the transcript holds a tool result it answers with that result's
text (``result: ...``) and stops, so a run always ends; model ``text`` answers ``hello``. Each
request is appended to LOG as one JSON line (model, offered tools, messages after the system).
Standard library only; never imported by tether or its tests.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

DEFAULT_ARGS = {
    "read": {"path": "notes.txt"},
    "bash": {"command": "sleep 75; echo done after 75 s"},
}


def chunks(body: dict[str, Any]) -> Iterator[dict[str, Any]]:
    messages = body["messages"]
    base = {"id": "s1", "object": "chat.completion.chunk", "created": 0, "model": body["model"]}
    results = [m for m in messages if m["role"] == "tool"]
    if results or not body.get("tools") or body["model"] == "text":
        text = "hello"
        if results:
            content = results[-1].get("content")
            if isinstance(content, list):
                content = " ".join(p.get("text", f"<{p.get('type')}>") for p in content)
            text = f"result: {str(content)[:300]}"
        yield {**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": text}}]}
        yield {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
        return
    tool = body["model"]
    args = body.get("script_args", DEFAULT_ARGS.get(tool.rsplit("__", 1)[-1], {}))
    call = {
        "index": 0,
        "id": "call_1",
        "type": "function",
        "function": {"name": tool, "arguments": json.dumps(args)},
    }
    yield {**base, "choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [call]}}]}
    yield {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}


class Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        offered = [t["function"]["name"] for t in body.get("tools", [])]
        record = {"model": body["model"], "tools": offered, "messages": body["messages"][1:]}
        with open(sys.argv[2], "a", encoding="utf-8") as log:
            log.write(json.dumps(record) + "\n")
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.end_headers()
        for chunk in chunks(body):
            self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
        self.wfile.write(b"data: [DONE]\n\n")

    def log_message(self, *args: Any) -> None:
        pass


if __name__ == "__main__":
    ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
