"""The kinds of programs and variables the walk (:mod:`._walk`) tells apart: downloaders,
network tools, deleters, searchers, commands that evaluate their arguments, wrappers and their
options, and the environment variables that change what a program runs."""

from __future__ import annotations

import re

__all__ = [
    "DECLARATIONS",
    "DELETERS",
    "DOWNLOADERS",
    "EVALUATING",
    "NETWORK",
    "NOT_READING",
    "OPTIONS_ENV",
    "SAFE_ENV",
    "SEARCHERS",
    "SECRET_VARIABLE",
    "SENSITIVE_ENV",
    "STDIN_FILES",
    "STORED_CODE",
    "SYSTEM_BIN",
    "WRAPPER_OPTIONS",
    "WRAPPER_RAISES",
    "WRITTEN_ENV",
    "environment_readings",
    "judged_variable",
]

SYSTEM_BIN = frozenset({"/bin", "/sbin", "/usr/bin", "/usr/sbin", "/usr/local/bin"})
STDIN_FILES = frozenset({"-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"})
NETWORK = frozenset({"nc", "ncat", "telnet", "socat", "openssl", "cryptcat"})
DOWNLOADERS = frozenset({"curl", "wget", "fetch", "aria2c", "http", "https", "xh", "lwp-request"})
# Commands whose arguments may name a secret without reading it (listing, using a key).
NOT_READING = frozenset({"ls", "stat", "test", "[", "[[", "echo", "printf", "chmod", "chown",
                          "chgrp", "ssh", "ssh-add", "ssh-keygen", "rm", "which", "type", "file",
                          "du", "realpath", "readlink", "basename", "dirname", "find",
                          "apropos", "whatis"})  # fmt: skip
DELETERS = frozenset({"rm", "shred", "unlink", "rmdir", "mv"})
SEARCHERS = frozenset({"grep", "egrep", "fgrep", "rg"})
SECRET_VARIABLE = re.compile(r"\$\{?\w*(KEY|TOKEN|SECRET|PASSW|CREDENTIAL)", re.I)
STORED_CODE = re.compile(r"\$\(|`|\$\{")
# Commands that evaluate the text of their arguments (subscripts, arithmetic, names).
EVALUATING = frozenset({"[[", "let", "declare", "typeset", "local", "readonly", "export",
                         "read", "unset", "eval"})  # fmt: skip
DECLARATIONS = frozenset({"export", "declare", "typeset", "local", "readonly", "alias"})
SAFE_ENV = re.compile(r"^(LC_\w+|LANG|LANGUAGE|TZ|NO_COLOR|FORCE_COLOR|CLICOLOR|COLUMNS|TERM)$")
SENSITIVE_ENV = re.compile(
    r"^(PATH|LD_\w+|DYLD_\w+|IFS|BASH_ENV|ENV|PROMPT_COMMAND|PS4|SHELLOPTS|BASHOPTS|CDPATH|HOME|"
    r"GLOBIGNORE|GIT_\w+|PAGER|MANPAGER|LESS\w*|EDITOR|VISUAL|PYTHON\w+|PERL5\w+|RUBYOPT|NODE_OPTIONS|"
    r"RSYNC_RSH|RSYNC_CONNECT_PROG|CVS_RSH|SSH_ASKPASS|SUDO_ASKPASS|FCEDIT)$"
)
OPTIONS_ENV = {
    "TAR_OPTIONS": "tar {} -x -f x.tar", "UNZIP": "unzip {} x.zip", "UNZIPOPT": "unzip {} x.zip",
    "ZIPOPT": "zip {} x.zip f", "ZIP": "zip {} x.zip f",
}  # fmt: skip
"""Variables a program reads as options put before its own (``TAR_OPTIONS='-C /root'``): the
value is judged as those options on a plain command line of that program."""
WRITTEN_ENV = frozenset({"GIT_WORK_TREE", "GIT_INDEX_FILE"})
"""Variables naming a place a program writes (git's work tree, its index): the value is judged
as a write there, as ``git --work-tree=/root checkout .`` is, since the variable reaches every
later git command."""


def environment_readings(name: str, value: str) -> list[str]:
    """The shell text a variable's value stands for, to judge: a command some program runs
    (``GIT_SSH_COMMAND``), a function bash imports (``BASH_FUNC_f%%='() { ...; }'``), options a
    program reads (``TAR_OPTIONS``); none for a variable of no such kind."""
    if name.startswith("BASH_FUNC_"):
        return [value.removeprefix("()").strip()]
    if name in OPTIONS_ENV:
        return [OPTIONS_ENV[name].format(value)]
    return [value] if SENSITIVE_ENV.match(name) and name not in WRITTEN_ENV else []


def judged_variable(name: str) -> bool:
    """Whether a value of ``name`` is judged (:func:`environment_readings` has readings, or
    it is one of :data:`WRITTEN_ENV`)."""
    return name.startswith("BASH_FUNC_") or name in OPTIONS_ENV or bool(SENSITIVE_ENV.match(name))


# The options of each wrapper that take a value ("=": VAR=value words may follow them).
WRAPPER_OPTIONS = {
    "sudo": "= -u -g -h -p -C -D -r -t -U -T -R --user --group --host --prompt --chdir --role "
    "--type --other-user --close-from --command-timeout", "doas": "-u -C",
    "env": "= -u --unset -C --chdir", "timeout": "-s --signal -k --kill-after",
    "nice": "-n --adjustment", "ionice": "-c --class -n --classdata -t", "exec": "-a",
    "stdbuf": "-i -o -e --input --output --error", "npx": "-p --package",
    "xargs": "-a --arg-file -d --delimiter -E -I -L --max-lines -n --max-args -P --max-procs -s "
    "--max-chars --process-slot-var",
    **dict.fromkeys(("nohup", "command", "builtin", "time", "setsid", "coproc", "busybox", "bunx",
                     "pnpx", "uvx", "strace", "ltrace"), ""),
}  # fmt: skip
WRAPPER_RAISES = {
    "sudo": "runs as another user", "doas": "runs as another user", "exec": "replaces the shell",
    "xargs": "runs a command on arguments read from its input", "coproc": "starts a coprocess",
    **dict.fromkeys(("npx", "bunx", "pnpx", "uvx"), "downloads and runs a package"),
}  # fmt: skip
