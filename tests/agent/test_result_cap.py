"""Every tool result reaches the model capped (2000 lines / 50 KiB by default, configurable),
with a notice of what was cut, before any after_tool_call hook sees it."""

from __future__ import annotations

from typing import Any

from tether.agent import (
    CAPS_OWN_RESULT,
    DEFAULT_MAX_BYTES,
    AfterToolCallContext,
    AgentToolResult,
    ToolError,
)
from tether.ai import AbortSignal, ImageContent, TextContent
from tether.ai.faux import FauxModel, faux_message, faux_tool_call

from .support import make_tool, run, text_of


def returning(output: Any, **options: Any) -> Any:
    async def execute(tool_call_id: str, params: Any, signal: Any, on_update: Any) -> Any:
        return output

    return make_tool("big", execute, **options)


async def result_text(output: Any, **config: Any) -> str:
    fm = FauxModel([faux_message(faux_tool_call("big", {})), faux_message("done")])
    tool_options = config.pop("tool_options", {})
    outcome = await run(fm, [returning(output, **tool_options)], **config)
    (result,) = outcome.tool_results
    return text_of(result)


async def test_a_huge_result_is_cut_to_50_kib_with_a_notice() -> None:
    output = "".join(f"line {n:07d} of a long listing\n" for n in range(180_000))  # 5.4 MB
    text = await result_text(output)
    kept, _, notice = text.rpartition("\n\n")
    assert len(kept.encode()) <= DEFAULT_MAX_BYTES
    assert kept.startswith("line 0000000 of a long listing")
    assert notice.startswith("[Output capped at 2,000 lines / 50.0KB: showing 1,")
    assert "of 180,000 lines" in notice and "Ask the tool for less" in notice


async def test_the_line_cap_applies_too() -> None:
    text = await result_text("x\n" * 3000)
    assert text.count("x") == 2000
    assert "showing 2,000 of 3,000 lines" in text


async def test_a_result_within_the_caps_is_untouched() -> None:
    output = AgentToolResult([TextContent("small")], details={"n": 1})
    assert await result_text(output) == "small"


async def test_the_after_hook_sees_the_capped_result() -> None:
    seen: list[int] = []

    def after(ctx: AfterToolCallContext, signal: AbortSignal) -> None:
        seen.append(sum(len(b.text) for b in ctx.result.content if isinstance(b, TextContent)))

    await result_text("y" * 2_000_000, after_tool_call=after)
    assert seen and seen[0] < DEFAULT_MAX_BYTES + 500


async def test_one_huge_line_still_shows_its_beginning() -> None:
    text = await result_text("z" * 1_000_000)
    assert text.startswith("z" * DEFAULT_MAX_BYTES + "\n\n[Output capped at")


async def test_the_caps_are_configurable_and_none_means_no_cap() -> None:
    text = await result_text("a\nb\nc\nd\n", max_result_lines=2)
    assert text.startswith("a\nb\n\n[Output capped at 2 lines / 50.0KB: showing 2 of 4 lines")
    output = "q" * 200_000
    assert await result_text(output, max_result_bytes=None, max_result_lines=None) == output


async def test_text_blocks_share_the_caps_and_images_are_kept() -> None:
    image = ImageContent("aGk=", "image/png")
    output = AgentToolResult([TextContent("one\n" * 3), image, TextContent("two\n" * 3)])
    fm = FauxModel([faux_message(faux_tool_call("big", {})), faux_message("done")])
    outcome = await run(fm, [returning(output)], max_result_lines=4)
    (result,) = outcome.tool_results
    assert result.content[1] == image
    assert isinstance(result.content[2], TextContent)
    assert result.content[2].text.startswith("two\n\n[Output capped at 4 lines")
    assert len(result.content) == 3


async def test_a_tool_that_caps_its_own_results_is_left_alone() -> None:
    output = "w\n" * 3000
    text = await result_text(output, tool_options={"metadata": {CAPS_OWN_RESULT: True}})
    assert text == output


async def test_the_error_of_a_tool_that_caps_its_own_results_is_still_capped() -> None:
    """A built-in tool caps its output, not its errors: a 10 MB path must not come back whole."""

    async def failing(tool_call_id: str, params: Any, signal: Any, on_update: Any) -> Any:
        raise ToolError("No such file: " + "p" * 1_000_000)

    tool = make_tool("big", failing, metadata={CAPS_OWN_RESULT: True})
    fm = FauxModel([faux_message(faux_tool_call("big", {})), faux_message("done")])
    (result,) = (await run(fm, [tool])).tool_results

    assert result.is_error
    assert text_of(result).startswith("No such file: ppp")
    assert len(text_of(result).encode()) <= 51 * 1024


async def test_a_raised_error_and_a_pipeline_error_are_capped_too() -> None:
    async def failing(tool_call_id: str, params: Any, signal: Any, on_update: Any) -> Any:
        raise RuntimeError("e" * 100_000)

    schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
    fm = FauxModel(
        [
            faux_message(faux_tool_call("fail", {}), faux_tool_call("strict", {"n": "v" * 99_999})),
            faux_message("done"),
        ]
    )
    tools = [make_tool("fail", failing), make_tool("strict", failing, schema)]
    outcome = await run(fm, tools)
    for result in outcome.tool_results:
        assert result.is_error
        assert len(text_of(result).encode()) < DEFAULT_MAX_BYTES + 500
        assert "[Output capped at" in text_of(result)
