"""The file mutation queue: mutations of one file run one at a time in arrival
order, symlinks to one file share a queue, different files run in parallel, errors release the
queue, and no lock outlives its users. Also ``resolve_path`` (the shared path rules)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from tether.tools import resolve_path, with_file_mutation_queue
from tether.tools._mutation_queue import _locks

TIMEOUT = 2.0


class Tracker:
    """Records enter/exit of mutations and the highest number running at once."""

    def __init__(self) -> None:
        self.log: list[tuple[str, str]] = []
        self.running = 0
        self.peak = 0

    def mutation(self, label: str, delay: float = 0.01, fail: Exception | None = None):
        async def fn() -> str:
            self.log.append(("enter", label))
            self.running += 1
            self.peak = max(self.peak, self.running)
            try:
                await asyncio.sleep(delay)
                if fail is not None:
                    raise fail
                return label
            finally:
                self.running -= 1
                self.log.append(("exit", label))

        return fn


@pytest.fixture(autouse=True)
def no_leftover_locks():
    yield
    assert _locks == {}


# --- one file: one at a time, FIFO --------------------------------------------------------------


async def test_returns_the_result_of_fn(tmp_path: Path) -> None:
    async def fn() -> dict[str, int]:
        return {"answer": 42}

    assert await with_file_mutation_queue(str(tmp_path / "f.txt"), fn) == {"answer": 42}


async def test_same_file_mutations_run_one_at_a_time_in_fifo_order(tmp_path: Path) -> None:
    path = str(tmp_path / "f.txt")
    tracker = Tracker()
    # later mutations are quicker: without the queue they would finish first
    delays = [0.04, 0.03, 0.02, 0.01, 0.0]

    results = await asyncio.wait_for(
        asyncio.gather(
            *(
                with_file_mutation_queue(path, tracker.mutation(str(i), delay))
                for i, delay in enumerate(delays)
            )
        ),
        TIMEOUT,
    )

    assert results == ["0", "1", "2", "3", "4"]
    assert tracker.peak == 1
    expected = [(event, str(i)) for i in range(5) for event in ("enter", "exit")]
    assert tracker.log == expected


async def test_each_mutation_sees_the_previous_ones_write(tmp_path: Path) -> None:
    target = tmp_path / "counter.txt"
    target.write_text("")

    def append(char: str):
        async def fn() -> None:
            before = target.read_text()
            await asyncio.sleep(0.005)  # a read-modify-write with a gap, like edit
            target.write_text(before + char)

        return fn

    await asyncio.wait_for(
        asyncio.gather(*(with_file_mutation_queue(str(target), append(c)) for c in "abcdef")),
        TIMEOUT,
    )

    assert target.read_text() == "abcdef"


async def test_relative_and_absolute_spellings_share_a_queue(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub").mkdir()
    tracker = Tracker()

    await asyncio.wait_for(
        asyncio.gather(
            with_file_mutation_queue("f.txt", tracker.mutation("rel")),
            with_file_mutation_queue(str(tmp_path / "f.txt"), tracker.mutation("abs")),
            with_file_mutation_queue("sub/../f.txt", tracker.mutation("dots")),
        ),
        TIMEOUT,
    )

    assert tracker.peak == 1
    assert [label for event, label in tracker.log if event == "enter"] == ["rel", "abs", "dots"]


# --- different files: in parallel ---------------------------------------------------------------


async def test_different_files_overlap(tmp_path: Path) -> None:
    b_started = asyncio.Event()
    log: list[str] = []

    async def mutate_a() -> str:
        log.append("a enter")
        await b_started.wait()  # would never return if b queued behind a
        log.append("a exit")
        return "a"

    async def mutate_b() -> str:
        log.append("b enter")
        b_started.set()
        await asyncio.sleep(0)
        log.append("b exit")
        return "b"

    results = await asyncio.wait_for(
        asyncio.gather(
            with_file_mutation_queue(str(tmp_path / "a.txt"), mutate_a),
            with_file_mutation_queue(str(tmp_path / "b.txt"), mutate_b),
        ),
        TIMEOUT,
    )

    assert results == ["a", "b"]
    assert log.index("b enter") < log.index("a exit")


async def test_many_different_files_all_run_at_once(tmp_path: Path) -> None:
    tracker = Tracker()

    await asyncio.wait_for(
        asyncio.gather(
            *(
                with_file_mutation_queue(str(tmp_path / f"f{i}.txt"), tracker.mutation(str(i)))
                for i in range(10)
            )
        ),
        TIMEOUT,
    )

    assert tracker.peak == 10


# --- symlinks -----------------------------------------------------------------------------------


async def test_symlinks_to_one_file_share_a_queue(tmp_path: Path) -> None:
    real = tmp_path / "real.txt"
    real.write_text("content")
    link_one = tmp_path / "link_one.txt"
    link_two = tmp_path / "nested" / "link_two.txt"
    link_two.parent.mkdir()
    link_one.symlink_to(real)
    link_two.symlink_to(os.path.relpath(real, link_two.parent))
    tracker = Tracker()

    await asyncio.wait_for(
        asyncio.gather(
            with_file_mutation_queue(str(link_one), tracker.mutation("one", 0.02)),
            with_file_mutation_queue(str(link_two), tracker.mutation("two", 0.01)),
            with_file_mutation_queue(str(real), tracker.mutation("real", 0.0)),
        ),
        TIMEOUT,
    )

    assert tracker.peak == 1
    assert tracker.log == [
        ("enter", "one"),
        ("exit", "one"),
        ("enter", "two"),
        ("exit", "two"),
        ("enter", "real"),
        ("exit", "real"),
    ]


async def test_symlinked_directory_shares_a_queue(tmp_path: Path) -> None:
    real_dir = tmp_path / "real_dir"
    real_dir.mkdir()
    (real_dir / "f.txt").write_text("x")
    alias = tmp_path / "alias_dir"
    alias.symlink_to(real_dir, target_is_directory=True)
    tracker = Tracker()

    await asyncio.wait_for(
        asyncio.gather(
            with_file_mutation_queue(str(alias / "f.txt"), tracker.mutation("alias")),
            with_file_mutation_queue(str(real_dir / "f.txt"), tracker.mutation("real")),
        ),
        TIMEOUT,
    )

    assert tracker.peak == 1


async def test_symlinks_to_different_files_do_not_share(tmp_path: Path) -> None:
    for name in ("one", "two"):
        (tmp_path / f"{name}.txt").write_text(name)
        (tmp_path / f"link_{name}.txt").symlink_to(tmp_path / f"{name}.txt")
    tracker = Tracker()

    await asyncio.wait_for(
        asyncio.gather(
            with_file_mutation_queue(str(tmp_path / "link_one.txt"), tracker.mutation("1")),
            with_file_mutation_queue(str(tmp_path / "link_two.txt"), tracker.mutation("2")),
        ),
        TIMEOUT,
    )

    assert tracker.peak == 2


async def test_custom_real_path_decides_the_key() -> None:
    tracker = Tracker()
    asked: list[str] = []

    async def real_path(path: str) -> str:
        asked.append(path)
        return "/the/one/file"

    await asyncio.wait_for(
        asyncio.gather(
            with_file_mutation_queue("/x", tracker.mutation("x"), real_path=real_path),
            with_file_mutation_queue("/y", tracker.mutation("y"), real_path=real_path),
        ),
        TIMEOUT,
    )

    assert sorted(asked) == ["/x", "/y"]
    assert tracker.peak == 1


# --- errors and cancellation --------------------------------------------------------------------


async def test_exception_propagates_and_releases_the_queue(tmp_path: Path) -> None:
    path = str(tmp_path / "f.txt")
    tracker = Tracker()

    failing = asyncio.create_task(
        with_file_mutation_queue(path, tracker.mutation("bad", 0.01, ValueError("broken edit")))
    )
    waiting = asyncio.create_task(with_file_mutation_queue(path, tracker.mutation("next")))

    with pytest.raises(ValueError, match="broken edit"):
        await asyncio.wait_for(failing, TIMEOUT)
    assert await asyncio.wait_for(waiting, TIMEOUT) == "next"
    assert tracker.log == [("enter", "bad"), ("exit", "bad"), ("enter", "next"), ("exit", "next")]
    # and the queue still works afterwards
    assert await with_file_mutation_queue(path, tracker.mutation("later")) == "later"


async def test_cancelled_waiter_does_not_block_the_queue(tmp_path: Path) -> None:
    path = str(tmp_path / "f.txt")
    release = asyncio.Event()
    tracker = Tracker()

    async def holder() -> str:
        await release.wait()
        return "held"

    first = asyncio.create_task(with_file_mutation_queue(path, holder))
    await asyncio.sleep(0)
    cancelled = asyncio.create_task(with_file_mutation_queue(path, tracker.mutation("never")))
    third = asyncio.create_task(with_file_mutation_queue(path, tracker.mutation("third")))
    await asyncio.sleep(0)
    cancelled.cancel()
    release.set()

    assert await asyncio.wait_for(first, TIMEOUT) == "held"
    assert await asyncio.wait_for(third, TIMEOUT) == "third"
    with pytest.raises(asyncio.CancelledError):
        await cancelled
    assert ("enter", "never") not in tracker.log


# --- the lock table -----------------------------------------------------------------------------


async def test_lock_table_holds_an_entry_only_while_in_use(tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    seen: list[int] = []

    async def fn() -> None:
        seen.append(len(_locks))
        assert os.path.realpath(path) in _locks

    await with_file_mutation_queue(str(path), fn)

    assert seen == [1]
    assert _locks == {}


async def test_lock_table_does_not_grow_after_many_distinct_paths(tmp_path: Path) -> None:
    peak = 0

    async def fn() -> None:
        nonlocal peak
        peak = max(peak, len(_locks))
        await asyncio.sleep(0)

    for i in range(200):
        await with_file_mutation_queue(str(tmp_path / f"seq{i}.txt"), fn)
    assert _locks == {}

    await asyncio.wait_for(
        asyncio.gather(
            *(with_file_mutation_queue(str(tmp_path / f"par{i}.txt"), fn) for i in range(200))
        ),
        TIMEOUT,
    )

    assert peak == 200  # all were in the table at once while running
    assert _locks == {}


async def test_lock_table_is_emptied_after_failures(tmp_path: Path) -> None:
    async def boom() -> None:
        raise OSError("disk full")

    for i in range(20):
        with pytest.raises(OSError):
            await with_file_mutation_queue(str(tmp_path / f"f{i % 3}.txt"), boom)

    assert _locks == {}


# --- resolve_path -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "cwd", "expected"),
    [
        ("src/main.py", "/work/project", "/work/project/src/main.py"),
        ("@src/main.py", "/work/project", "/work/project/src/main.py"),
        ("@/etc/hosts", "/work/project", "/etc/hosts"),
        ("/etc/hosts", "/work/project", "/etc/hosts"),
        ("a/../b/./c.txt", "/work", "/work/b/c.txt"),
        ("../sibling/x", "/work/project", "/work/sibling/x"),
        ("/abs/dir/../x", "/work", "/abs/x"),
        ("dir/", "/work", "/work/dir"),
        (".", "/work/project", "/work/project"),
        ("x", "/work/project/", "/work/project/x"),
    ],
)
def test_resolve_path(path: str, cwd: str, expected: str) -> None:
    assert resolve_path(path, cwd) == expected


def test_resolve_path_expands_home(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/home/tester")

    assert resolve_path("~", "/work") == "/home/tester"
    assert resolve_path("~/notes.md", "/work") == "/home/tester/notes.md"
    assert resolve_path("@~/notes.md", "/work") == "/home/tester/notes.md"
    assert resolve_path("~/a/../b", "/work") == "/home/tester/b"


def test_resolve_path_keeps_an_at_sign_that_is_not_leading() -> None:
    assert resolve_path("dir/@file", "/w") == "/w/dir/@file"
    assert resolve_path("user@host.txt", "/w") == "/w/user@host.txt"


def test_resolve_path_keeps_a_tilde_inside_a_name() -> None:
    assert resolve_path("backup~", "/w") == "/w/backup~"
    assert resolve_path("a/~/b", "/w") == "/w/a/~/b"


def test_resolve_path_is_absolute_and_normalised(tmp_path: Path) -> None:
    result = resolve_path("x/./y//z/../w", str(tmp_path))

    assert os.path.isabs(result)
    assert result == os.path.normpath(result)
    assert result == str(tmp_path / "x" / "y" / "w")
