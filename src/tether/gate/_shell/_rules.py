"""What one command means: the deny rules and the read-only list.

The paths that matter to them (secrets, persistence, devices) are in :mod:`._path_rules`.

Everything here is a function of one command's normalised name and its literal argument values
(``None`` where a word expands at run time) plus a :class:`Paths` view that resolves paths.
Walking scripts, unwrapping wrappers, pipelines and the path policy live in
:mod:`._walk`; this module only says, for one command, "this destroys the system",
"this reads a secret", "this writes these files" or "this is read-only and reads these files".
"""

from __future__ import annotations

import itertools
import posixpath
import re
from collections.abc import Callable
from functools import lru_cache
from typing import NamedTuple, TypeAlias

from ._archives import tar_written, unzip_written
from ._call import Call, Values, git_subcommand, parse_options
from ._code import code_commands, forks_without_bound, interpreter_rule
from ._getopt import read_options
from ._output_files import OUTPUT_WRITERS, output_files
from ._path_rules import (
    HARMLESS_DEVICES,
    destroys_system_or_home,
    is_disk_device,
    is_network_device,
    might_be_secret,
    path_components,
    persistence_target,
    secret_directory,
    secret_kind,
    word_set,
)
from ._sed_arguments import read_sed_arguments, sed_printed_files
from ._versions import VERSIONED, version_refusal
from ._wrapper_commands import GRAMMARS
from ._written_files import WRITERS, written_files

__all__ = [
    "HARMLESS_DEVICES",
    "canonical_options",
    "check_call",
    "code_commands",
    "decodes",
    "destroys_system_or_home",
    "family",
    "forks_without_bound",
    "is_disk_device",
    "is_network_device",
    "might_be_secret",
    "persistence_target",
    "read_only_paths",
    "secret_directory",
    "secret_kind",
    "write_targets",
]  # fmt: skip


# --- per-command deny rules -----------------------------------------------------------------


def _braces(word: str) -> list[str]:
    """``{/,}x`` as bash's brace expansion gives it (``/x``, ``x``); nested braces unexpanded."""
    match = re.search(r"\{([^{}]*,[^{}]*)\}", word)
    if match is None:
        return [word]
    head, tail = word[: match.start()], _braces(word[match.end() :])
    return [head + part + rest for part in match.group(1).split(",") for rest in tail]


def _destroys(call: Call) -> str | None:
    """rm, mv, chmod/chown/chgrp -R: of / (or a top-level directory), a home, or the workspace."""
    opts = parse_options(call.values, frozenset({"--reference"}))
    if "--no-preserve-root" in opts.flags:
        return call.deny("--no-preserve-root removes the safeguard for /")
    removes = call.name in ("rm", "mv")
    flags = {"-R", "--recursive", "-r"} if removes else {"-R", "--recursive"}
    recursive = call.name == "mv" or not opts.flags.isdisjoint(flags)
    targets = opts.positionals[:-1] if call.name == "mv" else opts.positionals[not removes :]
    for target in (expanded for t in targets if t is not None for expanded in _braces(t)):
        resolved = call.paths.resolve(target)
        globbed = removes and posixpath.basename(target) in ("*", ".*")
        if resolved is not None and (recursive or globbed):
            if destroys_system_or_home(resolved, call.paths.home):
                return call.deny(f"{call.name} of {target}: destruction of the system or home")
            workspace = call.paths.workspace
            if removes and workspace and workspace.startswith(resolved.rstrip("/") + "/"):
                return call.deny(f"{call.name} of {target}, a parent of the workspace")
        if removes and recursive and resolved is None and set(path_components(target)) == {".."}:
            return call.deny(f"{call.name} of {target}, a parent of the working directory")
    return None


def _dd(call: Call) -> str | None:
    for value in call.values:
        if value is not None and value.startswith("of=") and is_disk_device(value[3:]):
            return call.deny(f"writes the disk device {value[3:]}")
    return None


_MINUS_ONE = re.compile(r"^-0*1$")


