"""The sed reader finds commands, writes and reads as sed parses its script, and nothing in
addresses, regexes, replacements or appended text."""

from __future__ import annotations

import pytest

from tether.gate._shell._sed import SedEffects, sed_effects


@pytest.mark.parametrize(
    ("script", "expected"),
    [
        ("1e rm -rf ~", SedEffects(("rm -rf ~",), (), (), False)),
        ("$e touch x; echo y", SedEffects(("touch x; echo y",), (), (), False)),
        ("e", SedEffects((), (), (), True)),
        ("s/a/b/e", SedEffects((), (), (), True)),
        ("s/a/b/gw out.txt", SedEffects((), ("out.txt",), (), False)),
        ("/x/,+2w /root/.bashrc", SedEffects((), ("/root/.bashrc",), (), False)),
        ("1r .env", SedEffects((), (), (".env",), False)),
        ("/wow/p", SedEffects((), (), (), False)),
        ("/warning/,/end/p;/e/d", SedEffects((), (), (), False)),
        ("s|/e|x|g", SedEffects((), (), (), False)),
        ("s/w/e/", SedEffects((), (), (), False)),
        ("\\%e%p", SedEffects((), (), (), False)),
        ("a hello; e rm -rf ~", SedEffects((), (), (), False)),
        ("y/abc/xyz/;2q", SedEffects((), (), (), False)),
        ("$!N;s/\\n/ /;ba", SedEffects((), (), (), False)),
        ("1!G;h;$!d", SedEffects((), (), (), False)),
        ("/x/I{e id\n}", SedEffects(("id",), (), (), False)),
    ],
)
def test_effects(script: str, expected: SedEffects) -> None:
    assert sed_effects(script) == expected
