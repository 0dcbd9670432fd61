"""create_coding_tools hands one backend to every tool it makes (``operations``)."""

from __future__ import annotations

import pytest

from tether.ai import AbortController
from tether.tools import create_coding_tools, wrap_tool_definition
from tether.tools.operations import MemoryOperations


async def test_every_file_tool_runs_on_the_given_operations():
    memory = MemoryOperations({"/work/notes.txt": b"in memory only\n"})
    tools = {
        d.name: wrap_tool_definition(d)
        for d in create_coding_tools("/work", names=("read", "write", "ls"), operations=memory)
    }
    signal = AbortController().signal
    read = await tools["read"].execute("c1", {"path": "notes.txt"}, signal, None)
    assert "in memory only" in read.content[0].text
    await tools["write"].execute("c2", {"path": "new.txt", "content": "x"}, signal, None)
    assert memory.files["/work/new.txt"] == b"x"
    listing = await tools["ls"].execute("c3", {"path": "."}, signal, None)
    assert "new.txt" in listing.content[0].text


def test_unknown_names_are_refused_with_the_built_in_list():
    with pytest.raises(ValueError, match="Unknown tool name"):
        create_coding_tools("/work", names=("read", "reed"))


def test_the_read_only_tools_declare_themselves_idempotent_and_the_others_do_not(tmp_path):
    from tether.agent import IDEMPOTENT

    names = ("read", "grep", "find", "ls", "bash", "edit", "write")
    tools = {
        d.name: wrap_tool_definition(d) for d in create_coding_tools(str(tmp_path), names=names)
    }
    declared = {name for name, tool in tools.items() if tool.metadata.get(IDEMPOTENT)}
    assert declared == {"read", "grep", "find", "ls"}


def test_every_shipped_tool_declares_the_exposure_of_every_parameter_it_can_have(tmp_path):
    from tether.tools import BUILTIN_TOOLS, TaskManager

    tools = create_coding_tools(
        str(tmp_path), names=list(BUILTIN_TOOLS), sandbox=False, tasks=TaskManager()
    )
    for tool in tools[: len(BUILTIN_TOOLS)]:  # the task tools that follow are not built-ins
        properties = tool.parameters["properties"]
        assert properties and all("x-review" in spec for spec in properties.values()), tool.name
    assert "background" in tools[1].parameters["properties"]  # bash's, with a task manager


def test_the_default_set_is_read_bash_edit_write():
    from tether.tools import BUILTIN_TOOLS

    assert BUILTIN_TOOLS.default_names() == ("read", "bash", "edit", "write")
    assert [d.name for d in create_coding_tools("/work")] == ["read", "bash", "edit", "write"]
