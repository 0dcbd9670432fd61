"""Every public exception of every package derives from ``tether.TetherError`` (and keeps its
built-in base), and the root catches nothing that is not tether's own."""

from __future__ import annotations

import importlib

import pytest

import tether
from tether.ai import TetherError

PACKAGES = (
    "tether.ai", "tether.ai.providers", "tether.agent", "tether.gate", "tether.tools",
    "tether.tools.operations", "tether.session", "tether.remote", "tether.mcp", "tether.skills",
    "tether.durable",
)  # fmt: skip


def public_exceptions() -> list[tuple[str, type[BaseException]]]:
    found: list[tuple[str, type[BaseException]]] = []
    for package in PACKAGES:
        module = importlib.import_module(package)
        for name in module.__all__:
            value = getattr(module, name)
            if isinstance(value, type) and issubclass(value, BaseException):
                found.append((f"{package}.{name}", value))
    return found


def test_the_packages_export_the_exceptions_the_tree_names() -> None:
    names = {name.rsplit(".", 1)[1] for name, _ in public_exceptions()}
    assert {"SessionError", "ToolError", "UnknownModelError", "McpConfigError"} <= names
    tree = TetherError.__doc__ or ""
    for name in names - {"TetherError"}:
        assert name in tree, f"{name} is missing from the documented tree"


@pytest.mark.parametrize(("name", "error"), public_exceptions())
def test_every_public_exception_derives_from_the_root(name: str, error: type) -> None:
    assert issubclass(error, TetherError), name


def test_the_root_is_reachable_from_the_top_package_and_keeps_builtin_bases() -> None:
    from tether.remote import HostKeyMismatchError
    from tether.session import SessionError

    assert tether.TetherError is TetherError
    assert issubclass(SessionError, ValueError)
    assert issubclass(HostKeyMismatchError, ConnectionError)
    with pytest.raises(TetherError):
        raise SessionError("bad header")
    assert not issubclass(KeyError, TetherError)
