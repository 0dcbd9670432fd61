"""``@tool``: a typed function becomes an ``AgentTool`` whose schema comes from its signature."""

import asyncio
import json
import threading
import time
from typing import Any, Literal

import pydantic
import pytest

from tether.agent import (
    AbortController,
    AbortSignal,
    AgentContext,
    AgentLoopConfig,
    AgentTool,
    AgentToolResult,
    ToolError,
    UpdateCallback,
    agent_loop,
    tool,
)
from tether.ai import TextContent, ToolResultMessage, UserMessage, parameters_schema
from tether.ai.faux import FauxModel, faux_message, faux_tool_call

# --- schema and metadata ------------------------------------------------------------------------


def test_sync_function_becomes_agent_tool_with_schema_from_signature() -> None:
    @tool
    def search_notes(
        query: str,
        tags: list[str],
        note: str | None,
        limit: int = 10,
        section: str | None = None,
        *,
        signal: AbortSignal,
        on_update: UpdateCallback | None = None,
        tool_call_id: str = "",
    ) -> str:
        """Search the notes.

        Returns matching lines."""
        return ""

    assert isinstance(search_notes, AgentTool)
    assert search_notes.name == "search_notes"
    assert search_notes.label == "Search Notes"
    assert search_notes.description == "Search the notes.\n\nReturns matching lines."
    assert search_notes.execution_mode is None
    schema = parameters_schema(search_notes.parameters)
    properties = schema["properties"]
    assert set(properties) == {"query", "tags", "note", "limit", "section"}
    assert sorted(schema["required"]) == ["note", "query", "tags"]
    assert properties["query"]["type"] == "string"
    assert properties["tags"]["type"] == "array"
    assert properties["tags"]["items"] == {"type": "string"}
    assert properties["limit"]["type"] == "integer"
    assert properties["limit"]["default"] == 10
    assert {"type": "null"} in properties["section"]["anyOf"]
    assert {"type": "string"} in properties["note"]["anyOf"]
    for injected in ("signal", "on_update", "tool_call_id"):
        assert injected not in properties
        assert injected not in schema["required"]


def test_decorator_options_override_name_label_mode_and_description() -> None:
    @tool(name="find_it", label="Find It!", execution_mode="sequential")
    def whatever(pattern: str) -> str:
        """Find by pattern."""
        return pattern

    assert whatever.name == "find_it"
    assert whatever.label == "Find It!"
    assert whatever.execution_mode == "sequential"
    assert whatever.description == "Find by pattern."

    @tool(description="Explicit description.")
    def documented() -> str:
        """Docstring loses."""
        return ""

    assert documented.description == "Explicit description."
    assert documented.label == "Documented"
    assert parameters_schema(documented.parameters).get("properties", {}) == {}


def test_no_docstring_gives_an_empty_description() -> None:
    @tool
    def bare(x: int) -> int:
        return x

    assert bare.description == ""
    assert parameters_schema(bare.parameters)["required"] == ["x"]


class Point(pydantic.BaseModel):
    x: int
    y: float = 0.0
    kind: Literal["a", "b"] = "a"


def test_single_pydantic_parameter_uses_the_model_as_schema() -> None:
    @tool
    def place(point: Point, signal: AbortSignal) -> str:
        """Place a point."""
        return ""

    assert place.parameters is Point
    schema = parameters_schema(place.parameters)
    assert set(schema["properties"]) == {"x", "y", "kind"}
    assert schema["required"] == ["x"]


def test_the_schema_carries_no_made_up_titles() -> None:
    @tool
    def move(old_text: str, point: Point, label: str = pydantic.Field("", title="Label!")) -> str:
        """Move."""
        return ""

    schema = parameters_schema(move.parameters)
    assert "title" not in schema
    assert "title" not in schema["properties"]["old_text"]
    assert "title" not in schema["$defs"]["Point"]
    assert "title" not in schema["$defs"]["Point"]["properties"]["x"]
    assert schema["properties"]["label"]["title"] == "Label!"  # given on purpose: kept


