"""Path policy: may the agent read or write this path?

Every decision is made on the file the system will actually touch: ``~`` expanded, relative paths
joined to the workspace, ``..`` and symlinks resolved with ``realpath`` (which resolves the existing
prefix, so paths that do not exist yet are judged too). Containment is by path components:
``/work/project_evil`` is not inside ``/work/project``.

- Secrets (:func:`tether.gate.secret_path_rule`, the one list: private keys, ``.env`` files,
  credential stores, ``/etc/shadow``, ``/proc/*/environ``) are denied for reading and writing,
  whether named directly or reached through a symlink.
- Reads inside the workspace are allowed; outside they need approval, except inside a
  ``readable`` directory (the loaded skills'), which is read like the workspace.
- Writes outside the workspace are denied, and so are writes inside it to files that run code or
  steer the agent later: shell start-up files, git hooks and git config, the agent's own
  configuration and any ``extra_protected`` path. The rest of what the bash sandbox keeps
  read-only (:mod:`._protected_paths`: all of ``.git/``, ``.envrc``, ``.vscode/``, ...) needs
  approval.

A path is judged under every reading a caller might give it (verbatim, and the way the file tools
read it: stripped, without a leading ``@``, ``~user`` expanded) and the strictest verdict wins.
Fail-closed: a NUL byte, an unknown access kind or a path that cannot be resolved is denied.
The policy cannot stop a file from changing between the check and the access.
"""

from __future__ import annotations

import asyncio
import os
import posixpath
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Literal, Protocol, TypeAlias

from tether.gate._protected_paths import protected_workspace_rule
from tether.gate._secret_inodes import is_link_to_a_secret
from tether.gate._secret_paths import SECRET_SEARCH_GLOBS, secret_path_rule
from tether.gate._verdict import Verdict, strictest

__all__ = ["RESOLVE_TIMEOUT", "SECRET_SEARCH_GLOBS", "PathAccess", "PathPolicy", "PathResolver"]

PathAccess: TypeAlias = Literal["read", "write"]

_SHELL_STARTUP_FILES = frozenset(
    {
        ".bashrc",
        ".bash_profile",
        ".bash_login",
        ".bash_logout",
        ".profile",
        ".zshrc",
        ".zprofile",
        ".zshenv",
        ".zlogin",
        ".zlogout",
    }
)
_GIT_CONFIG_FILES = frozenset({"config", "config.worktree"})


class PathResolver(Protocol):
    """The file system of the host where the tools run, as the path policy asks about it.

    Two questions, asked before a call is judged; :class:`tether.remote.SSHOperations` answers
    them over SSH. Without one the policy asks this machine (``os.path.realpath`` and the current
    user's home), synchronously.
    """

    async def real_path(self, path: str) -> str:
        """``path`` (absolute) with ``..`` and symlinks resolved on that host; a tail that does not
        exist is kept as given, like ``realpath``."""
        ...

    async def home(self) -> str:
        """The home directory, there, of the user the tools run as."""
        ...


