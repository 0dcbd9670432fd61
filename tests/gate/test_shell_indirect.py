"""Indirections spelled out: function calls with their arguments, case-changing expansions,
echoed substitutions, links made earlier in the script."""

from __future__ import annotations

import pytest

from tether.gate._shell._indirect import indirect_readings
from tether.gate._shell._parse import ShellParser

PARSER = ShellParser()


def readings(text: str) -> list[str]:
    script = PARSER.parse(text)
    return indirect_readings(text, script.root, script.source)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('f(){ rm -rf "$1"; }; f ~', "rm -rf ~;"),
        ("f() { rm -rf $@; }; f / x", "rm -rf / x;"),
        ('function g { cp "$1" "$2"; }; g a b', "cp a b;"),
        ("rm -rf ${HOME,,}", "rm -rf ${HOME}"),
        ("rm -rf ${HOME@L}", "rm -rf ${HOME}"),
        ("rm -rf $(echo ~)", "rm -rf ~"),
        ("rm -rf `echo /`", "rm -rf /"),
        ("rm -rf $(printf %s /tmp)", "rm -rf /tmp"),
        ("ln -s ~ h; rm -rf h/", "ln -s ~ h; rm -rf ~/"),
        ("ln -sf / r && rm -rf ./r/x", "ln -sf / r && rm -rf //x"),
    ],
)
def test_the_indirection_is_read(text: str, expected: str) -> None:
    assert expected in [reading.strip() for reading in readings(text)]


@pytest.mark.parametrize(
    "text", ["ls -la", "echo $HOME", 'f(){ echo "$1"; }', "f(){ rm -rf $1; }; f $(pwd)"]
)
def test_nothing_to_read(text: str) -> None:
    assert [r for r in readings(text) if "rm -rf" in r and "$" not in r] == []