def test_the_args_section_becomes_parameter_descriptions() -> None:
    @tool
    def search(query: str, limit: int = 10, scope: str = "all") -> str:
        """Search the notes.

        Args:
            query: Words to look for.
            limit (int): At most this many results,
                counted after de-duplication.

        Returns:
            Matching lines.
        """
        return ""

    assert search.description == "Search the notes.\n\nReturns:\n    Matching lines."
    properties = parameters_schema(search.parameters)["properties"]
    assert properties["query"]["description"] == "Words to look for."
    assert properties["limit"]["description"] == (
        "At most this many results, counted after de-duplication."
    )
    assert "description" not in properties["scope"]


@pytest.mark.parametrize(
    ("define", "message"),
    [
        ("def f(*names: str) -> str: ...", r"\*names cannot be shown to a model.*list\[\.\.\.\]"),
        ("def f(a: int, **kw: int) -> str: ...", r"\*\*kw cannot be shown to a model.*dict"),
        ("def f(a: int, /) -> str: ...", r"a is positional-only"),
    ],
)
def test_parameters_a_tool_call_cannot_fill_are_refused_at_decoration(
    define: str, message: str
) -> None:
    namespace: dict[str, Any] = {}
    exec(define, namespace)
    with pytest.raises(TypeError, match=message):
        tool(namespace["f"])


def test_governance_is_stored_for_the_gate_and_review_goes_into_the_schema() -> None:
    governance = object()  # layer 2 stores it untouched; the gate gives it meaning

    @tool(governance=governance, review={"token": "redact"})
    def call_api(url: str, token: str) -> str:
        """Call an API."""
        return ""

    assert call_api.metadata["governance"] is governance
    properties = parameters_schema(call_api.parameters)["properties"]
    assert properties["url"]["x-review"] == "include"  # not declared: include
    assert properties["token"]["x-review"] == "redact"

    @tool(governance=governance)
    def place(point: Point) -> str:
        """Place."""
        return ""

    assert issubclass(place.parameters, Point)  # type: ignore[arg-type]
    properties = parameters_schema(place.parameters)["properties"]
    assert {spec["x-review"] for spec in properties.values()} == {"include"}


def test_a_review_that_cannot_apply_is_refused() -> None:
    def call_api(url: str, token: str) -> str:
        return ""

    with pytest.raises(TypeError, match="needs governance"):
        tool(review={"token": "redact"})
    with pytest.raises(ValueError, match="did you mean 'token'"):
        tool(governance=object(), review={"tokn": "redact"})(call_api)
    with pytest.raises(ValueError, match=r"Review\.REDACT"):
        tool(governance=object(), review={"token": "secret"})(call_api)


def test_an_ungoverned_tool_has_no_governance_metadata() -> None:
    @tool
    def free(x: int) -> str:
        """Free."""
        return ""

    assert "governance" not in free.metadata
    assert "x-review" not in str(parameters_schema(free.parameters))


# --- execution through the loop -----------------------------------------------------------------


async def run_tool(
    agent_tool: AgentTool,
    arguments: Any,
    *,
    signal: AbortSignal | None = None,
) -> tuple[ToolResultMessage, list[Any]]:
    fm = FauxModel([faux_message(faux_tool_call(agent_tool.name, arguments, id="call-1")), "ok"])
    stream = agent_loop(
        [UserMessage("go")],
        AgentContext("", [], [agent_tool]),
        AgentLoopConfig(model=fm.model, stream_fn=fm.stream, abort_grace=0.1),
        signal,
    )
    events = [event async for event in stream]
    messages = await stream.result()
    [result] = [m for m in messages if isinstance(m, ToolResultMessage)]
    assert result.tool_call_id == "call-1"
    return result, events


