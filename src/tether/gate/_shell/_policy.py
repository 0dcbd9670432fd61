"""Shell policy: ``allow``, ``approve`` or ``deny`` for a bash script, decided from its syntax tree.

:class:`ShellPolicy` spends a work budget (:mod:`._budget`) on the walk of :mod:`._walk` — the deny
and approve rules over every command the script would run — and, when nothing objects, on the
proof of :mod:`._allow` that the script is read-only; ``allow`` needs both. Past the budget the
commands are judged one by one from the last on a smaller budget (a payload padded past the walk
is still denied), and what stays unjudged is ``approve`` that a person decides in every mode. The
session-memory key is the whole tree spelled canonically (:mod:`._key`).
"""

from __future__ import annotations

import contextlib
import os

from .._path_policy import PathPolicy
from .._verdict import Verdict, strictest
from ._allow import PathChecks, prove_read_only
from ._budget import TooComplex, spending
from ._call import Paths, collapse
from ._key import session_key
from ._lex import bash_commands
from ._parse import ShellParser
from ._walk import Walk

__all__ = ["ShellPolicy"]

_SCAN_SECONDS = 0.025
"""The budget of the deny scan after a spent one (:meth:`ShellPolicy._denied_past_budget`)."""


class ShellPolicy:
    """Classifies bash scripts; one tree-sitter parser per policy (not thread-safe). Files that
    commands visibly read and write are checked with ``path_policy`` (relative paths resolve
    against its workspace); without one, the current directory is the workspace."""

    def __init__(self, path_policy: PathPolicy | None = None) -> None:
        self._parser = ShellParser()
        self._path_policy = path_policy or PathPolicy(os.getcwd())

    def _paths(self) -> Paths | None:
        """Home and workspace where the commands run (under ``--remote`` as resolved there);
        ``None`` while the path policy has not resolved them yet."""
        home, workspace = self._path_policy.home, self._path_policy.workspace
        if home is None:
            return None
        return Paths(home, workspace, workspace, local=self._path_policy.local)

    def classify(self, command: str) -> Verdict:
        """The decision for ``command``, reasons naming each command and rule; never raises.

        The deny and approve rules run over everything the script would run; ``allow`` needs
        more than their silence: a proof that the script is in the read-only grammar."""
        places = self._paths()
        if places is None:
            return Verdict.deny("the home directory where the commands run is not resolved yet")
        paths = PathChecks(self._path_policy)
        run = Walk(self._parser, paths, places)
        try:
            with spending():
                run.script(command, 0)
                found = strictest(run.verdicts) if run.verdicts else Verdict.allow("empty script")
                if found.decision != "allow" or run.top is None or run.top.root is None:
                    return found
                return prove_read_only(run.top.root, run.top.source, places, paths)
        except (TooComplex, RecursionError) as spent:  # what was denied so far stays denied
            denials = [verdict for verdict in run.verdicts if verdict.decision == "deny"]
            why = spent if isinstance(spent, TooComplex) else "nested too deeply"
            reason = f"{collapse(command)[:60]}: too complex to prove ({why})"
            denials = denials or self._denied_past_budget(command, places)
            return strictest(denials) if denials else Verdict.unjudged(reason)
        except Exception as error:  # a bug must not let anything run unchecked, in any mode
            return Verdict.deny(f"{collapse(command)[:60]}: the shell policy failed ({error!r})")

    def _denied_past_budget(self, command: str, places: Paths) -> list[Verdict]:
        """What the deny rules say of the script's commands one by one, from the last (padding
        put first outran the budget; the walk judged the start), each distinct one once, on a
        smaller budget of its own: a ``deny`` found there stays final. Whatever it does not reach
        stays unjudged, for a person."""
        probes: list[Walk] = []
        with contextlib.suppress(TooComplex, RecursionError), spending(_SCAN_SECONDS):
            for text in reversed(bash_commands(command)):
                probes.append(probe := Walk(self._parser, None, places))
                probe.script(text, 1)
                if any(verdict.decision == "deny" for verdict in probe.verdicts):
                    break
        return [v for probe in probes[-1:] for v in probe.verdicts if v.decision == "deny"]

    def normalize(self, command: str) -> str:
        """The script's session-memory key: its whole structure (control flow, substitutions,
        redirections, heredocs) spelled canonically; ``raw:``+text if it does not parse."""
        try:
            script = self._parser.parse(command)
            if script.error or script.root is None:
                return "raw:" + command.strip()
            return session_key(script.root, script.source)
        except Exception:  # RecursionError on deep nesting, or a bug: the text itself is safe
            return "raw:" + command.strip()
