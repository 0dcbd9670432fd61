"""``BuiltinTool``: everything the product knows about one built-in tool, declared in its module.

A built-in tool's module holds its schema and ``execute`` (its ``define`` function) and, next to
them, one :class:`BuiltinTool` value with the rest: the review exposure of each parameter, the
governance the gate applies, how a front end shows its calls and results, and what it is (read
only, idempotent, open world, in the default set). :meth:`BuiltinTool.create` is the one factory
preamble every built-in shares: the default operations are obtained here, the definition is
made, then governed and given its renderers. The registry of them is :mod:`._registry`.

File tools are judged by the gate's path policy on their ``path`` argument
(:func:`path_governance`: reads inside the workspace allowed, outside need approval, secrets
denied; writes outside the workspace or to protected files denied); ``bash`` declares its own.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from tether.agent import CAPS_OWN_RESULT, IDEMPOTENT, AgentToolResult
from tether.gate import Governance, Policies, Review, Verdict

from ._definition import ToolDefinition
from ._paths import resolve_path
from ._rendering import call_renderer, result_renderer
from .operations._local import LocalOperations

__all__ = ["BuiltinTool", "CallRenderer", "ResultRenderer", "path_governance"]

CallRenderer = Callable[[Mapping[str, Any]], str]
"""One short line for a call's validated arguments (may raise: the caller shows ``?``)."""
ResultRenderer = Callable[[AgentToolResult, Mapping[str, Any]], str]
"""One short line for a result and its details (may raise: the caller shows the first line)."""
GovernanceFor = Callable[[str, bool], Governance]
"""The tool's governance for a workspace (``cwd``) and whether its commands are sandboxed."""


def _this_machine(cwd: str, options: Mapping[str, Any]) -> Any:
    return LocalOperations()


@dataclass(frozen=True, slots=True)
class BuiltinTool:
    """One built-in tool: how to make it and every fact the product needs about it.

    ``define(cwd, operations, **options)`` returns the tool's :class:`ToolDefinition` with its
    schema, ``execute`` and prompt text, and nothing of governance or rendering: :meth:`create`
    adds those from this value. ``exposure`` names what the AI reviewer may see of each
    parameter; a parameter left out makes :meth:`create` raise ``ValueError`` (never a call that
    runs unreviewed). ``local_operations(cwd, options)`` makes the operations used when none
    are given (this machine's :class:`LocalOperations` unless the tool needs another kind).
    """

    name: str
    define: Callable[..., ToolDefinition]
    exposure: Mapping[str, Review]
    governance: GovernanceFor
    render_call: CallRenderer
    render_result: ResultRenderer
    renders_errors: bool = False
    """Whether an error result is shown through ``render_result`` (bash: how the command ended)
    rather than as its first line."""
    read_only: bool = False
    """Changes nothing: a durable run may run it again after a crash; MCP ``readOnlyHint``."""
    idempotent: bool = False
    """Running it twice does what running it once does (true of every read-only tool)."""
    open_world: bool = False
    """Reaches beyond the workspace's files (a shell can reach anything)."""
    default: bool = False
    """In the tool set a run gets without ``--tools``."""
    run_options: frozenset[str] = frozenset()
    """Which of a tool set's options (``sandbox``, ``tasks``) :func:`create_coding_tools`
    hands to ``define``."""
    local_operations: Callable[[str, Mapping[str, Any]], Any] = field(default=_this_machine)

    def __post_init__(self) -> None:
        if not self.name or not self.name.isidentifier():
            raise ValueError(f"A built-in tool's name must be an identifier, got {self.name!r}.")
        wrong = {
            key: value for key, value in self.exposure.items() if not isinstance(value, Review)
        }
        if wrong:
            raise ValueError(
                f"Built-in tool {self.name!r}: exposure must be tether.gate.Review values, "
                f"got {wrong!r}."
            )

    def create(self, cwd: str, *, operations: Any = None, **options: Any) -> ToolDefinition:
        """The tool working in ``cwd`` through ``operations`` (``None``: made by
        ``local_operations``), governed and rendered; ``options`` go to ``define``."""
        if operations is None:
            operations = self.local_operations(cwd, options)
        definition = self.define(cwd, operations, **options)
        if definition.name != self.name:
            raise ValueError(
                f"Built-in tool {self.name!r}: define made a tool named {definition.name!r}."
            )
        return self._governed(definition, cwd)

    def _governed(self, definition: ToolDefinition, cwd: str) -> ToolDefinition:
        """``definition`` with ``x-review`` on every parameter, its governance and renderers,
        marked as capping its own results (the pipeline's cap would cut off its notices)."""
        schema = dict(definition.parameters) if isinstance(definition.parameters, dict) else {}
        given = schema.get("properties", {})
        missing = [key for key in given if key not in self.exposure]
        if missing:
            raise ValueError(
                f"Built-in tool {self.name!r}: parameter(s) {', '.join(missing)} have no review "
                "exposure; declare each in its BuiltinTool's exposure (tether.gate.Review)."
            )
        properties = {
            key: {**spec, "x-review": self.exposure[key].value} for key, spec in given.items()
        }
        sandboxed = bool(definition.metadata.get("sandboxed", False))
        metadata = {**definition.metadata, CAPS_OWN_RESULT: True}  # each cuts with its own notice
        if self.read_only:
            metadata[IDEMPOTENT] = True  # a durable run may run it again after a crash
        return replace(
            definition,
            parameters={**schema, "properties": properties},
            governance=self.governance(cwd, sandboxed),
            metadata=metadata,
            render_call=call_renderer(self.render_call),
            render_result=result_renderer(self.render_result, renders_errors=self.renders_errors),
        )


def path_governance(access: Literal["read", "write"]) -> GovernanceFor:
    """Governance by the gate's path policy on the ``path`` argument (the workspace when
    absent), for a tool that reads or one that writes."""

    def governance(cwd: str, sandboxed: bool) -> Governance:
        def check(args: Mapping[str, Any], policies: Policies) -> Verdict:
            raw = args.get("path")
            path = resolve_path(raw if isinstance(raw, str) and raw else ".", cwd)
            return policies.paths.check(path, access)

        return Governance(policy_check=check)

    return governance
