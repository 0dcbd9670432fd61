"""The repetition guard cuts the embedded model's loops, not the lists and code people write."""

from __future__ import annotations

from tether.ai.providers.local._repetition import RepetitionGuard


def feed(pieces: list[str]) -> int | None:
    """Feed one token per piece (equal pieces, equal tokens); the index where the guard fires."""
    ids: dict[str, int] = {}
    guard = RepetitionGuard()
    for index, piece in enumerate(pieces):
        if guard.looping(ids.setdefault(piece, len(ids)), piece):
            return index
    return None


def words(text: str) -> list[str]:
    return [piece for word in text.split(" ") for piece in (word, " ")]


def test_the_same_numbered_line_over_and_over_is_cut() -> None:
    lines = [f"# {n}. file.txt\n" for n in range(1, 30)]

    fired = feed([piece for line in lines for piece in words(line)])

    assert fired is not None
    assert fired < sum(len(words(line)) for line in lines[:9])


def test_a_sentence_repeated_is_cut_after_a_few_times() -> None:
    sentence = "The keeper climbed the stairs to light the lamp again. "

    fired = feed(words(sentence * 10))

    assert fired is not None
    assert fired < len(words(sentence)) * 4


def test_one_word_forever_is_cut() -> None:
    assert feed(["the", " "] * 40) is not None


def test_a_list_of_different_items_is_not_cut() -> None:
    names = "stats.py test_stats.py README.md setup.cfg Makefile LICENSE notes.txt calc.py app.js"
    lines = [f"- {name}: {len(name)} bytes, changed today\n" for name in names.split()]

    assert feed([piece for line in lines for piece in words(line)]) is None


def test_code_closing_its_blocks_is_not_cut() -> None:
    code = "if a:\n    if b:\n        if c:\n            x()\n" + "}\n" * 6 + "    return 0\n" * 3

    assert feed(list(code)) is None


def test_a_guard_started_mid_reply_knows_what_came_before() -> None:
    sentence = words("I will read the file now. ")
    ids = {piece: n for n, piece in enumerate(dict.fromkeys(sentence))}
    before = [ids[piece] for piece in sentence * 3]
    guard = RepetitionGuard(before, "".join(sentence * 3))

    assert any(guard.looping(ids[piece], piece) for piece in sentence)