class PathPolicy:
    """Decides reads and writes of paths for one workspace.

    ``home`` defaults to the current user's home directory (the resolver's, with one).
    ``agent_config_dirs`` replaces the default ``[<workspace>/.tether, ~/.tether]``;
    ``extra_protected`` adds paths (files or whole directories, relative to the workspace or
    absolute) that may never be written; ``readable`` adds directories read like the workspace
    (without approval; secrets in them are still denied).

    With a ``resolver`` the workspace is a path on the resolver's host and no local file-system
    call decides anything: :meth:`judge` resolves, there, every path a check asks about before it
    is answered, and :meth:`check` outside :meth:`judge` denies what it has not resolved.
    """

    def __init__(
        self,
        workspace: str,
        *,
        home: str | None = None,
        resolver: PathResolver | None = None,
        extra_protected: Sequence[str] = (),
        agent_config_dirs: Sequence[str] = (),
        readable: Sequence[str] = (),
    ) -> None:
        if resolver is not None and not posixpath.isabs(workspace):
            raise ValueError(
                f"the workspace on the resolver's host must be absolute: {workspace!r}"
            )
        self._resolver = resolver
        self._workspace = posixpath.normpath(posixpath.abspath(workspace))
        self._home_given = None if home is None else posixpath.normpath(posixpath.abspath(home))
        self._config_dirs = tuple(agent_config_dirs)
        self._extra = tuple(extra_protected)
        self._readable = tuple(readable)
        self._roots: _Roots | None = None
        if resolver is None:
            local_home = self._home_given or posixpath.normpath(os.path.expanduser("~"))
            self._roots = self._make_roots(
                os.path.realpath(self._workspace), local_home, os.path.realpath(local_home)
            )

    @property
    def local(self) -> bool:
        """Whether the workspace is on this machine (no resolver: paths are resolved here)."""
        return self._resolver is None

    @property
    def workspace(self) -> str:
        """The workspace with symlinks followed: resolved at construction, or with a resolver at
        the first :meth:`judge` (until then as given)."""
        return self._roots.workspace_real if self._roots is not None else self._workspace

    @property
    def home(self) -> str | None:
        """The home directory where the tools run; with a resolver ``None`` until the first
        :meth:`judge` has resolved it there."""
        if self._roots is not None:
            return self._roots.home
        return self._home_given

    def check(self, path: str, access: PathAccess) -> Verdict:
        """``allow``, ``approve`` or ``deny`` for one access, with reasons naming path and rule."""
        if access not in ("read", "write"):
            return Verdict.deny(f"unknown access kind {access!r} for {_printable(path)}")
        if "\x00" in path:
            return Verdict.deny(f"path contains a NUL byte: {path!r}")
        try:
            roots = self._current_roots()
            readings = self._readings(path, roots)
        except _Unresolved as unresolved:
            return Verdict.deny(f"cannot resolve {_printable(path)}: {unresolved}")
        return strictest(self._check_absolute(p, access, roots) for p in readings)

    async def judge(self, decide: Callable[[], Verdict]) -> Verdict:
        """``decide()``, whose checks of this policy are answered with paths resolved by the
        resolver; without a resolver, just ``decide()``.

        ``decide`` runs, the paths it asked about are resolved together on the resolver's host,
        and it runs again until it asks about nothing new. Fail-closed: a path that cannot be
        resolved (a lost connection, :data:`RESOLVE_TIMEOUT` passed) is denied, and so is a
        decision still asking about new paths after a few rounds. Answers last for this call
        only: the next one asks again.
        """
        if self._resolver is None:
            return decide()
        answers = _Answers()
        token = _ANSWERS.set(answers)
        try:
            failure = await self._resolve_roots(self._resolver)
            if failure is not None:
                return Verdict.deny(failure)
            for _ in range(_MAX_ROUNDS):
                answers.missing.clear()
                verdict = decide()
                if not answers.missing:
                    return verdict
                if len(answers.resolved) + len(answers.missing) > _MAX_RESOLVED:
                    break
                await _resolve(self._resolver, answers)
            return strictest(
                [verdict, Verdict.deny("too many paths to resolve on the host where tools run")]
            )
        finally:
            _ANSWERS.reset(token)

    def display_path(self, path: str) -> str:
        """``path`` as a person should see it: relative inside the workspace, ``~/…`` under the
        home directory, otherwise absolute. Lexical only: symlinks are not followed."""
        roots = self._roots
        home = roots.home if roots is not None else self._home_given
        absolute = self._absolute(path, home)
        for root in (self._workspace, roots.workspace_real if roots else self._workspace):
            if _is_within(absolute, root):
                return posixpath.relpath(absolute, root)
        for root in (roots.home, roots.home_real) if roots is not None else ():
            if root != "/" and _is_within(absolute, root):
                relative = posixpath.relpath(absolute, root)
                return "~" if relative == "." else f"~/{relative}"
        return absolute

    def _make_roots(self, workspace_real: str, home: str, home_real: str) -> _Roots:
        config_dirs = self._config_dirs or (posixpath.join(self._workspace, ".tether"), "~/.tether")
        return _Roots(
            workspace_real,
            home,
            home_real,
            tuple(self._absolute(d, home) for d in config_dirs),
            tuple(self._absolute(p, home) for p in self._extra),
            tuple(self._absolute(p, home) for p in self._readable),
        )

    async def _resolve_roots(self, resolver: PathResolver) -> str | None:
        """The workspace and the home, resolved once on the resolver's host; why not, if not."""
        if self._roots is not None:
            return None
        try:
            async with asyncio.timeout(RESOLVE_TIMEOUT):
                home = self._home_given or _absolute_answer(await resolver.home())
                workspace_real = _absolute_answer(await resolver.real_path(self._workspace))
                home_real = _absolute_answer(await resolver.real_path(home))
        except Exception as error:
            where = _printable(self._workspace)
            return f"cannot resolve the workspace {where} where the tools run: {_why(error)}"
        self._roots = self._make_roots(workspace_real, home, home_real)
        return None

    def _current_roots(self) -> _Roots:
        if self._roots is None:
            raise _Unresolved("the workspace is not resolved yet where the tools run")
        return self._roots

    def _real_paths(self, paths: Sequence[str]) -> list[str]:
        """Each of ``paths`` resolved: here, or from the answers of the current :meth:`judge`
        (a path not answered yet is noted for the next round and this check fails)."""
        if self._resolver is None:
            return [os.path.realpath(p) for p in paths]
        answers = _ANSWERS.get()
        if answers is None:
            raise _Unresolved("paths are resolved where the tools run, in PathPolicy.judge")
        unanswered = [p for p in paths if p not in answers.resolved]
        if unanswered:
            answers.missing.update(dict.fromkeys(unanswered))
            raise _Unresolved("not resolved yet where the tools run")
        results = [answers.resolved[p] for p in paths]
        for result in results:
            if isinstance(result, _Unresolved):
                raise result
        return [str(r) for r in results]

    def _absolute(self, path: str, home: str | None) -> str:
        if home is not None and (path == "~" or path.startswith("~/")):
            path = home + path[1:]
        return posixpath.normpath(posixpath.join(self._workspace, path))

    def _readings(self, path: str, roots: _Roots) -> list[str]:
        tool_form = path.strip()
        if tool_form.startswith("@"):
            tool_form = tool_form[1:]
        readings: list[str] = []
        for form in (path, tool_form):
            if form.startswith("~") and not (form == "~" or form.startswith("~/")):
                if self._resolver is not None:
                    raise _Unresolved("another user's home is not looked up where the tools run")
                expanded = os.path.expanduser(form)
                if expanded != form:
                    readings.append(posixpath.normpath(expanded))
            readings.append(self._absolute(form, roots.home))
        return list(dict.fromkeys(readings))

    def _check_absolute(self, lexical: str, access: PathAccess, roots: _Roots) -> Verdict:
        protected = (*roots.agent_config, *roots.extra_protected) if access == "write" else ()
        others = protected if access == "write" else roots.readable
        try:
            resolved, *others_real = self._real_paths((lexical, *others))
        except (_Unresolved, OSError, ValueError) as error:
            return Verdict.deny(f"cannot resolve {_printable(lexical)}: {error}")
        shown = self._describe(lexical, resolved)
        forms = (lexical,) if resolved == lexical else (lexical, resolved)
        for form in forms:
            rule = self._secret_rule(form, roots)
            if rule is not None:
                return Verdict.deny(f"secret: {rule} — {shown}")
        inside = _is_within(resolved, roots.workspace_real)
        if access == "read":
            local = self._resolver is None and roots.home
            if inside and local and is_link_to_a_secret(resolved, roots.home):
                return Verdict.deny(f"secret: a hard link to a secret file of the home — {shown}")
            if inside:
                return Verdict.allow(f"read inside the workspace — {shown}")
            if _within_any(resolved, others_real):
                return Verdict.allow(f"read inside a skill's directory — {shown}")
            return Verdict.approve(f"read outside the workspace — {shown}")
        if not inside:
            return Verdict.deny(f"write outside the workspace — {shown}")
        for form in forms:
            rule = self._protected_rule(form, roots, others_real)
            if rule is not None:
                return Verdict.deny(f"protected: {rule} — {shown}")
        rule = self._control_file_rule(forms)
        if rule is not None:
            return Verdict.approve(f"protected: {rule} — {shown}")
        return Verdict.allow(f"write inside the workspace — {shown}")

    def _control_file_rule(self, forms: Sequence[str]) -> str | None:
        """The sandbox's protected paths (:mod:`._protected_paths`): changed only when asked."""
        for form in forms:
            for root in (self._workspace, self.workspace):
                if _is_within(form, root) and form != root:
                    rule = protected_workspace_rule(posixpath.relpath(form, root))
                    if rule is not None:
                        return rule
        return None

    def _describe(self, lexical: str, resolved: str) -> str:
        asked = _printable(self.display_path(lexical))
        target = _printable(self.display_path(resolved))
        return asked if asked == target else f"{asked} → {target}"

    def _secret_rule(self, path: str, roots: _Roots) -> str | None:
        return secret_path_rule(path, homes=(roots.home, roots.home_real))

    def _protected_rule(
        self, path: str, roots: _Roots, protected_real: Sequence[str]
    ) -> str | None:
        parts = tuple(part.casefold() for part in PurePosixPath(path).parts)
        name = parts[-1]
        if name in _SHELL_STARTUP_FILES or parts[-3:] == (".config", "fish", "config.fish"):
            return "shell start-up file"
        if any(parts[i : i + 2] == (".git", "hooks") for i in range(len(parts) - 1)):
            return "git hooks"
        if len(parts) > 1 and parts[-2] == ".git" and name in _GIT_CONFIG_FILES:
            return "git config"
        if name == ".git":
            return "git directory link"
        config_count = len(roots.agent_config)
        config_real, extra_real = protected_real[:config_count], protected_real[config_count:]
        if _within_any(path, (*roots.agent_config, *config_real)):
            return "agent configuration"
        if _within_any(path, (*roots.extra_protected, *extra_real)):
            return "protected path"
        return None


