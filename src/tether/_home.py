"""Where tether keeps its files, and how it writes them: layer 0, below every package.

Directories. With ``TETHER_HOME`` set, that one directory holds everything (``models.toml``,
``config.toml``, ``sessions/``); otherwise configuration lives in the user config directory and
data (sessions, logs, pins) in the user data directory for ``tether``, as platformdirs names them.
The paths are computed on each call (a test or a person may change ``TETHER_HOME``); nothing is
created by asking.

Private files. Sessions, exports, logs, pins and the MCP token hold what a person typed and what
tools printed, secrets included. So every file tether writes is 0600 and every directory it makes
0700, whatever the umask, and never anything wider even for a moment: a file is created by
``os.open`` with mode 0600 and then ``fchmod``-ed (the umask can only remove bits; an existing
file is tightened too), a directory by ``os.mkdir`` with mode 0700 and then ``chmod``-ed. The data
directory and every directory inside it are tightened to 0700 when tether writes there, so an
older, wider layout becomes private on first use; an existing directory outside it (a person's
project holding a ``--session`` file) is left as it is.

Reading. :func:`read_toml` reads a TOML file such as ``config.toml`` with one wording of what is
wrong with it, whichever package reads it; :func:`known_table` checks one of its tables.

Imports nothing of tether; ``ai.providers`` re-exports the public names.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any, Literal, TextIO

__all__ = [
    "config_dir",
    "config_toml_path",
    "data_dir",
    "known_table",
    "models_config_path",
    "open_private",
    "private_dir",
    "read_toml",
    "write_private",
]

_APP = "tether"

StrPath = str | os.PathLike[str]

_FLAGS = {"a": os.O_APPEND, "w": os.O_TRUNC, "x": os.O_EXCL}


def config_dir() -> Path:
    """The directory of ``models.toml`` and ``config.toml``."""
    home = _tether_home()
    if home is not None:
        return home
    import platformdirs

    return Path(platformdirs.user_config_dir(_APP, appauthor=False))


def data_dir() -> Path:
    """The directory that holds ``sessions/`` and everything else tether keeps."""
    home = _tether_home()
    if home is not None:
        return home
    import platformdirs

    return Path(platformdirs.user_data_dir(_APP, appauthor=False))


def models_config_path() -> Path:
    """The ``models.toml`` read when no other path is given."""
    return config_dir() / "models.toml"


def config_toml_path() -> Path:
    """The ``config.toml`` (default model, MCP servers, hands) read when no other path is given."""
    return config_dir() / "config.toml"


def read_toml(path: Path, error: Callable[[str], Exception]) -> dict[str, Any] | None:
    """The table of the TOML file ``path``; ``None`` when there is no such file. Any other
    failure raises ``error(message)``, the message naming the file and what is wrong with it
    (not UTF-8, nested too deeply, unreadable, not valid TOML)."""
    import tomllib

    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except FileNotFoundError:
        return None
    except UnicodeDecodeError as exc:
        raise error(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except RecursionError:
        raise error(f"{path}: invalid TOML: nested too deeply") from None
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise error(f"{path}: {exc}") from None


def known_table(
    where: str, value: object, keys: Collection[str], error: Callable[[str], Exception]
) -> dict[str, Any]:
    """``value``, a table of ``config.toml`` named by ``where``, checked to be a table holding
    only ``keys``; otherwise ``error(message)`` is raised."""
    if not isinstance(value, dict):
        raise error(f"{where} must be a table")
    unknown = sorted(set(value) - set(keys))
    if unknown:
        raise error(f"{where}: unknown key(s) {', '.join(unknown)}")
    return value


def _tether_home() -> Path | None:
    home = os.environ.get("TETHER_HOME")
    return Path(home).expanduser() if home else None


def private_dir(path: StrPath) -> Path:
    """``path`` as a directory, its missing parts created 0700; when it is the data directory or
    inside it, it and its ancestors up to the data directory are made 0700 as well."""
    target = Path(os.path.abspath(path))
    missing: list[Path] = []
    existing = target
    while not existing.is_dir():
        missing.append(existing)
        existing = existing.parent
    data = Path(os.path.abspath(data_dir()))
    for directory in (existing, *existing.parents):
        if directory == data or data in directory.parents:
            _tighten(directory, 0o700)
    for directory in reversed(missing):
        try:
            os.mkdir(directory, 0o700)
        except FileExistsError:
            if not directory.is_dir():
                raise
        os.chmod(directory, 0o700)
    return target


def open_private(path: StrPath, mode: Literal["a", "w", "x"] = "w") -> TextIO:
    """``path`` opened for writing UTF-8 text — ``a`` appends, ``w`` truncates, ``x`` only
    creates — as a 0600 file (created so, or tightened); its directory made by
    :func:`private_dir`."""
    private_dir(os.path.dirname(os.path.abspath(path)))
    flags = os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC | _FLAGS[mode]
    descriptor = os.open(path, flags, 0o600)
    try:
        os.fchmod(descriptor, 0o600)
        return open(descriptor, "a" if mode == "a" else "w", encoding="utf-8")
    except BaseException:
        os.close(descriptor)
        raise


def write_private(path: StrPath, text: str) -> None:
    """Replace ``path`` by a 0600 file holding ``text``, atomically: a reader sees the old
    content or the new, never a part."""
    import tempfile  # with shutil, bz2 and lzma: not worth loading for every import of tether

    target = Path(os.path.abspath(path))
    directory = private_dir(target.parent)
    descriptor, temporary = tempfile.mkstemp(dir=directory, prefix=f".{target.name}-")
    try:
        with open(descriptor, "w", encoding="utf-8") as handle:
            os.fchmod(handle.fileno(), 0o600)
            handle.write(text)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise


def _tighten(path: Path, mode: int) -> None:
    if os.stat(path).st_mode & 0o777 != mode:
        os.chmod(path, mode)
