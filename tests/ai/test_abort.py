"""AbortController / AbortSignal: cancellation as a value you can inspect, wait on and listen to."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from tether.ai import AbortController, AbortError, AbortSignal, first_to_finish


def test_fresh_signal_is_not_aborted() -> None:
    controller = AbortController()
    assert isinstance(controller.signal, AbortSignal)
    assert controller.signal.aborted is False
    assert controller.signal.reason is None
    controller.signal.throw_if_aborted()  # does not raise


def test_abort_sets_aborted_and_reason() -> None:
    controller = AbortController()
    controller.abort("user pressed escape")
    assert controller.signal.aborted is True
    assert controller.signal.reason == "user pressed escape"


def test_abort_without_reason_gives_a_default_reason() -> None:
    controller = AbortController()
    controller.abort()
    assert controller.signal.aborted is True
    assert controller.signal.reason == "aborted"


def test_reason_may_be_any_object() -> None:
    controller = AbortController()
    reason = TimeoutError("deadline passed")
    controller.abort(reason)
    assert controller.signal.reason is reason


def test_first_reason_wins() -> None:
    controller = AbortController()
    controller.abort("first")
    controller.abort("second")
    controller.abort()
    assert controller.signal.reason == "first"


def test_each_controller_owns_its_own_signal() -> None:
    one, two = AbortController(), AbortController()
    one.abort("x")
    assert one.signal.aborted
    assert not two.signal.aborted


def test_listeners_are_called_once_with_the_reason() -> None:
    controller = AbortController()
    calls: list[tuple[str, Any]] = []
    controller.signal.add_listener(lambda reason: calls.append(("a", reason)))
    controller.signal.add_listener(lambda reason: calls.append(("b", reason)))
    assert calls == []
    controller.abort("stop")
    controller.abort("again")
    assert calls == [("a", "stop"), ("b", "stop")]


def test_listener_added_after_abort_is_called_immediately() -> None:
    controller = AbortController()
    controller.abort("late")
    calls: list[Any] = []
    remove = controller.signal.add_listener(calls.append)
    assert calls == ["late"]
    remove()  # harmless
    controller.abort("again")
    assert calls == ["late"]


def test_removed_listener_is_not_called() -> None:
    controller = AbortController()
    kept: list[Any] = []
    dropped: list[Any] = []
    controller.signal.add_listener(kept.append)
    remove = controller.signal.add_listener(dropped.append)
    remove()
    remove()  # removing twice is harmless
    controller.abort("bye")
    assert kept == ["bye"]
    assert dropped == []


def test_removing_one_registration_keeps_the_others() -> None:
    controller = AbortController()
    calls: list[str] = []

    def first(_reason: Any) -> None:
        calls.append("first")

    def second(_reason: Any) -> None:
        calls.append("second")

    controller.signal.add_listener(first)
    remove_second = controller.signal.add_listener(second)
    remove_second()
    controller.abort()
    assert calls == ["first"]


def test_a_raising_listener_does_not_stop_the_others(caplog: pytest.LogCaptureFixture) -> None:
    controller = AbortController()
    calls: list[str] = []

    def broken(_reason: Any) -> None:
        calls.append("broken")
        raise RuntimeError("listener failed")

    controller.signal.add_listener(lambda _r: calls.append("before"))
    controller.signal.add_listener(broken)
    controller.signal.add_listener(lambda _r: calls.append("after"))
    with caplog.at_level(logging.ERROR):
        controller.abort("x")  # does not raise
    assert calls == ["before", "broken", "after"]
    assert controller.signal.aborted
    logged = [r.exc_info[1] for r in caplog.records if r.exc_info]
    assert any(isinstance(e, RuntimeError) and str(e) == "listener failed" for e in logged)


def test_throw_if_aborted_raises_abort_error_with_the_reason() -> None:
    controller = AbortController()
    controller.abort("cancelled by test")
    with pytest.raises(AbortError, match="cancelled by test"):
        controller.signal.throw_if_aborted()


def test_throw_if_aborted_with_default_reason() -> None:
    controller = AbortController()
    controller.abort()
    with pytest.raises(AbortError, match="aborted"):
        controller.signal.throw_if_aborted()


def test_abort_error_is_an_exception() -> None:
    assert issubclass(AbortError, Exception)


async def test_wait_returns_at_once_when_already_aborted() -> None:
    controller = AbortController()
    controller.abort()
    await asyncio.wait_for(controller.signal.wait(), timeout=1)
    assert controller.signal.aborted


async def test_wait_returns_after_abort() -> None:
    controller = AbortController()
    waiter = asyncio.create_task(controller.signal.wait())
    for _ in range(5):
        await asyncio.sleep(0)
    assert not waiter.done()
    controller.abort("now")
    await asyncio.wait_for(waiter, timeout=1)
    assert waiter.done() and waiter.exception() is None


async def test_many_waiters_are_all_woken() -> None:
    controller = AbortController()
    waiters = [asyncio.create_task(controller.signal.wait()) for _ in range(5)]
    await asyncio.sleep(0)
    controller.abort()
    await asyncio.wait_for(asyncio.gather(*waiters), timeout=1)
    assert all(w.done() for w in waiters)


async def test_cancelled_wait_does_not_break_later_abort() -> None:
    controller = AbortController()
    cancelled = asyncio.create_task(controller.signal.wait())
    await asyncio.sleep(0)
    cancelled.cancel()
    with pytest.raises(asyncio.CancelledError):
        await cancelled
    survivor = asyncio.create_task(controller.signal.wait())
    await asyncio.sleep(0)
    controller.abort()
    await asyncio.wait_for(survivor, timeout=1)
    assert survivor.done()


async def test_wait_is_woken_by_an_abort_from_another_thread() -> None:
    controller = AbortController()
    waiter = asyncio.create_task(controller.signal.wait())
    await asyncio.sleep(0)
    await asyncio.to_thread(controller.abort, "from thread")
    await asyncio.wait_for(waiter, timeout=1)
    assert controller.signal.reason == "from thread"


# --- first_to_finish: a wait raced against the signal and a timeout ---------------------------


async def test_first_to_finish_names_the_wait_that_ended_and_cancels_the_others() -> None:
    started: list[str] = []
    cancelled: list[str] = []

    async def sleeper(name: str, seconds: float) -> None:
        started.append(name)
        try:
            await asyncio.sleep(seconds)
        except asyncio.CancelledError:
            cancelled.append(name)
            raise

    waits = {"slow": sleeper("slow", 10), "quick": sleeper("quick", 0.01)}
    assert await first_to_finish(waits, timeout=5, signal=AbortController().signal) == "quick"
    await asyncio.sleep(0)
    assert started == ["slow", "quick"]
    assert cancelled == ["slow"]


async def test_first_to_finish_reports_the_signal_and_the_timeout() -> None:
    controller = AbortController()
    asyncio.get_running_loop().call_later(0.01, controller.abort)
    never = asyncio.get_running_loop().create_future()
    assert await first_to_finish({"x": never}, timeout=5, signal=controller.signal) == "aborted"
    assert await first_to_finish({"x": never}, timeout=0.01, signal=None) == "timed_out"
    assert not never.cancelled(), "a future passed in belongs to its owner"


async def test_first_to_finish_prefers_the_waits_order_when_several_have_ended() -> None:
    controller = AbortController()
    controller.abort()
    ended = asyncio.get_running_loop().create_future()
    ended.set_result(None)
    also_ended = asyncio.get_running_loop().create_future()
    also_ended.set_result(None)
    waits = {"first": ended, "second": also_ended}
    assert await first_to_finish(waits, timeout=None, signal=controller.signal) == "first"
