"""The path policy with a resolver: paths judged as the host where the tools run sees them.

The resolver here is a file system in memory, under ``/remote`` (a directory this machine does
not have), so a local ``realpath`` would find none of its symlinks: every verdict below that
depends on a symlink can only come from the resolver.
"""

from __future__ import annotations

import asyncio
import os
import posixpath
from typing import Any

import pytest

from tether.agent import AgentContext, AgentLoopConfig, agent_loop
from tether.ai import ToolResultMessage, UserMessage
from tether.ai.faux import FauxModel, faux_message, faux_text, faux_tool_call
from tether.gate import Gate, PathPolicy, PathResolver, ShellPolicy, Verdict
from tether.gate import _path_policy as path_policy_module
from tether.tools import create_coding_tools, wrap_tool_definition
from tether.tools.operations import MemoryOperations

WORKSPACE = "/remote/ws"
HOME = "/remote/home/dev"


class MemoryResolver:
    """Symlinks in memory; every other path is a plain file or directory. Records each question."""

    def __init__(self, links: dict[str, str], home: str = HOME) -> None:
        self.links = links
        self._home = home
        self.asked: list[str] = []

    async def real_path(self, path: str) -> str:
        self.asked.append(path)
        resolved = "/"
        pending = [p for p in path.split("/") if p]
        followed = 0
        while pending:
            part = pending.pop(0)
            candidate = posixpath.normpath(posixpath.join(resolved, part))
            target = self.links.get(candidate)
            if target is None:
                resolved = candidate
                continue
            followed += 1
            if followed > 40:
                raise OSError("symlink loop")
            joined = posixpath.join(posixpath.dirname(candidate), target)
            pending = [p for p in joined.split("/") if p] + pending
            resolved = "/"
        return resolved

    async def home(self) -> str:
        return self._home


class BrokenResolver:
    """A host that went away: every question fails as a lost connection would."""

    async def real_path(self, path: str) -> str:
        raise ConnectionError("connection to dev@box:22 lost")

    async def home(self) -> str:
        return HOME


class SilentResolver:
    """A host that never answers."""

    async def real_path(self, path: str) -> str:
        await asyncio.sleep(3600)
        return path

    async def home(self) -> str:
        return HOME


def remote_policy(resolver: PathResolver) -> PathPolicy:
    return PathPolicy(WORKSPACE, resolver=resolver)


async def judged(policy: PathPolicy, path: str, access: str) -> Verdict:
    return await policy.judge(lambda: policy.check(path, access))  # type: ignore[arg-type]


