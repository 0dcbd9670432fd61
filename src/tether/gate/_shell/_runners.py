"""Project and package runners: ``uv run CMD``, ``poetry run CMD``, ``npm exec -c SCRIPT``,
``npx --call SCRIPT``, ``bundle exec CMD``, ``mise exec -- CMD``, ``xvfb-run CMD`` ... each runs
a command (or a shell script) that a person would judge like the command itself, yet
``uv run rm -rf ~`` and ``npx -c 'rm -rf ~'`` were ``approve`` (unasked in yolo mode) where
``rm -rf ~`` is denied.

Their option grammars are many and change between releases, so they are not read exactly:
every place the command may start (each word that is not an option, after the subcommand) is a
reading the deny rules judge, as for a wrapper line tether cannot read (:mod:`._wrapper_walk`);
and the value of each option that takes a shell script is judged as one. A runner is already
``approve`` (it is on no read-only list); this only finds the denials.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

__all__ = ["RunnerReadings", "runner_readings"]

_ANY = frozenset({"*"})
_RUNNERS: dict[str, frozenset[str]] = {
    **dict.fromkeys(("uv",), frozenset({"run", "tool"})),
    **dict.fromkeys(
        ("poetry", "pdm", "pipenv", "hatch", "rye", "conda", "mamba", "micromamba", "pixi"),
        frozenset({"run", "exec"}),
    ),
    "npm": frozenset({"exec", "x"}),
    "pnpm": frozenset({"exec", "dlx"}),
    "yarn": frozenset({"exec", "dlx"}),
    "bun": frozenset({"x", "exec"}),
    **dict.fromkeys(
        ("bundle", "bundler", "rbenv", "pyenv", "asdf", "direnv", "aws-vault"), frozenset({"exec"})
    ),
    **dict.fromkeys(("mise", "rtx"), frozenset({"exec", "x"})),
    **dict.fromkeys(("op", "doppler", "infisical", "dotenvx"), frozenset({"run"})),
    **dict.fromkeys(
        (
            "npx",
            "pnpx",
            "bunx",
            "uvx",
            "pipx",
            "xvfb-run",
            "dbus-run-session",
            "dotenv",
            "cross-env",
            "env-cmd",
            "nodemon",
            "entr",
        ),
        _ANY,
    ),
}
"""Each runner and the subcommands with which it runs a command (``*``: it always does)."""
_SCRIPT_OPTIONS: dict[str, frozenset[str]] = {
    **dict.fromkeys(("npm", "npx", "pnpm", "pnpx"), frozenset({"-c", "--call", "--shell-mode"})),
    "nix-shell": frozenset({"--run", "--command"}),
    "nodemon": frozenset({"--exec", "-x"}),
    "direnv": frozenset({"--command"}),
}
"""Options whose value is a shell script the runner hands to a shell."""
_MAX_STARTS = 8


class RunnerReadings(NamedTuple):
    starts: tuple[int, ...]
    """Indexes of the words where the command may start."""
    scripts: tuple[str, ...]
    """Shell scripts given to its script options."""


def runner_readings(name: str, values: Sequence[str | None]) -> RunnerReadings | None:
    """Where the command ``name`` runs may start, and the scripts it hands to a shell; ``None``
    when ``name`` with these arguments runs neither."""
    subcommands = _RUNNERS.get(name)
    script_options = _SCRIPT_OPTIONS.get(name, frozenset())
    if subcommands is None and not script_options:
        return None
    scripts = tuple(_script_values(values, script_options))
    first = 0
    if subcommands is not None and subcommands is not _ANY:
        # the first word that is one (an option's value may come first: uv --directory x run)
        first = next((i for i, v in enumerate(values) if v in subcommands), len(values))
        if first == len(values):
            return RunnerReadings((), scripts) if scripts else None
        first += 1
    candidates = [i for i in range(first, len(values)) if not _is_option(values[i])]
    starts = tuple(candidates[:_MAX_STARTS]) if subcommands is not None else ()
    return RunnerReadings(starts, scripts) if starts or scripts else None


def _is_option(value: str | None) -> bool:
    return value is not None and value.startswith("-") and value != "-"


def _script_values(values: Sequence[str | None], options: frozenset[str]) -> list[str]:
    found: list[str] = []
    for index, value in enumerate(values):
        option, eq, attached = (value or "").partition("=")
        if option not in options:
            continue
        script = attached if eq else values[index + 1] if index + 1 < len(values) else None
        found += [script] if script else []
    return found
