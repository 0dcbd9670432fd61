"""``tether mcp serve --transport http`` takes only requests with its bearer token: the real
executable on loopback, the SDK's own client, and (as root) another local user."""

from __future__ import annotations

import json
import os
import pwd
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
from tests.mcp.http_serve import TETHER, HttpServer, Statuses, sdk_client, serve_http

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"},
    },
}
CALL_BASH = {
    "jsonrpc": "2.0",
    "id": 2,
    "method": "tools/call",
    "params": {"name": "bash", "arguments": {"command": "touch pwned"}},
}


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "workspace"
    path.mkdir()
    (path / "notes.txt").write_text("alpha\n", encoding="utf-8")
    return path


def _args(workspace: Path, *extra: str) -> list[str]:
    return ["--cwd", str(workspace), "--tools", "read,bash", "--no-sandbox", *extra]


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


async def _refused(server: HttpServer, token: str | None) -> list[int]:
    """What the SDK's client sees when it connects with ``token``: it fails, and every
    response it got was a 401."""
    statuses = Statuses()
    with pytest.raises(BaseException) as raised:
        async with sdk_client(server.url, token, statuses) as client:
            await client.call_tool("read", {"path": "notes.txt"})
    assert not isinstance(raised.value, AssertionError)
    return statuses.seen


async def test_no_token_is_401_with_a_bearer_challenge(workspace, tmp_path):
    async with serve_http(tmp_path / "home", *_args(workspace)) as server:
        assert set(await _refused(server, None)) == {401}
        async with httpx2.AsyncClient() as http:
            response = await http.post(server.url, json=INITIALIZE)
        assert response.status_code == 401
        assert response.headers["www-authenticate"].startswith("Bearer ")
        assert "error=" not in response.headers["www-authenticate"]


async def test_a_wrong_token_is_401(workspace, tmp_path):
    async with serve_http(tmp_path / "home", *_args(workspace)) as server:
        wrong = server.token()[:-1] + ("A" if server.token()[-1] != "A" else "B")
        assert set(await _refused(server, wrong)) == {401}
        async with httpx2.AsyncClient() as http:
            for header in (f"Basic {server.token()}", f"Bearer {server.token()}x", "Bearer"):
                response = await http.post(
                    server.url, json=INITIALIZE, headers={"Authorization": header}
                )
                assert response.status_code == 401, header
                assert response.headers["www-authenticate"].startswith("Bearer ")
        assert not (workspace / "pwned").exists()


async def test_the_token_from_its_0600_file_calls_a_tool(workspace, tmp_path):
    home = tmp_path / "home"
    async with serve_http(home, *_args(workspace)) as server:
        assert _mode(server.token_path) == 0o600
        assert _mode(home) == 0o700
        token = server.token()
        assert len(token) >= 40
        assert str(server.token_path) in server.stderr
        assert token not in server.stderr
        statuses = Statuses()
        async with sdk_client(server.url, token, statuses) as client:
            result = await client.call_tool("read", {"path": "notes.txt"})
        assert not result.is_error
        assert "alpha" in "".join(getattr(block, "text", "") for block in result.content)
        assert 401 not in statuses.seen
    async with serve_http(home, *_args(workspace)) as again:
        assert again.token() != token, "a new token at every start"


async def test_a_token_file_gives_the_token(workspace, tmp_path):
    token_file = tmp_path / "token"
    token_file.write_text("  my-own-token_0123456789abcdef \n", encoding="utf-8")
    token_file.chmod(0o600)
    home = tmp_path / "home"
    async with serve_http(home, *_args(workspace, "--token-file", str(token_file))) as server:
        assert server.token() == "my-own-token_0123456789abcdef"
        assert _mode(server.token_path) == 0o600
        assert "warning" not in server.stderr
        async with sdk_client(server.url, "my-own-token_0123456789abcdef") as client:
            result = await client.call_tool("read", {"path": "notes.txt"})
        assert not result.is_error
        assert set(await _refused(server, "my-own-token_0123456789abcdeg")) == {401}


async def test_a_token_file_other_users_may_read_is_used_with_a_warning(workspace, tmp_path):
    token_file = tmp_path / "token"
    token_file.write_text("shared-token-0123456789\n", encoding="utf-8")
    token_file.chmod(0o644)
    async with serve_http(
        tmp_path / "home", *_args(workspace, "--token-file", str(token_file))
    ) as server:
        assert f"{token_file} is readable by other users: chmod 600" in server.stderr
        assert server.token() == "shared-token-0123456789"


@pytest.mark.parametrize(
    ("content", "transport", "message"),
    [
        ("two words\n", "http", "a token is one word"),
        (None, "http", "No such file or directory"),
        ("fine-token\n", "stdio", "--token-file is for --transport http"),
    ],
)
def test_an_unusable_token_file_is_refused(workspace, tmp_path, content, transport, message):
    token_file = tmp_path / "token"
    if content is not None:
        token_file.write_text(content, encoding="utf-8")
    completed = subprocess.run(
        [TETHER, "mcp", "serve", "--transport", transport, "--token-file", str(token_file)],
        check=False,
        env={**os.environ, "TETHER_HOME": str(tmp_path / "home")},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert completed.returncode != 0
    assert message in completed.stderr
    assert not (tmp_path / "home" / "mcp-token").exists()


def _nobody_available() -> str | None:
    """Why the other-user test cannot run here, or ``None``."""
    if os.geteuid() != 0:
        return "needs root to run a command as another user (nobody)"
    if shutil.which("setpriv") is None or shutil.which("curl") is None:
        return "needs setpriv and curl"
    try:
        pwd.getpwnam("nobody")
    except KeyError:
        return "no user nobody"
    return None


def _as_nobody(*command: str) -> subprocess.CompletedProcess[str]:
    setpriv = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--"]
    return subprocess.run(
        [*setpriv, *command], check=False, capture_output=True, text=True, cwd="/", timeout=30
    )


@pytest.fixture
def open_parent() -> Iterator[Path]:
    """A directory every user may enter (unlike pytest's), so that only tether's own modes
    stand between another user and what tether keeps in it."""
    path = Path(tempfile.mkdtemp(prefix="tether-auth-"))
    path.chmod(0o755)
    try:
        yield path
    finally:
        shutil.rmtree(path)


@pytest.mark.skipif(_nobody_available() is not None, reason=str(_nobody_available()))
async def test_another_local_user_cannot_read_the_token_or_call_a_tool(workspace, open_parent):
    home = open_parent / "home"
    home.mkdir()
    home.chmod(0o755)  # as a person might have made it: tether makes it 0700
    async with serve_http(home, *_args(workspace, "--gate", "yolo")) as server:
        assert _mode(home) == 0o700
        read = _as_nobody("cat", str(server.token_path))
        assert read.returncode != 0
        assert "Permission denied" in read.stderr
        home.chmod(0o755)  # with the directory open again, the file is still 0600
        read = _as_nobody("cat", str(server.token_path))
        assert read.returncode != 0
        assert "Permission denied" in read.stderr
        assert server.token() not in read.stdout
        for body in (INITIALIZE, CALL_BASH):
            curl = _as_nobody(
                "sh",
                "-c",
                f'curl -s -o /dev/null -w "%{{http_code}}" -X POST {server.url} '
                '-H "Content-Type: application/json" '
                '-H "Accept: application/json, text/event-stream" '
                f'-H "Authorization: Bearer $(cat {server.token_path} 2>/dev/null)" '
                f"-d '{json.dumps(body)}'",
            )
            assert curl.stdout == "401", (curl.stdout, curl.stderr)
    assert not (workspace / "pwned").exists()