def _kill(call: Call) -> str | None:
    """``kill -1`` in every spelling: ``-01``, ``-s KILL -1``, ``-KILL -- -1``."""
    values = [v or "" for v in call.values]
    if len(values) == 1 and _MINUS_ONE.match(values[0]):
        return call.deny("kill -1 signals every process")
    if values and values[0] in ("-s", "-n", "--signal"):
        values = values[2:]
    elif values and values[0].startswith("-") and values[0] != "--":
        values = values[1:]
    values = values[1:] if values[:1] == ["--"] else values
    if any(_MINUS_ONE.match(v) for v in values):
        return call.deny("kill -1 signals every process")
    if any(re.fullmatch(r"0*1", v) for v in values):
        return call.deny("kill 1 signals init, which stops the machine (or the container)")
    return None


def _pkill(call: Call) -> str | None:
    opts = parse_options(call.values, frozenset({"-u", "-U", "-g", "-G", "-P", "-s", "-t"}))
    if call.name == "killall5":
        return call.deny("killall5 signals every process")
    if call.name in ("pkill", "pgrep") and not opts.flags.isdisjoint({"-v", "--inverse"}):
        return call.deny("pkill -v signals every process but the ones named")
    if opts.positionals and opts.positionals[-1] in (".", ".*", ".+", "^", "$", "", "^.*$"):
        return call.deny("a pattern that matches every process")
    return None


_STOP_TARGETS = word_set("poweroff reboot halt kexec rescue emergency shutdown ctrl-alt-del")


def _loginctl(call: Call) -> str | None:
    verbs = [v for v in call.values if v is not None and not v.startswith("-")]
    if verbs[:1] and verbs[0] in ("poweroff", "reboot", "halt", "kexec", "suspend", "hibernate"):
        return call.deny(f"loginctl {verbs[0]} stops the machine")
    return None


_DISK_TOOLS = word_set("sgdisk gdisk fdisk sfdisk cfdisk parted blkdiscard hdparm cryptsetup shred "
                     "partx sfdisk badblocks")  # fmt: skip
_DISK_LISTING = word_set("-l --list -p --print print -I -i --info --dump -d status luksDump -v "
                       "--verify")  # fmt: skip


_CRYPTSETUP_DESTROYS = word_set("luksFormat erase luksErase reencrypt luksKillSlot luksRemoveKey")


def _disk_tool(call: Call) -> str | None:
    """Partitioning, discarding, erasing or formatting a disk device (``badblocks`` only with
    ``-w``, its destructive test; ``cryptsetup`` only for the verbs that destroy data)."""
    values = [v for v in call.values if v is not None]
    devices = [v for v in values if is_disk_device(v)]
    if not devices or (call.name != "blkdiscard" and not _DISK_LISTING.isdisjoint(values)):
        return None
    if call.name == "badblocks" and not any(
        re.fullmatch(r"-[a-zA-Z]*w[a-zA-Z]*", v) for v in values
    ):
        return None
    if call.name == "cryptsetup" and _CRYPTSETUP_DESTROYS.isdisjoint(values):
        return None
    return call.deny(f"{call.name} changes the disk device {devices[0]}")


def _systemctl(call: Call) -> str | None:
    operands = parse_options(call.values, frozenset({"-H", "-M", "-t", "-p"})).positionals
    verb = operands[0] if operands else None
    cancels = "--when=cancel" in call.values or ("--when", "cancel") in itertools.pairwise(
        call.values
    )
    if verb in ("poweroff", "reboot", "halt", "kexec", "soft-reboot", "rescue", "emergency") and (
        not cancels
    ):
        return call.deny(f"systemctl {verb} stops the machine")
    units = [u for u in operands[1:] if u is not None]
    if verb in ("isolate", "start", "restart", "reload-or-restart") and any(
        u.removesuffix(".target") in _STOP_TARGETS for u in units
    ):
        return call.deny(f"systemctl {verb} of a target that stops the machine")
    if verb in ("enable", "link", "reenable", "preset", "add-wants"):
        return call.deny(f"systemctl {verb} installs a unit (persistence)")
    return None