@pytest.fixture(autouse=True)
def no_local_file_system(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any local resolution of a remote path is a test failure, not a quiet wrong answer."""
    local_realpath = os.path.realpath

    def refuse_remote(path: Any, *args: Any, **kwargs: Any) -> str:
        assert not os.fspath(path).startswith("/remote"), f"resolved {path} on this machine"
        return local_realpath(path, *args, **kwargs)

    monkeypatch.setattr(os.path, "realpath", refuse_remote)


def test_this_machine_has_no_remote_directory() -> None:
    assert not os.path.lexists("/remote")


async def test_a_remote_symlink_out_of_the_workspace_is_outside() -> None:
    resolver = MemoryResolver({f"{WORKSPACE}/data": "/srv/shared/data"})
    policy = remote_policy(resolver)
    read = await judged(policy, f"{WORKSPACE}/data/report.csv", "read")
    assert read.decision == "approve"
    assert read.reasons == (
        "read outside the workspace — data/report.csv → /srv/shared/data/report.csv",
    )
    write = await judged(policy, f"{WORKSPACE}/data/report.csv", "write")
    assert write.decision == "deny"
    assert "write outside the workspace" in write.reasons[0]
    assert f"{WORKSPACE}/data/report.csv" in resolver.asked
    assert (await judged(policy, "notes.txt", "read")).decision == "allow"


async def test_a_remote_symlink_to_a_secret_is_denied() -> None:
    policy = remote_policy(MemoryResolver({f"{WORKSPACE}/key.txt": f"{HOME}/.ssh/id_ed25519"}))
    verdict = await judged(policy, "key.txt", "read")
    assert verdict.decision == "deny"
    assert verdict.reasons == ("secret: private key — key.txt → ~/.ssh/id_ed25519",)


async def test_the_workspace_itself_is_resolved_on_the_remote_host() -> None:
    resolver = MemoryResolver({"/remote/ws": "/data/checkouts/ws"})
    policy = remote_policy(resolver)
    assert policy.workspace == WORKSPACE  # as given until the host has answered
    assert (await judged(policy, "/data/checkouts/ws/src/app.py", "write")).decision == "allow"
    assert policy.workspace == "/data/checkouts/ws"
    assert (await judged(policy, "/remote/ws/src/app.py", "read")).decision == "allow"


async def test_home_is_the_remote_users_home() -> None:
    policy = remote_policy(MemoryResolver({}))
    npmrc = await judged(policy, "~/.npmrc", "read")
    assert npmrc.decision == "deny"
    assert npmrc.reasons == ("secret: credential store — ~/.npmrc",)
    outside = await judged(policy, "~/notes.txt", "read")
    assert outside.reasons == ("read outside the workspace — ~/notes.txt",)


async def test_protected_roots_are_resolved_on_the_remote_host_too() -> None:
    policy = remote_policy(MemoryResolver({f"{WORKSPACE}/settings": f"{WORKSPACE}/.tether"}))
    verdict = await judged(policy, "settings/config.toml", "write")
    assert verdict.decision == "deny"
    assert "protected: agent configuration" in verdict.reasons[0]


async def test_answers_last_for_one_call_only() -> None:
    resolver = MemoryResolver({})
    policy = remote_policy(resolver)
    assert (await judged(policy, "out", "read")).decision == "allow"
    resolver.links[f"{WORKSPACE}/out"] = "/etc"
    assert (await judged(policy, "out", "read")).decision == "approve"


async def test_a_lost_connection_denies_with_the_reason() -> None:
    policy = PathPolicy(WORKSPACE, home=HOME, resolver=BrokenResolver())
    verdict = await judged(policy, "notes.txt", "read")
    assert verdict.decision == "deny"
    assert "connection to dev@box:22 lost" in verdict.reasons[0]
    assert "cannot resolve the workspace /remote/ws" in verdict.reasons[0]


async def test_a_failure_after_the_workspace_resolved_denies_the_path() -> None:
    resolver = MemoryResolver({})
    policy = remote_policy(resolver)
    assert (await judged(policy, "notes.txt", "read")).decision == "allow"

    async def lost(path: str) -> str:
        raise ConnectionError("connection lost")

    resolver.real_path = lost  # type: ignore[method-assign]
    verdict = await judged(policy, "notes.txt", "read")
    assert verdict.decision == "deny"
    assert verdict.reasons == (
        "cannot resolve /remote/ws/notes.txt: connection lost (where the tools run)",
    )


async def test_a_host_that_never_answers_is_denied_in_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(path_policy_module, "RESOLVE_TIMEOUT", 0.05)
    verdict = await judged(PathPolicy(WORKSPACE, home=HOME, resolver=SilentResolver()), "x", "read")
    assert verdict.decision == "deny"


def test_a_check_outside_judge_is_denied() -> None:
    verdict = remote_policy(MemoryResolver({})).check("notes.txt", "read")
    assert verdict.decision == "deny"
    assert "not resolved yet where the tools run" in verdict.reasons[0]


async def test_other_users_homes_are_not_looked_up_here() -> None:
    verdict = await judged(remote_policy(MemoryResolver({})), "~root/.profile", "read")
    assert verdict.decision == "deny"
    assert "another user's home" in verdict.reasons[0]


def test_a_remote_workspace_must_be_absolute() -> None:
    with pytest.raises(ValueError, match="absolute"):
        PathPolicy("ws", resolver=MemoryResolver({}))
    with pytest.raises(ValueError, match="absolute"):
        Gate(path_resolver=MemoryResolver({}))


async def test_the_shell_policy_asks_the_remote_host_through_the_path_policy() -> None:
    policy = remote_policy(MemoryResolver({f"{WORKSPACE}/log": "/etc/shadow"}))
    shell = ShellPolicy(path_policy=policy)
    verdict = await policy.judge(lambda: shell.classify("cat log"))
    assert verdict.decision == "deny"
    assert any("system credential file" in reason for reason in verdict.reasons)


async def shell_verdict(command: str, home: str = HOME) -> Verdict:
    policy = remote_policy(MemoryResolver({}, home=home))
    shell = ShellPolicy(path_policy=policy)
    return await policy.judge(lambda: shell.classify(command))


async def test_the_shell_policy_uses_the_remote_users_home() -> None:
    # /srv/people/ann is nobody's home on this machine: only the remote answer makes it one
    verdict = await shell_verdict("rm -rf /srv/people/ann", home="/srv/people/ann")
    assert verdict.decision == "deny"
    assert any("destruction of the system or home" in reason for reason in verdict.reasons)
    expanded = await shell_verdict("rm -rf ~/", home="/srv/people/ann")
    assert any("/srv/people/ann" in reason for reason in expanded.reasons)


async def test_a_remote_search_is_never_proved_free_of_secrets_from_here() -> None:
    # /remote/ws does not exist here: a local walk would find no secret and allow the search
    verdict = await shell_verdict("grep -r API_KEY .")
    assert verdict.decision == "approve"
    assert any("not checked for secrets from here" in reason for reason in verdict.reasons)
    assert (await shell_verdict("cat README.md")).decision == "allow"


async def test_remote_globs_and_other_users_are_not_expanded_here(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_local_listing(path: Any) -> Any:
        raise AssertionError(f"listed {path} on this machine")

    monkeypatch.setattr(os, "scandir", no_local_listing)
    monkeypatch.setattr(posixpath, "expanduser", no_local_listing)
    globbed = await shell_verdict("cat *.txt")
    assert globbed.decision == "approve"
    assert any("a glob over another host's files" in reason for reason in globbed.reasons)
    assert (await shell_verdict("rm -rf /h*")).decision == "deny"  # the pattern itself is read
    other_user = await shell_verdict("ls ~root")
    assert other_user.decision == "approve"


async def test_concurrent_calls_keep_their_own_answers() -> None:
    resolver = MemoryResolver({f"{WORKSPACE}/out": "/etc"})
    policy = remote_policy(resolver)
    inside, outside = await asyncio.gather(
        judged(policy, "notes.txt", "read"), judged(policy, "out/hosts", "read")
    )
    assert (inside.decision, outside.decision) == ("allow", "approve")


async def test_the_gate_judges_file_tools_with_the_remote_answers() -> None:
    resolver = MemoryResolver({f"{WORKSPACE}/data": "/srv/shared"})
    operations = MemoryOperations(
        {f"{WORKSPACE}/notes.txt": b"remote notes\n", "/srv/shared/x.txt": b"shared\n"}
    )
    definitions = create_coding_tools(WORKSPACE, names=("read",), operations=operations)
    gate = Gate("normal", workspace=WORKSPACE, path_resolver=resolver)
    fm = FauxModel(
        [
            faux_message(
                faux_tool_call("read", {"path": "notes.txt"}),
                faux_tool_call("read", {"path": "data/x.txt"}),
            ),
            faux_text("done"),
        ]
    )
    stream = agent_loop(
        [UserMessage("go")],
        AgentContext("", [], [wrap_tool_definition(d) for d in definitions]),
        AgentLoopConfig(
            model=fm.model, stream_fn=fm.stream, before_tool_call=gate.before_tool_call
        ),
    )
    notes, shared = [m for m in await stream.result() if isinstance(m, ToolResultMessage)]
    assert not notes.is_error
    assert shared.is_error
    shown = "".join(getattr(b, "text", "") for b in shared.content)
    assert "read outside the workspace — data/x.txt → /srv/shared/x.txt" in shown
    assert [r.decided_by for r in gate.records] == ["policy", "no_approver"]


async def test_a_retargeted_gate_judges_paths_for_the_new_workspace_on_the_new_host() -> None:
    gate = Gate("normal", workspace=WORKSPACE, path_resolver=MemoryResolver({}))
    other = MemoryResolver({"/other/ws/link": "/etc/shadow"})
    gate.retarget("/other/ws", other)
    assert gate.workspace == "/other/ws"
    inside = await gate.policies.paths.judge(
        lambda: gate.policies.paths.check("/other/ws/notes.txt", "read")
    )
    old = await gate.policies.paths.judge(
        lambda: gate.policies.paths.check(f"{WORKSPACE}/notes.txt", "read")
    )
    link = await gate.policies.paths.judge(lambda: gate.policies.shell.classify("cat link"))
    assert (inside.decision, old.decision, link.decision) == ("allow", "approve", "deny")
    assert "/other/ws/link" in other.asked  # resolved on the new host
    with pytest.raises(ValueError, match="absolute path on its host"):
        gate.retarget("relative", other)
