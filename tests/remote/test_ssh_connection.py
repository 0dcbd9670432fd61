"""``SSHOperations`` as a connection to a host: ranged reads of huge files, host keys, a lost
connection, and a host without ripgrep — against a real sshd on loopback."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import psutil
import pytest
from tests.tools.test_bash import agent_run, text_of
from tests.tools.test_bash import run as run_tool

from tether.remote import HostKeyMismatchError, SSHOperations
from tether.tools.bash import create_bash_tool
from tether.tools.find import create_find_tool
from tether.tools.grep import create_grep_tool
from tether.tools.read import create_read_tool

from .sshd import SSHServer, start_sshd

ONE_GIB = 1024**3


def bytes_read_by_sshd(sshd: SSHServer) -> int:
    """Bytes that sshd and every process below it have read (``rchar``): the SFTP server runs
    inside sshd's session process, so this counts what it read from files to serve us."""
    total = 0
    for process in [psutil.Process(sshd.process.pid), *sshd.session_processes()]:
        try:
            total += process.io_counters().read_chars
        except psutil.Error:
            continue
    return total


async def test_reading_the_first_lines_of_a_1_gib_file_transfers_a_tiny_part_of_it(
    sshd: SSHServer, ssh_operations: SSHOperations, tmp_path: Path
) -> None:
    huge = tmp_path / "huge.log"
    with huge.open("wb") as handle:
        handle.write(b"".join(f"line {n}\n".encode() for n in range(1, 5001)))
        handle.truncate(ONE_GIB)  # the rest is a hole: 1 GiB without using the disk
    read = create_read_tool(str(tmp_path), operations=ssh_operations)
    await ssh_operations.stat(str(huge))  # the SFTP session is up before counting
    before = bytes_read_by_sshd(sshd)
    result = await run_tool(read, {"path": "huge.log", "limit": 2000})
    transferred = bytes_read_by_sshd(sshd) - before
    shown = text_of(result).splitlines()
    assert os.path.getsize(huge) == ONE_GIB
    assert shown[:2000] == [f"line {n}" for n in range(1, 2001)]
    assert transferred < 1_000_000, f"sshd read {transferred} bytes for 2,000 lines"


async def test_a_host_key_mismatch_is_refused_with_a_clear_message(
    sshd: SSHServer, tmp_path: Path
) -> None:
    other = tmp_path / "other_key"
    await (
        await asyncio.create_subprocess_exec(
            "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(other)
        )
    ).wait()
    kind, key = (tmp_path / "other_key.pub").read_text().split()[:2]
    known_hosts = tmp_path / "known_hosts"
    known_hosts.write_text(f"[127.0.0.1]:{sshd.port} {kind} {key}\n")
    operations = sshd.operations(known_hosts=known_hosts)
    with pytest.raises(HostKeyMismatchError) as refused:
        await operations.stat("/")
    message = str(refused.value)
    assert message.startswith(f"Refusing to connect to root@127.0.0.1:{sshd.port}")
    assert str(known_hosts) in message and "not trusted" in message
    await operations.close()


async def test_an_unknown_host_is_refused(sshd: SSHServer, tmp_path: Path) -> None:
    empty = tmp_path / "known_hosts"
    empty.write_text("")
    operations = sshd.operations(known_hosts=empty)
    with pytest.raises(HostKeyMismatchError, match="not trusted"):
        await operations.list_dir("/")


async def test_a_connection_killed_mid_call_is_an_error_result_and_the_next_call_works(
    sshd: SSHServer, ssh_operations: SSHOperations, tmp_path: Path
) -> None:
    bash = create_bash_tool(str(tmp_path), operations=ssh_operations)
    call = asyncio.create_task(agent_run(bash, {"command": "echo $$ > running.pid; sleep 60"}))
    deadline = time.monotonic() + 10
    while not (tmp_path / "running.pid").exists():
        assert time.monotonic() < deadline, "the command never started"
        await asyncio.sleep(0.01)
    sshd.drop_connections()
    _, result = await asyncio.wait_for(call, 20)
    assert result.is_error
    assert f"root@127.0.0.1:{sshd.port}" in text_of(result) and "lost" in text_of(result)
    again = await run_tool(bash, {"command": "echo back"})
    assert text_of(again) == "back"


async def test_without_ripgrep_on_the_host_grep_and_find_say_what_is_missing(
    tmp_path: Path,
) -> None:
    server = start_sshd(tmp_path / "sshd", ripgrep_on_path=False)
    operations = server.operations()
    try:
        (tmp_path / "a.txt").write_text("alpha\n")
        for tool, params in (
            (create_grep_tool(str(tmp_path), operations=operations), {"pattern": "alpha"}),
            (create_find_tool(str(tmp_path), operations=operations), {"pattern": "*.txt"}),
        ):
            with pytest.raises(Exception, match=r"ripgrep \(rg\) was not found on root@127"):
                await run_tool(tool, params)
    finally:
        await operations.close()
        server.stop()