def _netcat(call: Call) -> str | None:
    for value in call.values:
        if value is not None and (
            value.split("=")[0] in ("--exec", "--sh-exec", "--lua-exec")
            or re.fullmatch(r"-[A-Za-z0-9]*[ec][A-Za-z0-9]*", value)
        ):
            return call.deny("netcat executing a program (reverse shell)")
    return None


def _socat(call: Call) -> str | None:
    for value in call.values:
        if value is not None and re.search(r"(^|[,!])\s*(exec|system):", value, re.I):
            return call.deny("socat executing a program (reverse shell)")
    return None


_CONTAINER_VALUE = word_set(
    "-v --volume --mount --pid --cap-add -e --env --name -p -w -u --user --device --env-file "
    "--security-opt --network --net -h --hostname --entrypoint -l --label"
)
_HOST_CAPABILITIES = word_set("ALL SYS_ADMIN SYS_MODULE SYS_PTRACE DAC_READ_SEARCH SYS_RAWIO")


def _container(call: Call) -> str | None:
    opts = parse_options(call.values, _CONTAINER_VALUE)
    if {"run", "create", "exec"}.isdisjoint(p for p in opts.positionals[:2] if p is not None):
        return None
    if "--privileged" in opts.flags:
        return call.deny("a privileged container (host root)")
    if "host" in opts.valued.get("--pid", []):
        return call.deny("a container in the host PID namespace")
    caps = {(c or "").upper().removeprefix("CAP_") for c in opts.valued.get("--cap-add", [])}
    if _HOST_CAPABILITIES & {part for cap in caps for part in cap.split(",")}:
        return call.deny("a container with host-root capabilities")
    if any(is_disk_device(d or "") for d in opts.valued.get("--device", [])):
        return call.deny("a container given a host disk device")
    volumes = opts.valued.get("-v", []) + opts.valued.get("--volume", [])
    sources = [(volume or "").split(":")[0] for volume in volumes]
    for mount in opts.valued.get("--mount", []):
        items = [item.partition("=") for item in (mount or "").split(",")]
        sources += [value for key, _, value in items if key in ("source", "src")]
    for source in sources:
        resolved = call.paths.resolve(source) if source else None
        if resolved is not None and (
            destroys_system_or_home(resolved, call.paths.home)
            or resolved.endswith("docker.sock")
            or secret_directory(resolved, call.paths.home)
            or secret_kind(resolved)
        ):
            return call.deny(f"mounts the host's {source} into a container")
    return None


_AGENTS = word_set(
    "claude claude-code codex gemini gemini-cli aider amp cursor-agent goose opencode qwen "
    "copilot crush q tether"
)
_AGENT_UNGUARDED = word_set(
    "--yolo --yes-always --allow-all-tools --trust-all-tools --force gemini:-y aider:--yes "
    "--permission-mode=bypasspermissions --approval-mode=yolo --sandbox=danger-full-access "
    '-s=danger-full-access sandbox_mode=danger-full-access sandbox_mode="danger-full-access" '
    "qwen:-y crush:-y crush:--yolo cursor-agent:-f tether:--gate=yolo"
)


def _agent_unguarded(call: Call) -> str | None:
    values = [v for v in call.values if v]
    agent = call.name in _AGENTS
    for form in values + [f"{a}={b}" for a, b in itertools.pairwise(values)] if agent else values:
        unguarded = {form.lower(), f"{call.name}:{form}"} & _AGENT_UNGUARDED if agent else None
        if form.startswith("--dangerously") or unguarded:
            return call.deny(f"{form} launches an agent with its guards off")
    return None


_GIT_KEY_RUNS_CODE = re.compile(
    r"^(core\.(hookspath|pager|sshcommand|fsmonitor|askpass|gitproxy|worktree)|diff\.external|"
    r"pager\..+|filter\..+\.(clean|smudge|process)|diff\..+\.(textconv|command)|"
    r"merge\..+\.driver|uploadpack\.packobjectshook|include\.path|includeif\..+\.path|"
    r"init\.templatedir)$",
    re.I,
)
"""Config keys whose setting is denied outright (the keys that name a program, judged by their
value: :mod:`._git_programs`)."""


