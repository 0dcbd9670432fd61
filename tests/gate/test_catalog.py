"""Catalog: registration rules, isolated derived views, snapshots and their digest."""

from __future__ import annotations

from typing import Any

import pytest

from tether.agent import AgentContext, AgentLoopConfig, AgentTool, agent_loop
from tether.ai import UserMessage
from tether.ai.faux import FauxModel, faux_message, faux_text, faux_tool_call
from tether.gate._catalog import Catalog
from tether.gate._governance import Governance


async def _echo(call_id: str, params: Any, signal: Any, on_update: Any) -> str:
    return str(params.get("text", ""))


def plain(name: str, description: str = "d") -> AgentTool:
    return AgentTool(
        name,
        name.title(),
        description,
        {"type": "object", "properties": {"text": {"type": "string"}}},
        _echo,
    )


def governed(name: str, **flags: Any) -> AgentTool:
    schema = {
        "type": "object",
        "properties": {
            "text": {"type": "string", "x-review": "include"},
            "secret": {"type": "string", "x-review": "redact"},
        },
    }
    return AgentTool(
        name, name, "governed", schema, _echo, metadata={"governance": Governance(**flags)}
    )


def test_register_get_and_names_keep_registration_order() -> None:
    catalog = Catalog([plain("b"), plain("a")])
    assert catalog.names() == ["b", "a"]
    assert catalog.get("a").name == "a"
    assert "b" in catalog and len(catalog) == 2


@pytest.mark.parametrize("name", ["", "   "])
def test_empty_names_are_refused(name: str) -> None:
    with pytest.raises(ValueError, match="non-empty"):
        Catalog().register(plain(name))


def test_duplicate_names_are_refused() -> None:
    catalog = Catalog([plain("a")])
    with pytest.raises(ValueError, match='"a" is already registered'):
        catalog.register(plain("a", "other"))
    assert catalog.get("a").description == "d"


def test_unknown_name_lists_registered_tools() -> None:
    with pytest.raises(KeyError, match="Registered: a, b"):
        Catalog([plain("a"), plain("b")]).get("zzz")


def test_callers_cannot_mutate_what_is_registered() -> None:
    tool = plain("a")
    catalog = Catalog([tool])
    tool.parameters["properties"]["text"]["type"] = "number"  # type: ignore[index]
    fetched = catalog.get("a")
    fetched.parameters["properties"]["injected"] = {"type": "string"}  # type: ignore[index]
    again = catalog.get("a").parameters
    assert again["properties"] == {"text": {"type": "string"}}  # type: ignore[index]
    snapshot_tool = catalog.snapshot().tools[0]
    snapshot_tool.parameters["properties"].clear()  # type: ignore[index]
    assert catalog.get("a").parameters["properties"]  # type: ignore[index]


def test_derive_by_names_and_by_predicate_is_independent() -> None:
    parent = Catalog([plain("a"), plain("b"), governed("g")])
    by_names = parent.derive(["b", "g"])
    by_predicate = parent.derive(lambda tool: "governance" in tool.metadata)
    assert by_names.names() == ["b", "g"]
    assert by_predicate.names() == ["g"]
    by_names.register(plain("c"))
    assert "c" not in parent and parent.names() == ["a", "b", "g"]
    parent.register(plain("d"))
    assert "d" not in by_names


def test_derive_refuses_unknown_names() -> None:
    with pytest.raises(ValueError, match="unknown tool"):
        Catalog([plain("a")]).derive(["a", "typo"])


def test_snapshot_revision_and_digest_track_changes() -> None:
    catalog = Catalog([plain("a")])
    first = catalog.snapshot()
    assert first.revision == 1
    assert catalog.snapshot().digest == first.digest
    catalog.register(plain("b"))
    second = catalog.snapshot()
    assert second.revision == 2
    assert second.digest != first.digest
    assert [t.name for t in second.tools] == ["a", "b"]


def test_digest_covers_descriptions_schemas_and_governance_flags() -> None:
    base = Catalog([governed("g")]).snapshot().digest
    assert Catalog([governed("g")]).snapshot().digest == base
    assert Catalog([governed("g", default_confirm=True)]).snapshot().digest != base
    other = governed("g")
    other.description = "changed"
    assert Catalog([other]).snapshot().digest != base


def test_governed_tools_are_registered_in_model_facing_form() -> None:
    registered = Catalog([governed("g")]).get("g")
    properties = registered.parameters["properties"]  # type: ignore[index]
    assert "x-review" not in str(registered.parameters)
    assert properties["confirm"]["type"] == "boolean"
    assert registered.metadata["review_schema"]["properties"]["secret"]["x-review"] == "redact"


def test_governed_tool_without_exposure_is_refused() -> None:
    tool = governed("g")
    del tool.parameters["properties"]["secret"]["x-review"]  # type: ignore[index]
    with pytest.raises(ValueError, match="secret"):
        Catalog().register(tool)


def test_a_tool_definition_registers_through_its_wrapper(tmp_path: Any) -> None:
    from tether.tools import create_ls_tool

    catalog = Catalog([create_ls_tool(str(tmp_path))])
    tool = catalog.get("ls")
    assert tool.metadata["definition"].name == "ls"


async def test_the_loop_resolves_calls_against_the_snapshot_the_model_saw() -> None:
    catalog = Catalog([plain("a")])
    snapshot = catalog.snapshot()

    def next_step(context: Any) -> Any:
        catalog.register(plain("late"))  # registered while the model is answering
        return faux_message(faux_tool_call("late", {"text": "x"}, id="c1"))

    fm = FauxModel([next_step, faux_text("done")])
    stream = agent_loop(
        [UserMessage("go")],
        AgentContext("", [], list(snapshot.tools)),
        AgentLoopConfig(model=fm.model, stream_fn=fm.stream),
    )
    messages = await stream.result()
    (result,) = [m for m in messages if m.role == "tool_result"]
    assert result.is_error
    assert 'Tool "late" not found' in result.content[0].text
    assert [t.name for t in fm.contexts[0].tools] == ["a"]
