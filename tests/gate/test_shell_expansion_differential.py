"""The policy's expansion of words against real bash: each probe prints, in a scratch directory,
the fields bash makes of one word, and the policy's expander must make the same."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tether.gate._shell._expand import Environment, expand_word

BASH = shutil.which("bash")

# (assignments run first, each literal; the word; a note naming the expansion class)
PROBES: list[tuple[dict[str, str], str, str]] = [
    ({}, "{.e,}nv", "brace list"),
    ({}, "a{b,c}d{e,f}", "two brace lists"),
    ({}, "/{a,{b,}}", "nested braces"),
    ({}, "{rm,-rf,x}", "braces make a command line"),
    ({}, "{1..4}", "numeric sequence"),
    ({}, "{01..10..3}", "padded sequence with a step"),
    ({}, "{c..a}", "descending letters"),
    ({}, "x{a}y", "a brace without a comma is literal"),
    ({}, "'{a,b}'", "quoted braces are literal"),
    ({}, "{a,'b c'}", "a quoted alternative"),
    ({}, "HEAD@{1}", "git reflog syntax"),
    ({}, "{,}x", "empty alternatives"),
    ({}, "$'\\x72\\x6d'", "ANSI-C hex"),
    ({}, "$'a\\tb\\101'", "ANSI-C tab and octal"),
    ({}, "$'\\u00e9'", "ANSI-C unicode"),
    ({}, '$"locale"', "locale quoting"),
    ({}, "pre$'\\x2e'env", "ANSI-C inside a word"),
    ({"x": "-rf /"}, "$x", "word splitting"),
    ({"x": "-rf /"}, '"$x"', "no splitting in quotes"),
    ({"x": "  a   b  "}, "$x", "runs of blanks"),
    ({"x": "a", "y": "b"}, "$x/${y}", "two variables"),
    ({"IFS": ":", "x": "rm:-rf:/"}, "$x", "IFS of one character"),
    ({"IFS": ":", "x": ":a::b:"}, "$x", "empty fields between delimiters"),
    ({"IFS": " :", "x": "a : b"}, "$x", "blank and non-blank IFS together"),
    ({"e": ""}, "$e", "an empty unquoted variable vanishes"),
    ({"e": ""}, '"$e"', "an empty quoted variable stays"),
    ({"e": ""}, "x$e", "an empty variable inside a word"),
    ({"x": "-exec rm -rf ~ ;"}, "$x", "a variable holding options"),
    ({}, "~", "home"),
    ({}, "~/a", "home prefix"),
    ({}, "'~'", "quoted tilde"),
    ({}, "~+/x", "the working directory"),
    ({}, "~-/x", "the previous directory"),
    ({}, "a~", "tilde inside a word"),
    ({}, "/???", "a glob on a system path"),
    ({}, "/e?c/host*", "a glob in two components"),
    ({}, "/nonexistent-*", "a glob that matches nothing stays"),
    ({}, "'/e'?c", "a quoted part of a glob"),
    ({}, "/e\\?c", "an escaped glob character"),
    ({"x": "/home/u/"}, "${x%/}", "a shortest suffix removed"),
    ({"x": "a.tar.gz"}, "${x%%.*}", "a longest suffix removed"),
    ({"x": "a.tar.gz"}, "${x#*.}", "a shortest prefix removed"),
    ({"x": "a.tar.gz"}, "${x##*.}", "a longest prefix removed"),
    ({"x": "a-b-c"}, "${x/-/ }", "the first match replaced, then split"),
    ({"x": "a-b-c"}, "${x//-/ }", "every match replaced"),
    ({"x": "abc"}, "${x/#a/z}", "a replacement anchored at the start"),
    ({"x": "abc"}, "${x/%c/z}", "a replacement anchored at the end"),
    ({"x": "abcdef"}, "${x:2:3}", "a substring"),
    ({"x": ""}, "${x:-dflt}", "a default for an empty value"),
    ({"x": "set"}, "${x:+alt}", "an alternative for a set value"),
    ({"x": "[ab]c"}, "${x/[ab]/z}", "a bracket pattern"),
    ({}, "$(printf '%s-%s' a b c)", "printf's format used again"),
    ({}, "$(echo -n a b)", "echo's words"),
    ({}, "\"$(printf 'a\\n\\n')\"", "trailing newlines removed"),
    ({}, "`printf /x`", "a backquoted substitution"),
    ({"x": ".env"}, "${x/v/&}", "& in a replacement is the match (bash 5.2)"),
    ({}, "$(printf -- %s .env)", "printf's -- ends its options"),
    ({}, "$(printf %.4s .env.example)", "a precision cuts the argument"),
    ({}, "$(printf %5s/ ab)", "a width pads it"),
    ({}, "$(printf %b '.env\\c.example')", "\\c in %b ends the output"),
    ({}, "$(echo -e '.env\\c.example')", "echo -e stops at \\c"),
]


def _bash_fields(tmp_path: Path, variables: dict[str, str], word: str) -> list[str]:
    assignments = "".join(f"{name}={_single(value)}; " for name, value in variables.items())
    script = f"cd sub; cd ..; {assignments}set -- {word}; echo $#; printf '<%s>\\n' \"$@\""
    assert BASH is not None
    done = subprocess.run(
        [BASH, "-c", script], cwd=tmp_path, env={"HOME": str(tmp_path / "home"), "LANG": "C.UTF-8"},
        capture_output=True, text=True, timeout=10, check=True,
    )  # fmt: skip
    count, *lines = done.stdout.split("\n")[:-1]
    return [line[1:-1] for line in lines][: int(count)]


def _single(value: str) -> str:
    return "'" + value.replace("'", "'\\''") + "'"


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
@pytest.mark.parametrize(("variables", "word", "note"), PROBES)
def test_expansion_matches_bash(
    tmp_path: Path, variables: dict[str, str], word: str, note: str
) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "home").mkdir()
    environment = Environment(
        str(tmp_path / "home"), variables, pwd=str(tmp_path), oldpwd=str(tmp_path / "sub")
    )
    expected = _bash_fields(tmp_path, variables, word)
    assert expand_word(word, environment) == expected, note


@pytest.mark.parametrize(
    "word",
    [
        "$(id)",
        "`id`",
        "${unknown:-a}",
        "$((1+2))",
        "$unknown",
        "${#x}",
        "$1",
        "$$",
        '"$(id)"',
        "${unknown%/}",
        "$(printf %s $x)",
        "$(echo a; id)",
    ],
)
def test_what_depends_on_run_time_does_not_expand(word: str) -> None:
    assert expand_word(word, Environment("/home/u", {"x": "1"})) is None