def _git_key_runs_code(key: str, value: str | None) -> bool:
    lowered = key.lower()
    helper = lowered == "credential.helper" or re.fullmatch(r"credential\..+\.helper", lowered)
    command_value = lowered.startswith("alias.") or helper or re.fullmatch(
        r"submodule\..+\.update", lowered
    )  # fmt: skip
    return bool(_GIT_KEY_RUNS_CODE.match(key)) or bool(
        command_value and (value is None or value.startswith("!"))  # '': resets, runs nothing
    )


def _config_env_key(option: str | None, following: str | None) -> str | None:
    """``git --config-env=KEY=VAR`` (or ``--config-env KEY=VAR``): the KEY set from a variable."""
    if option is None or not option.startswith("--config-env"):
        return None
    setting = option.partition("=")[2] if "=" in option else following
    return (setting or "").partition("=")[0] or None


def _git(call: Call) -> str | None:
    values = call.values
    for option, setting in itertools.pairwise((*values, None)):
        key, eq, value = (setting or "").partition("=")
        if option in ("-c", "--config") and eq and _git_key_runs_code(key, value):
            return call.deny(f"git -c {key}=... makes git run a program (config injection)")
        from_environment = _config_env_key(option, setting)
        if from_environment is not None and _git_key_runs_code(from_environment, None):
            return call.deny(f"git --config-env {from_environment}=... makes git run a program "
                             "its environment names (config injection)")  # fmt: skip
    subcommand, rest = git_subcommand(values)
    opts = parse_options(rest, frozenset({"-f", "--file", "--blob", "--type", "--default"}))
    operands = opts.positionals[1:] if opts.positionals[:1] == ["set"] else opts.positionals
    name = operands[0] if subcommand == "config" and len(operands) >= 2 else None
    if name is not None and _git_key_runs_code(name, operands[1]):
        return call.deny(f"git config {name} makes git run a program (persistence)")
    return None


def _crontab(call: Call) -> str | None:
    if "-l" in call.values and {"-e", "-r", "-i"}.isdisjoint(call.values):
        return None
    return call.deny("changes the cron schedule (persistence)")


_Rule: TypeAlias = Callable[[Call], "str | None"]
_RULES: dict[str, _Rule] = {
    "rm": _destroys, "mv": _destroys, "chmod": _destroys, "chown": _destroys, "chgrp": _destroys,
    "dd": _dd, "kill": _kill, "pkill": _pkill, "killall": _pkill, "systemctl": _systemctl,
    "crontab": _crontab, "killall5": _pkill, "pgrep": _pkill, "loginctl": _loginctl,
    **dict.fromkeys(_DISK_TOOLS, _disk_tool), "nc": _netcat, "ncat": _netcat, "socat": _socat,
    "docker": _container, "podman": _container, "nerdctl": _container, "git": _git,
    "python": interpreter_rule, "perl": interpreter_rule, "ruby": interpreter_rule,
    "php": interpreter_rule, "node": interpreter_rule, "lua": interpreter_rule,
    "awk": interpreter_rule,
}  # fmt: skip
_FAMILIES = (
    (re.compile(r"^(python|pypy)[0-9.]*$"), "python"), (re.compile(r"^[gmn]?awk$"), "awk"),
    (re.compile(r"^(nodejs|deno|bun)$"), "node"), (re.compile(r"^perl[0-9.]*$"), "perl"),
    (re.compile(r"^(mkfs(\..*)?|mke2fs|mkswap|wipefs)$"), "mkfs"),
    (re.compile(r"^(nc|netcat)(\..*)?$"), "nc"), (re.compile(r"^telinit$"), "init"),
    (re.compile(r"^(reboot|halt|poweroff)$"), "shutdown"),
)  # fmt: skip


@lru_cache(maxsize=1024)
def family(name: str) -> str:
    """``python3.12`` -> ``python``, ``mkfs.ext4`` -> ``mkfs``; other names unchanged."""
    return next((canonical for pattern, canonical in _FAMILIES if pattern.match(name)), name)