RESOLVE_TIMEOUT = 30.0
"""Seconds a :meth:`PathPolicy.judge` waits for its resolver's answers before denying."""
_MAX_ROUNDS = 8
_MAX_RESOLVED = 512

_ANSWERS: ContextVar[_Answers | None] = ContextVar("tether_gate_path_answers", default=None)
"""The answers of the :meth:`PathPolicy.judge` running in this task (concurrent calls each have
their own)."""


class _Unresolved(Exception):
    """A path the policy cannot judge; the message says why."""


@dataclass(frozen=True, slots=True)
class _Roots:
    """What every check compares with, resolved where the tools run."""

    workspace_real: str
    home: str
    home_real: str
    agent_config: tuple[str, ...]
    extra_protected: tuple[str, ...]
    readable: tuple[str, ...] = ()


@dataclass(slots=True)
class _Answers:
    """One :meth:`PathPolicy.judge`: resolved paths (or why not) and those asked for next."""

    resolved: dict[str, str | _Unresolved] = field(default_factory=dict)
    missing: dict[str, None] = field(default_factory=dict)


async def _resolve(resolver: PathResolver, answers: _Answers) -> None:
    paths = list(answers.missing)
    results: list[object]
    try:
        async with asyncio.timeout(RESOLVE_TIMEOUT):
            results = list(
                await asyncio.gather(
                    *(resolver.real_path(p) for p in paths), return_exceptions=True
                )
            )
    except TimeoutError:
        results = [TimeoutError(f"no answer within {RESOLVE_TIMEOUT:g}s")] * len(paths)
    for path, result in zip(paths, results, strict=True):
        if isinstance(result, BaseException) and not isinstance(result, Exception):
            raise result
        try:
            if isinstance(result, Exception):
                raise result
            answers.resolved[path] = _absolute_answer(result)
        except Exception as error:
            answers.resolved[path] = _Unresolved(f"{_why(error)} (where the tools run)")


def _absolute_answer(answer: object) -> str:
    if not isinstance(answer, str) or not posixpath.isabs(answer) or "\x00" in answer:
        raise ValueError(f"the host answered {answer!r}, not an absolute path")
    return posixpath.normpath(answer)


def _why(error: Exception) -> str:
    return str(error) or type(error).__name__


def _within_any(path: str, roots: Sequence[str]) -> bool:
    return any(_is_within(path, r) for r in roots)


def _is_within(path: str, root: str) -> bool:
    """Component-wise containment of two normalised absolute paths (``root`` itself included)."""
    return posixpath.commonpath((path, root)) == root


def _printable(path: str) -> str:
    return path if path.isprintable() else repr(path)