def text_of(result: ToolResultMessage | AgentToolResult) -> str:
    return "".join(b.text for b in result.content if isinstance(b, TextContent))


async def test_sync_tool_gets_validated_kwargs_with_defaults() -> None:
    received: list[dict[str, Any]] = []

    @tool
    def search(query: str, tags: list[str], limit: int = 10, section: str | None = None) -> str:
        """Search."""
        received.append({"query": query, "tags": tags, "limit": limit, "section": section})
        return f"{query}:{limit}"

    # "5" is coerced to 5 by validation; section: null is optional and dropped.
    result, _ = await run_tool(search, {"query": "cats", "tags": ["a"], "section": None})
    assert result.is_error is False
    assert text_of(result) == "cats:10"
    result, _ = await run_tool(search, {"query": "dogs", "tags": [], "limit": "5"})
    assert text_of(result) == "dogs:5"
    assert received == [
        {"query": "cats", "tags": ["a"], "limit": 10, "section": None},
        {"query": "dogs", "tags": [], "limit": 5, "section": None},
    ]


async def test_invalid_arguments_never_reach_the_function() -> None:
    called: list[bool] = []

    @tool
    def count(n: int) -> str:
        """Count."""
        called.append(True)
        return str(n)

    result, _ = await run_tool(count, {"n": "many"})
    assert result.is_error is True
    assert 'tool "count"' in text_of(result)
    assert "many" in text_of(result)
    assert called == []


async def test_a_misspelled_argument_is_an_error_not_silently_dropped() -> None:
    called: list[int] = []

    @tool
    def read(path: str, offset: int = 1) -> str:
        """Read."""
        called.append(offset)
        return path

    result, _ = await run_tool(read, {"path": "a.py", "offest": 2})
    assert result.is_error is True
    assert "unknown argument 'offest'; did you mean 'offset'?" in text_of(result)
    assert called == []


async def test_sync_tool_runs_in_a_worker_thread_without_blocking_the_loop() -> None:
    loop_thread = threading.get_ident()
    tool_threads: list[int] = []
    window: dict[str, float] = {}
    ticks: list[float] = []

    @tool
    def slow() -> str:
        """Sleeps 0.1 s."""
        tool_threads.append(threading.get_ident())
        window["start"] = time.monotonic()
        time.sleep(0.1)
        window["end"] = time.monotonic()
        return "rested"

    async def ticker() -> None:
        while True:
            ticks.append(time.monotonic())
            await asyncio.sleep(0.005)

    task = asyncio.create_task(ticker())
    try:
        result, _ = await run_tool(slow, {})
    finally:
        task.cancel()
    assert text_of(result) == "rested"
    assert tool_threads
    assert tool_threads[0] != loop_thread
    during = [t for t in ticks if window["start"] < t < window["end"]]
    assert len(during) >= 3  # the event loop kept running while the function slept


async def test_async_tool_is_awaited_on_the_loop_thread() -> None:
    threads: list[int] = []

    @tool
    async def fetch(url: str) -> str:
        """Fetch a URL."""
        threads.append(threading.get_ident())
        await asyncio.sleep(0.01)
        return f"fetched {url}"

    result, _ = await run_tool(fetch, {"url": "http://x"})
    assert result.is_error is False
    assert text_of(result) == "fetched http://x"
    assert threads == [threading.get_ident()]


async def test_pydantic_parameter_receives_a_model_instance() -> None:
    received: list[Any] = []

    @tool
    async def place(point: Point) -> str:
        """Place a point."""
        received.append(point)
        return "placed"

    result, _ = await run_tool(place, {"x": "3", "kind": "b"})
    assert result.is_error is False
    [point] = received
    assert isinstance(point, Point)
    assert (point.x, point.y, point.kind) == (3, 0.0, "b")

    result, _ = await run_tool(place, {"x": 1, "kind": "c"})
    assert result.is_error is True
    assert "kind" in text_of(result)
    assert len(received) == 1