def _formats_device(call: Call) -> bool:
    """mkfs of anything but regular files named in plain words (``mkfs.erofs image.erofs
    root/`` builds an image file): a device, a path under ``/dev``, or one not known."""
    if call.name == "wipefs" and (
        {"-n", "--no-act"} & set(call.values)
        or not any(v and re.match(r"^(-[a-zA-Z]*[ao]|--all|--offset)", v) for v in call.values)
    ):  # without -a/-o it only lists signatures; -n changes nothing
        return False
    operands = [v for v in call.values if v is None or not v.startswith("-")]
    for operand in operands or [None]:
        resolved = call.paths.resolve(operand) if operand is not None else None
        if resolved is None or resolved.startswith("/dev/") or is_disk_device(resolved):
            return True
    return False


def check_call(call: Call) -> list[str]:
    """Deny reasons for one command: its own rule, agents with guards off, network devices."""
    name = family(call.name)
    rule = _RULES.get(name)
    found = [rule(call) if rule is not None else None, _agent_unguarded(call)]
    cancels = call.name == "shutdown" and call.values in (("-c",), ("--show",))
    if (name == "shutdown" and not cancels) or (
        name == "init" and call.values[:1] in (("0",), ("6",))
    ):
        found.append(call.deny("stops or restarts the machine"))
    if name == "mkfs" and _formats_device(call):
        found.append(call.deny("formats a disk"))
    if call.name not in ("echo", "printf") and any(
        v is not None and is_network_device(v) for v in call.values
    ):
        found.append(call.deny("opens /dev/tcp or /dev/udp (reverse shell)"))
    return [reason for reason in found if reason]


_TARGET_VALUES = {
    "scp": frozenset({"-i", "-P", "-o", "-F", "-c", "-l", "-J", "-S"}),
    "rsync": frozenset({"-e", "--rsh", "-f", "--filter", "--exclude", "--include", "-T"}),
}  # fmt: skip
_CHANGES = word_set("touch truncate mkdir chmod chown chgrp shred rm rmdir unlink")


def write_targets(call: Call) -> list[str | None]:
    """Files ``call`` writes or removes (``None``: a target that expands at run time)."""
    name, values = call.name, call.values
    if name == "tee":
        return parse_options(values).positionals
    if name in WRITERS:
        return written_files(name, values)
    if name == "tar":
        return tar_written(values)
    if name == "unzip":
        return unzip_written(values)
    if name in ("sudo", "sudoedit"):  # sudo -e (sudoedit) edits, as root, the files it names
        read = read_options(GRAMMARS["sudo"], values)
        edits = name == "sudoedit" or read.given("e")
        return [values[i] for i in read.operands] if edits else []
    if name in _TARGET_VALUES:
        opts = parse_options(values, _TARGET_VALUES[name])
        targets = opts.valued.get("-t", []) + opts.valued.get("--target-directory", [])
        logs = [v.partition("=")[2] for v in values if v and v.startswith("--log-file=")]
        return logs + (targets if targets or len(opts.positionals) < 2 else opts.positionals[-1:])
    if name == "dd":
        return [v[3:] for v in values if v is not None and v.startswith("of=")]
    if name == "sed":
        return list(read_sed_arguments(values).edited)
    if name in _CHANGES:
        opts = parse_options(values, frozenset({"-s", "--size", "-r", "--reference", "-m"}))
        return opts.positionals[1:] if name in ("chmod", "chown", "chgrp") else opts.positionals
    if name in ("sort", "tree"):
        opts = parse_options(values, frozenset({"-o", "--output", "-T", "-k", "-t", "-L", "-I"}))
        return opts.valued.get("-o", []) + opts.valued.get("--output", [])
    if name == "git":  # diff's --output=FILE, or --output FILE (git's parse-options takes both)
        following = itertools.pairwise((*values, None))
        return [v.partition("=")[2] if v != "--output" else after for v, after in following
                if v is not None and (v == "--output" or v.startswith("--output="))
                ] + output_files(name, values)  # fmt: skip
    if name in OUTPUT_WRITERS:
        return output_files(name, values)
    return []


