"""The tools' own behaviour tests, run again with every file and search operation on the SSH
"remote" host (this machine, through a real sshd): the same test bodies, not copies.

Each test of ``tests/tools`` that runs against a backend (a ``backend`` parameter or fixture, or
the ``workspace`` fixture) is collected here once per parameter combination and called with
``SSHOperations`` in place of ``LocalOperations``. The remote host shares this machine's file
system, so the tests' own helpers still lay out and inspect files directly.
"""

from __future__ import annotations

import inspect
import itertools
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.tools import test_edit, test_find, test_grep, test_ls, test_read, test_write
from tests.tools.file_workspace import Workspace

from tether.remote import SSHOperations

from .sshd import SSHServer

_PATCHED_MODULES = (test_grep, test_find)
"""Modules whose tests build ``LocalOperations()`` themselves for ``backend == "local"``."""
_WORKSPACE_MODULES = (test_read, test_write, test_ls)
_EDIT_MODULES = (test_edit,)
_SUPPLIED = {"backend", "workspace", "tmp_path"}


def _parameter_sets(function: Callable[..., Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every combination of the function's ``parametrize`` marks, ``backend`` left out."""
    axes: list[list[tuple[str, dict[str, Any]]]] = []
    for mark in getattr(function, "pytestmark", []):
        if mark.name != "parametrize":
            continue
        names = (
            [n.strip() for n in mark.args[0].split(",")]
            if isinstance(mark.args[0], str)
            else list(mark.args[0])
        )
        if names == ["backend"]:
            continue
        axis = []
        for index, value in enumerate(mark.args[1]):
            values = (
                value.values
                if hasattr(value, "values")
                else (value if len(names) > 1 else (value,))
            )
            label = getattr(value, "id", None) or str(index)
            axis.append((label, dict(zip(names, values, strict=True))))
        axes.append(axis)
    for combination in itertools.product(*axes):
        labels = "-".join(label for label, _ in combination)
        arguments: dict[str, Any] = {}
        for _, values in combination:
            arguments.update(values)
        yield labels, arguments


def _cases() -> Iterator[Any]:
    for module in (*_PATCHED_MODULES, *_WORKSPACE_MODULES, *_EDIT_MODULES):
        for name, function in vars(module).items():
            if not name.startswith("test_") or not inspect.iscoroutinefunction(function):
                continue
            parameters = set(inspect.signature(function).parameters)
            if not parameters & {"backend", "workspace"}:
                continue
            for labels, arguments in _parameter_sets(function):
                if not parameters <= _SUPPLIED | set(arguments):
                    continue
                case_id = f"{module.__name__.rsplit('.', 1)[-1]}::{name}" + (
                    f"[{labels}]" if labels else ""
                )
                yield pytest.param(module, function, arguments, id=case_id)


@pytest.mark.parametrize(("module", "function", "arguments"), list(_cases()))
async def test_tool_behaviour_over_ssh(
    module: types.ModuleType,
    function: Callable[..., Any],
    arguments: dict[str, Any],
    sshd: SSHServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    opened: list[SSHOperations] = []

    def ssh_operations(*args: Any, **kwargs: Any) -> SSHOperations:
        operations = sshd.operations()
        opened.append(operations)
        return operations

    parameters = inspect.signature(function).parameters
    call = dict(arguments)
    if "tmp_path" in parameters:
        call["tmp_path"] = tmp_path
    if module in _PATCHED_MODULES:
        monkeypatch.setattr(module, "LocalOperations", ssh_operations)
        call["backend"] = "local"
    elif module in _WORKSPACE_MODULES:
        root = tmp_path / "ws"
        root.mkdir()
        call["workspace"] = Workspace("local", str(root), ssh_operations())
    else:
        call["backend"] = test_edit.Backend("local", str(tmp_path), ssh_operations())  # type: ignore[arg-type]
    try:
        await function(**call)
    finally:
        for operations in opened:
            await operations.close()
