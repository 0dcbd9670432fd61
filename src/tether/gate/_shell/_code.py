"""Code in interpreter one-liners and tool languages (python, perl, ruby, node, awk, ...): the
shell commands it visibly runs, the trees it removes, fork loops, sockets wired to shells.

:func:`code_commands` returns the shell commands a one-liner hands to ``system``/``exec``/
``popen``/backticks, awk's ``"cmd" | getline`` and ``print | "cmd"``, a tree removal as the
``rm -rf`` it amounts to (``shutil.rmtree(Path.home())`` is ``rm -rf ~``), and — when the code
calls something it names at run time (``getattr(os, 'sys'+'tem')``, ``__import__``, ``eval``)
— every string literal in it, concatenations folded. The shell policy judges them as commands.
"""

from __future__ import annotations

import itertools
import re
import shlex

from ._call import Call

__all__ = ["code_commands", "forks_without_bound", "interpreter_rule"]

_NET = re.compile(r"socket|fsockopen|/inet/(tcp|udp)|/dev/(tcp|udp)|net\.connect", re.I)
_SPAWN = re.compile(
    r"subprocess|pty|dup2|\bexec|spawn|popen|\bsystem\b|/bin/(ba|z|da|k)?sh\b|child_|getline", re.I
)
_CODE_SECRET = re.compile(
    r"\.ssh/id_|/etc/g?shadow|\.aws/credentials|/proc/[^/\s'\"]+/environ|\.netrc|"
    r"\.docker/config\.json|\.kube/config|\.git-credentials|"
    r"(^|[/'\"\s])\.env(\.(?!example|sample|template)\w+)?(['\"\s]|$)"
)


def interpreter_rule(call: Call) -> str | None:
    """Deny interpreter code that is a reverse shell or names a secret file."""
    code = " ".join(v for v in call.values if v is not None)
    if _NET.search(code) and _SPAWN.search(code):
        return call.deny("interpreter code opens a socket and runs a shell (reverse shell)")
    if _CODE_SECRET.search(code):
        return call.deny("interpreter code names a secret file")
    return None


_CODE_CALL = re.compile(
    r"(?:system|exec[lv]?p?e?|popen|spawn\w*|execSync|execFileSync|spawnSync|check_output|"
    r"check_call|call|run|Popen|getoutput|getstatusoutput|passthru|shell_exec|proc_open|"
    r"subprocess)\s*\(\s*(?:\[([^\]]*)\]|\"((?:[^\"\\]|\\.)*)\"|'((?:[^'\\]|\\.)*)')"
)
_CODE_BARE = re.compile(
    r"(?:\bsystem|\bexec)\s+(?:q[qx]?\s*\{([^}]*)\}|\"([^\"]*)\"|'([^']*)')|`([^`]+)`|"
    r"qx\s*\{([^}]*)\}|%x\{([^}]*)\}|"
    r"\"((?:[^\"\\]|\\.)*)\"\s*\|&?\s*getline|"  # awk: "cmd" | getline
    r"\|&?\s*\"((?:[^\"\\]|\\.)*)\""  # awk: print ... | "cmd"
)
_CODE_REMOVES = re.compile(
    r"(?:shutil\.rmtree|\brmtree|FileUtils\.rm_rf?|FileUtils\.remove_(?:dir|entry)|remove_tree|"
    r"\.(?:rmSync|rmdirSync)|\bfs\.(?:rm|rmdir)|\bFile\.delete)\s*\(\s*((?:[^,()]|\([^()]*\))*)"
)
_CODE_HOME = re.compile(
    r"^(?:(?:pathlib\.)?Path\.home\(\)|os\.path\.expanduser\([\"']~[\"']\)|"
    r"os\.environ\[[\"']HOME[\"']\]|os\.getenv\([\"']HOME[\"']\)|ENV\[[\"']HOME[\"']\]|"
    r"Dir\.home|[\w.()\"']*homedir\(\)|process\.env\.HOME)$"
)
_CODE_DYNAMIC = re.compile(r"\bgetattr\s*\(|__import__|importlib|\beval\s*\(|\bexec\s*\(|"
                           r"\bcompile\s*\(|__builtins__|\bglobals\s*\(|\bvars\s*\(")  # fmt: skip
_CODE_STRING = re.compile(r"\"((?:[^\"\\]|\\.)*)\"|'((?:[^'\\]|\\.)*)'")
_UNBOUNDED_FORK = re.compile(
    r"while\s*\(?\s*(?:True|1|true)\s*\)?\s*[:{]?[^\n]*\bfork\b|\bfork\b[^\n]*\bwhile\s*\(?\s*1|"
    r"for\s*\(\s*;\s*;\s*\)[^\n]*\bfork\b|\bfork\s+while\b|loop\s*\{[^}]*\bfork\b"
)


def code_commands(code: str) -> list[str]:
    """Shell commands an interpreter one-liner visibly hands to ``system``/``exec``/backticks."""
    found: list[str] = []
    for match in itertools.chain(_CODE_CALL.finditer(code), _CODE_BARE.finditer(code)):
        listed, *strings = match.groups()
        if listed is not None and _CODE_CALL is match.re:
            items = re.findall(r"[\"']((?:[^\"'\\]|\\.)*)[\"']", listed)
            found.append(" ".join(shlex.quote(item) for item in items))
        else:
            text = next((g for g in (listed, *strings) if g is not None), "")
            found.append(text.replace('\\"', '"'))
    for match in _CODE_REMOVES.finditer(code):  # shutil.rmtree(PATH) is rm -rf PATH
        argument = match.group(1).strip()
        quoted = _CODE_STRING.fullmatch(argument)
        if quoted:
            found.append("rm -rf " + shlex.quote(next(g for g in quoted.groups() if g is not None)))
        elif _CODE_HOME.match(argument):
            found.append("rm -rf ~")
    if _CODE_DYNAMIC.search(code):  # getattr(os, 'sys'+'tem')('rm -rf ~'): any string may run
        folded = re.sub(r"[\"']\s*\+\s*[\"']", "", code)
        found += [a or b for a, b in _CODE_STRING.findall(folded)]
    return [command for command in found if command.strip()]


def forks_without_bound(code: str) -> bool:
    return bool(_UNBOUNDED_FORK.search(code))