_DANGEROUS_LONGS = {
    **dict.fromkeys(("grep", "egrep", "fgrep"), ("--regexp", "--file", "--exclude-from")),
    "sort": ("--output", "--compress-program", "--files0-from", "--temporary-directory",
             "--random-source"),
    "wc": ("--files0-from",), "du": ("--files0-from", "--exclude-from"),
    "diff": ("--from-file", "--to-file"), "rg": ("--pre", "--pre-glob", "--file", "--ignore-file"),
    "less": ("--lesskey-src", "--lesskey-file", "--log-file", "--LOG-FILE"),
    "date": ("--file", "--set", "--reference"), "jq": ("--rawfile", "--slurpfile", "--from-file"),
    "git": ("--output", "--open-files-in-pager", "--ext-diff", "--exec-path", "--upload-pack"),
    "sed": ("--file", "--in-place", "--expression"), "tail": ("--follow",),
    "xargs": ("--arg-file",), "touch": ("--reference",), "tree": ("--fromfile",),
}  # fmt: skip


def canonical_options(name: str, values: Values) -> Values:
    """``values`` with GNU abbreviations of ``name``'s dangerous long options spelled out
    (``sort --outp=x`` is ``sort --output=x``): getopt accepts any unambiguous prefix."""
    longs = _DANGEROUS_LONGS.get(name)
    if longs is None:
        return values
    spelled: list[str | None] = []
    for value in values:
        option, eq, rest = (value or "").partition("=")
        full = [long for long in longs if long.startswith(option)] if len(option) > 3 else []
        spelled.append(full[0] + eq + rest if value and option[:2] == "--" and full else value)
    return tuple(spelled)


# --- the read-only list ---------------------------------------------------------------------


class _ReadOnly(NamedTuple):
    takes_value: frozenset[str]
    operands: str
    """``path``: every operand is a file read; ``pattern``: the first is not, unless one of
    ``patterns`` gives the pattern; ``one-path``: at most one file; ``text``: no operand is a
    file; ``none``: no operands at all."""
    unsafe: frozenset[str]
    path_values: frozenset[str]
    patterns: frozenset[str]


def _spec(takes: str = "", operands: str = "path", unsafe: str = "", paths: str = "",
          patterns: str = "") -> _ReadOnly:  # fmt: skip
    sets = [word_set(text) for text in (takes, unsafe, paths, patterns)]
    return _ReadOnly(sets[0] | sets[2], operands, sets[1], sets[2], sets[3])


_GREP = _spec("-e --regexp -m --max-count -A -B -C -d -D --include --exclude --exclude-dir",
              operands="pattern", paths="-f --file --exclude-from",
              patterns="-e --regexp -f --file")  # fmt: skip
_READ_ONLY: dict[str, _ReadOnly] = {
    # Only options whose value could pass for a file, or that are unsafe, need listing here:
    # an option value taken for an operand just makes the command stricter.
    **dict.fromkeys(word_set("ls cat tac nl wc more stat du df cmp comm cut diff md5sum sha1sum "
                           "sha256sum sha512sum cksum"), _spec()),
    "head": _spec("-n -c --lines --bytes"), "tail": _spec("-n -c --lines --bytes --pid"),
    "less": _spec(unsafe="-o -O -k --log-file --LOG-FILE"), "tree": _spec(unsafe="-o"),
    "file": _spec(unsafe="-C --compile", paths="-m -f --magic-file --files-from"),
    "grep": _GREP, "egrep": _GREP, "fgrep": _GREP,
    "rg": _spec("-e --regexp -g --glob --iglob -t --type -T --type-not -r --replace --pre "
                "--pre-glob", operands="pattern", unsafe="--pre --pre-glob",
                paths="-f --file --ignore-file", patterns="-e --regexp -f --file --files"),
    "sort": _spec("-o --output --compress-program -T --temporary-directory",
                  unsafe="-o --output --compress-program -T --temporary-directory"),
    "uniq": _spec(operands="one-path"),
    "date": _spec("-d --date", operands="text", unsafe="-s --set"),
    "hostname": _spec(operands="none"),
    "jq": _spec("--arg --argjson --slurpfile --rawfile --indent -L", operands="pattern",
                paths="-f --from-file", patterns="-f --from-file"),
    **dict.fromkeys(word_set(
        "echo printf pwd whoami id uname true false : which type basename dirname seq sleep "
        "expr test [ [[ command realpath readlink tty nproc arch groups locale dirs cd pushd "
        "popd tr"
    ), _spec(operands="text")),
}  # fmt: skip


