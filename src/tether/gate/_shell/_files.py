"""What one command reads and writes: secrets named as arguments, redirections, paths.

:class:`FileRules` is the part of the walk (:class:`~._walk.Walk`) that judges files: a secret
named by an argument of a reading command, a redirection to a network device or a persistence
target, every visible read and write checked with the path policy (globs expanded, boundedly),
and the directory ``cd`` moves to.
"""

from __future__ import annotations

import os
import re
from dataclasses import replace

from .._verdict import Verdict
from . import _rules as rules
from ._allow import PathChecks
from ._budget import bounded_glob
from ._call import Call, Paths, collapse, display, git_subcommand, has_glob
from ._config_files import SSH_CLIENTS, ssh_configs
from ._parse import Command
from ._words import COPIERS

__all__ = ["FileRules"]

_MAX_GLOB_MATCHES = 64
_EXTRACTORS = frozenset({"tar", "unzip"})


def _reads_trees(call: Call, paths: Paths) -> bool:
    """Commands that print or copy whole trees like the copiers: ``diff`` (``-rN`` prints every
    file), ``git diff --no-index`` — and ``git diff`` where git finds no repository, which is
    ``--no-index`` without the word — ``cmake -E copy_directory``."""
    values = call.values
    if call.name == "diff":
        return True
    if call.name == "git":
        return git_subcommand(values)[0] == "diff" and (
            "--no-index" in values or _outside_a_repository(paths)
        )
    return call.name == "cmake" and values[:1] == ("-E",) and (values[1:2] or ("",))[0] in (
        "copy_directory", "copy_directory_if_different"
    )  # fmt: skip


def _outside_a_repository(paths: Paths) -> bool:
    """No ``.git`` in the working directory or above it (git run as written looks up to ``/``);
    unknown — another host, an unknown directory — counts as outside."""
    if not paths.local or paths.cwd is None:
        return True
    current = paths.cwd
    while True:
        if os.path.lexists(os.path.join(current, ".git")):
            return False
        parent = os.path.dirname(current)
        if parent == current:
            return True
        current = parent


