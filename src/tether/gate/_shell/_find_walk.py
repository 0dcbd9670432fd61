"""What ``find`` does besides listing: :class:`FindRules`, the part of the walk
(:class:`~._walk.Walk`) that judges its actions — the command ``-exec``, ``-execdir``, ``-ok`` and
``-okdir`` run for each file (judged as a command, ``{}`` filled with a path it may be), what
``-delete`` deletes, the files ``-fprint`` and ``-fls`` write — and reads its roots when it does
nothing else."""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from typing import Any

from .._verdict import Verdict
from . import _rules as rules
from ._call import Call
from ._files import FileRules
from ._find_operands import exec_placeholders, find_roots
from ._parse import Command, Word
from ._program_kinds import DELETERS
from ._words import narrowed_by

__all__ = ["FindRules"]


class FindRules(FileRules):
    """``find``'s actions, judged; the command an ``-exec`` runs goes back to the walk."""

    _call: Callable[[str, tuple[Word, ...], Command, int], list[Any]]
    """The walk's judgement of one command (:meth:`~._walk.Walk._call`), where the command an
    ``-exec`` runs goes."""

    def _find(self, call: Call, words: tuple[Word, ...], cmd: Command, depth: int) -> list[str]:
        """Judge ``find``'s actions; the paths it prints when it only lists (what ``{}`` may
        be: :func:`~._find_operands.exec_placeholders`), for a command they are piped to."""
        values = call.values
        roots, start, index = find_roots(values)
        acted = False
        while index < len(values):
            value = values[index]
            index += 1
            executes = value in ("-exec", "-execdir", "-ok", "-okdir")
            if executes:
                ends = [i for i in range(index, len(values)) if values[i] in (";", "+")]
                end = ends[0] if ends else len(values)
                self._approve(f"{call.display}: find -exec runs a command for each file")
                narrowed = narrowed_by(values[start + len(roots) : index])
                for root in roots if end > index else ():
                    for fill in exec_placeholders(root, narrowed):
                        filled = [
                            Word(w.raw, w.value and w.value.replace("{}", fill)) for w in words
                        ]
                        self._call("command", tuple(filled[index:end]), cmd, depth)
            runs = (
                posixpath.basename(values[index] or "") if executes and index < len(values) else ""
            )
            if value == "-delete" or runs in DELETERS:
                self._approve(f"{call.display}: find -delete deletes files")
                narrowed = narrowed_by(values[start + len(roots) : index])
                for root in roots if narrowed is None else ():
                    resolved = self.paths.resolve(root) if root is not None else None
                    if resolved and rules.destroys_system_or_home(resolved, self.paths.home):
                        self._deny(f"{call.display}: deletes everything under {root}")
            if executes or value == "-delete":
                index, acted = end + 1 if executes else index, True
            elif value in ("-fprint", "-fprint0", "-fprintf", "-fls") and index < len(values):
                self._path(call.display, values[index], "write")
                index, acted = index + 1, True
        for reason in rules.check_call(call):
            self._deny(reason)
        if acted:
            return []
        for root in roots:
            self._path(call.display, root, "read")
        self.verdicts.append(Verdict.allow(f"{call.display}: read-only"))
        narrowed = narrowed_by(values[start + len(roots) :])
        return [fill for root in roots for fill in exec_placeholders(root, narrowed)]