def read_only_paths(name: str, values: Values) -> list[str | None] | None:
    """The files a read-only command reads, or ``None`` when it is not read-only as written."""
    if name == "git":
        return [] if _git_read_only(values) else None
    if name == "sed":
        printed = sed_printed_files(values)
        return None if isinstance(printed, str) else list(printed)
    if name in VERSIONED and values in (("--version",), ("-V",)):
        return [] if version_refusal(name) is None else None
    spec = _READ_ONLY.get(name)
    if spec is None:
        return None
    opts = parse_options(values, spec.takes_value)
    if not opts.flags.isdisjoint(spec.unsafe) or (
        name in ("less", "more") and any(p and p.startswith("+") for p in opts.positionals)
    ):
        return None
    files = [v for option in spec.path_values for v in opts.valued.get(option, [])]
    operands = opts.positionals
    if spec.operands == "text":
        return files
    if spec.operands == "pattern" and spec.patterns.isdisjoint(opts.flags):
        operands = operands[1:]
    if (spec.operands, bool(operands)) == ("none", True) or (
        spec.operands == "one-path" and len(operands) > 1
    ):
        return None
    return files + [p for p in operands if p != "-"]


_GIT_READ = word_set(
    "status log diff show rev-parse ls-files blame grep describe shortlog ls-tree cat-file "
    "rev-list show-ref for-each-ref name-rev merge-base count-objects version whatchanged "
    "annotate show-branch"
)
_GIT_UNSAFE = frozenset({"--output", "--ext-diff", "--open-files-in-pager", "-O", "--no-index"})
_GIT_WRITES = word_set(
    "-d -D -m -M -c -C -f --delete --move --copy --force -u --set-upstream-to --unset-upstream "
    "--edit-description --track -t --no-track --create-reflog -s -e -F --annotate --sign "
    "--message --file --edit"
)


def _git_read_only(values: Values) -> bool:
    for value in values:
        if value is None or not value.startswith("-"):
            break
        if value in ("-c", "-p", "--paginate") or value.startswith(("--exec-path", "--config")):
            return False
    subcommand, rest = git_subcommand(values)
    if subcommand is None:
        return list(values) == ["--version"]
    if None in rest or any((r or "").split("=")[0] in _GIT_UNSAFE for r in rest):
        return False
    if subcommand in _GIT_READ:
        return True
    opts = parse_options(rest, frozenset({"--contains", "--merged", "--no-merged",
                                          "--points-at", "--sort", "--format"}))  # fmt: skip
    writes = _GIT_WRITES | {"-a"} if subcommand == "tag" else _GIT_WRITES
    if subcommand in ("branch", "tag") and opts.flags.isdisjoint(writes):
        return not opts.positionals or not opts.flags.isdisjoint({"-l", "--list"})
    if subcommand == "remote":
        return list(rest) in ([], ["-v"], ["--verbose"])
    return subcommand in ("stash", "reflog") and rest[:1] in ((), ("list",), ("show",))


_DECOMPRESSORS = word_set("uudecode gunzip zcat bzcat xzcat unxz bunzip2 zstdcat unzstd rev")
_DECODERS = word_set("base64 basenc b64 xxd openssl gzip bzip2 xz zstd") | _DECOMPRESSORS


def decodes(name: str, values: Values) -> bool:
    """``name`` decodes or decompresses its input (``base64 -d``, ``xxd -r``, ``gunzip`` ...)."""
    if name not in _DECODERS:
        return False
    flags = parse_options(values).flags
    if name == "xxd":
        return not flags.isdisjoint({"-r", "-revert"})
    return name in _DECOMPRESSORS or not flags.isdisjoint({"-d", "-D", "--decode", "--decompress"})
