"""The shell commands a one-liner visibly runs, as the shell policy will judge them."""

from __future__ import annotations

import pytest

from tether.gate._shell._code import code_commands


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ('import os; os.system("rm -rf ~")', ["rm -rf ~"]),
        ('BEGIN { "id" | getline x }', ["id"]),
        ('{ print $1 | "sort -u" }', ["sort -u"]),
        ('import shutil; shutil.rmtree("/")', ["rm -rf /"]),
        ("import shutil, pathlib; shutil.rmtree(pathlib.Path.home())", ["rm -rf ~"]),
        ('require("fs").rmSync(require("os").homedir(), {recursive: true})', ["rm -rf ~"]),
        ('require("fs").rmSync("dist", {recursive: true})', ["rm -rf dist"]),
        ("import shutil, os; shutil.rmtree(os.path.join(os.getcwd(), 'build'))", []),
        ("import os; getattr(os, 'sys'+'tem')('rm -rf ~')", ["system", "rm -rf ~"]),
        ("print('hello')", []),
    ],
)
def test_commands(code: str, expected: list[str]) -> None:
    assert code_commands(code) == expected