class FileRules:
    """The verdicts so far and where the commands run; the checks of the files they touch."""

    verdicts: list[Verdict]
    paths: Paths
    _path_policy: PathChecks | None

    def _approve(self, reason: str) -> None:
        self.verdicts.append(Verdict.approve(reason))

    def _deny(self, reason: str) -> None:
        self.verdicts.append(Verdict.deny(reason))

    def _cd(self, target: str | None) -> None:
        if target == "-":
            cwd = self.paths.oldpwd
        else:
            cwd = self.paths.resolve(target) if target is not None else None
        self.paths = replace(self.paths, cwd=cwd, oldpwd=self.paths.cwd)

    def _secrets(self, call: Call, targets: set[str]) -> None:
        """Deny arguments (or their ``x=``/``x:``/``@`` parts) that name a secret being read
        (of ssh's, only the config file ``-F FILE``, whose lines its errors print)."""
        values = ssh_configs(call.values) if call.name in SSH_CLIENTS else call.values
        if call.name == "git" and git_subcommand(values)[0] == "grep":
            return
        copies = call.name in COPIERS or _reads_trees(call, self.paths)
        for value in values:
            if value is None or value in targets:
                continue
            for candidate in dict.fromkeys((value, *re.split(r"[=:@,]", value))):
                if not candidate or not rules.might_be_secret(candidate):
                    continue
                kind = rules.secret_kind(self.paths.best(candidate))
                if kind is None and copies:  # a copy of ~/.ssh/work_key, a key by its place
                    kind = self._secret_by_policy(candidate)
                if kind is not None:
                    self._deny(f"{call.display}: reads {kind} ({candidate})")
                    return
            # the home may be spelled as any path to it (/root, /home/alice/, ../..)
            if copies and rules.secret_directory(self.paths.best(value), self.paths.home):
                self._deny(f"{call.display}: copies {value}, a directory holding secrets")
                return

    def _secret_by_policy(self, value: str) -> str | None:
        """The path policy's secret rule for ``value`` (``~/.ssh/work_key``: a key by where it
        is, not by its name), so ``cp ~/.ssh/work_key x`` is denied as ``cat`` of it is. Only
        for copies: a program handed a credentials file to use (``--key-file creds.json``) is
        a person's call, as before."""
        resolved = self.paths.resolve(value) if self._path_policy is not None else None
        if resolved is None or self._path_policy is None or has_glob(resolved):
            return None
        verdict = self._path_policy.check(resolved, "read")
        secret = [r for r in verdict.reasons if r.startswith("secret:")]
        return secret[0].partition(" — ")[0] if verdict.decision == "deny" and secret else None

    def _extracted_into(self, call: Call, targets: list[str | None]) -> None:
        """An archive extracted into the home, a directory above it or one of secrets may plant
        anything there (its members are not known before it runs): ``.bashrc``, keys."""
        if call.name not in _EXTRACTORS:
            return
        for target in targets:
            if target is not None and rules.secret_directory(
                self.paths.best(target), self.paths.home
            ):
                self._deny(f"{call.display}: extracts into {target}, where an archive can plant "
                           "startup files and keys")  # fmt: skip
                return

    # --- files -------------------------------------------------------------------------------

    def _redirects(self, cmd: Command) -> None:
        name = display(collapse(cmd.name.raw), cmd.args) if cmd.name is not None else ""
        for redirect in cmd.redirects:
            operator, target = redirect.operator, redirect.target
            value = target.value if target is not None else None
            duplicate = operator in (">&", "<&") and re.fullmatch(r"\d+-?|-", value or "")
            if target is None or operator == "<<<" or duplicate:
                continue
            shown = f"{name} {operator} {collapse(target.raw)}".strip()
            if value is not None and rules.is_network_device(value):
                self._deny(f"{shown}: connects to {value} (reverse shell)")
                continue
            if ">" in operator:
                self._path(shown, value, "write")
            if "<" in operator:
                self._path(shown, value, "read")

    def _path(
        self, display: str, value: str | None, access: str, *, makes_keys: bool = False
    ) -> None:
        """Check one visible read or write of ``value``: secrets, persistence, the path policy.
        ``makes_keys``: the program creates keys (``openssl genrsa -out key.pem``), so a write
        to a file named like a secret is a new one, a person's call, not a leak."""
        if value is None:
            self._approve(f"{display}: {access}s a path that expands at run time")
            return
        if rules.HARMLESS_DEVICES.match(value):
            return
        best = self.paths.best(value)
        if access == "write":
            kind = rules.persistence_target(best)
            if rules.is_disk_device(best):
                self._deny(f"{display}: writes the disk device {value}")
            elif kind is not None:
                self._deny(f"{display}: writes {kind} ({value}) (persistence)")
            self._approve(f"{display}: changes {value}")
        elif access == "read" and rules.might_be_secret(value):
            kind = rules.secret_kind(best)
            if kind is not None:
                self._deny(f"{display}: reads {kind} ({value})")
        if self._path_policy is None:
            return
        resolved = self.paths.resolve(value)
        if resolved is None:
            self._approve(f"{display}: cannot tell where {value} is (working directory unknown)")
            return
        matches = [resolved]
        if ("*" in resolved or "?" in resolved or "[" in resolved) and not self.paths.local:
            self._approve(f"{display}: {value} is a glob over another host's files")
        elif "*" in resolved or "?" in resolved or "[" in resolved:
            matches = bounded_glob(resolved, _MAX_GLOB_MATCHES + 1) or matches
            if len(matches) > _MAX_GLOB_MATCHES:
                self._approve(f"{display}: {value} matches too many files to check")
        for path in matches[:_MAX_GLOB_MATCHES]:
            verdict = self._path_policy.check(path, "write" if access == "write" else "read")
            if access == "list" and verdict.decision == "deny":  # naming a secret is not reading it
                verdict = Verdict.approve(*verdict.reasons)
            reasons = tuple(f"{display}: {reason}" for reason in verdict.reasons)
            secret = all(reason.startswith("secret:") for reason in verdict.reasons)
            if makes_keys and access == "write" and verdict.decision == "deny" and secret:
                verdict = Verdict.approve(*verdict.reasons)
            self.verdicts.append(Verdict(verdict.decision, reasons))
