"""Where tether keeps its files: ``TETHER_HOME`` when set, else the platform's user directories.

With ``TETHER_HOME`` set, that one directory holds everything (``models.toml``, ``config.toml``,
``sessions/``); otherwise configuration lives in the user config directory and data (sessions)
in the user data directory for ``tether``, as platformdirs names them. Nothing is created here.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["config_dir", "data_dir", "models_config_path"]

_APP = "tether"


def config_dir() -> Path:
    """The directory of ``models.toml`` and ``config.toml``."""
    home = _tether_home()
    if home is not None:
        return home
    import platformdirs

    return Path(platformdirs.user_config_dir(_APP, appauthor=False))


def data_dir() -> Path:
    """The directory that holds ``sessions/``."""
    home = _tether_home()
    if home is not None:
        return home
    import platformdirs

    return Path(platformdirs.user_data_dir(_APP, appauthor=False))


def models_config_path() -> Path:
    """The ``models.toml`` read when no other path is given."""
    return config_dir() / "models.toml"


def _tether_home() -> Path | None:
    home = os.environ.get("TETHER_HOME")
    return Path(home).expanduser() if home else None