async def test_injected_signal_call_id_and_on_update() -> None:
    controller = AbortController()
    seen: dict[str, Any] = {}

    @tool
    async def work(steps: int, signal: AbortSignal, on_update: UpdateCallback, tool_call_id: str):
        """Work in steps."""
        seen["signal"] = signal
        seen["id"] = tool_call_id
        for step in range(steps):
            on_update(AgentToolResult([TextContent(f"step {step}")]))
            await asyncio.sleep(0)
        return "worked"

    result, events = await run_tool(work, {"steps": 3}, signal=controller.signal)
    assert seen["signal"] is controller.signal
    assert seen["id"] == "call-1"
    assert text_of(result) == "worked"
    kinds = [e.type for e in events]
    updates = [e for e in events if e.type == "tool_execution_update"]
    assert [text_of(e.partial_result) for e in updates] == ["step 0", "step 1", "step 2"]
    assert all(e.tool_call_id == "call-1" and e.tool_name == "work" for e in updates)
    end = kinds.index("tool_execution_end")
    assert all(
        kinds.index("tool_execution_start") < i < end
        for i, k in enumerate(kinds)
        if k == "tool_execution_update"
    )


async def test_sync_tool_updates_from_the_worker_thread_arrive_before_the_end() -> None:
    @tool
    def crunch(on_update: UpdateCallback, signal: AbortSignal) -> str:
        """Crunch numbers in a thread."""
        for step in range(5):
            on_update(AgentToolResult([TextContent(f"{step}")]))
        assert not signal.aborted
        return "crunched"

    result, events = await run_tool(crunch, {})
    assert text_of(result) == "crunched"
    kinds = [e.type for e in events]
    updates = [i for i, k in enumerate(kinds) if k == "tool_execution_update"]
    assert [text_of(events[i].partial_result) for i in updates] == ["0", "1", "2", "3", "4"]
    assert max(updates) < kinds.index("tool_execution_end")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"count": 2, "names": ["a", "é"]}, {"count": 2, "names": ["a", "é"]}),
        ([1, 2, 3], [1, 2, 3]),
        (42, 42),
    ],
)
async def test_json_serialisable_return_becomes_json_text(value: Any, expected: Any) -> None:
    @tool
    def produce() -> Any:
        """Produce a value."""
        return value

    result, _ = await run_tool(produce, {})
    assert result.is_error is False
    assert json.loads(text_of(result)) == expected


async def test_other_returns_are_kept_or_converted() -> None:
    @tool
    def returns_result() -> AgentToolResult:
        """Returns a full result."""
        return AgentToolResult([TextContent("full")], details={"k": 1})

    @tool
    def returns_model() -> Point:
        """Returns a model."""
        return Point(x=1)

    @tool
    def returns_none() -> None:
        """Returns nothing."""

    result, _ = await run_tool(returns_result, {})
    assert (text_of(result), result.details) == ("full", {"k": 1})
    result, _ = await run_tool(returns_model, {})
    assert json.loads(text_of(result)) == {"x": 1, "y": 0.0, "kind": "a"}
    result, _ = await run_tool(returns_none, {})
    assert result.is_error is False
    assert text_of(result) == ""


async def test_raising_function_gives_an_error_result_with_the_message() -> None:
    @tool
    def explode(path: str) -> str:
        """Always fails."""
        raise FileNotFoundError(f"no such file: {path}")

    @tool
    async def refuse() -> str:
        """Fails with a ToolError."""
        raise ToolError("Refused: quota of 3 writes reached")

    result, events = await run_tool(explode, {"path": "/tmp/missing.txt"})
    assert result.is_error is True
    assert "no such file: /tmp/missing.txt" in text_of(result)
    end = next(e for e in events if e.type == "tool_execution_end")
    assert end.is_error is True
    result, _ = await run_tool(refuse, {})
    assert result.is_error is True
    assert text_of(result) == "Refused: quota of 3 writes reached"
