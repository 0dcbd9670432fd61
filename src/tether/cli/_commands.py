"""The subcommands (``models``, ``check-command``, ``sessions``, ``demo``, ``mcp``) and the
translation of parsed options into :class:`RunSettings`."""

from __future__ import annotations

import os
import sys
from typing import Any

from tether.runtime import RunSettings

from ._errors import CommandError

__all__ = ["run_command", "settings_from"]


def settings_from(args: Any) -> RunSettings:
    tools, mcp_tools = _run_tool_names(args.tools)
    if args.no_mcp and mcp_tools:
        raise CommandError(
            f"--tools {','.join(mcp_tools)}: not built-in tools, and --no-mcp starts no MCP server"
        )
    return RunSettings(
        cwd=os.path.abspath(args.cwd or os.getcwd()),
        model=args.model,
        thinking=args.thinking,
        tools=tools,
        mcp_tools=mcp_tools,
        no_mcp=args.no_mcp,
        tool_choice=_tool_choice(args.tool_choice),
        gate=args.gate,
        continue_session=args.continue_,
        resume=args.resume,
        session_path=args.session,
        no_session=args.no_session,
        sandbox=False if args.no_sandbox else None,
        system_prompt=args.system_prompt,
        append_system_prompt=args.append_system_prompt,
        remote=args.remote or None,
        hand=args.hand or None,
    )


def _tool_names(option: str | None) -> tuple[str, ...]:
    from tether.tools import BUILTIN_TOOLS

    if not option:
        return BUILTIN_TOOLS.default_names()
    tools = tuple(t.strip() for t in option.split(",") if t.strip())
    unknown = [t for t in tools if t not in BUILTIN_TOOLS]
    if unknown:
        raise CommandError(
            f"--tools: unknown tool(s) {', '.join(unknown)}; choose from {', '.join(BUILTIN_TOOLS)}"
        )
    return tools


def _run_tool_names(option: str | None) -> tuple[tuple[str, ...], tuple[str, ...] | None]:
    """A run's ``--tools``: the built-in tools, and the other names, which the run checks
    against its MCP servers' tools (``None`` without ``--tools``: every MCP tool is offered)."""
    from tether.tools import BUILTIN_TOOLS

    if option is None:
        return BUILTIN_TOOLS.default_names(), None
    names = tuple(dict.fromkeys(t.strip() for t in option.split(",") if t.strip()))
    builtin = tuple(name for name in names if name in BUILTIN_TOOLS)
    return builtin, tuple(name for name in names if name not in BUILTIN_TOOLS)


def _tool_choice(option: str | None) -> str | None:
    if option is None:
        return None
    choice = option.strip()
    if not choice:
        raise CommandError("--tool-choice: expected auto, required, none or a tool's name")
    return choice


def run_command(args: Any) -> int:
    if args.command == "check-command":
        return _check_command(args.script, args.workspace)
    if args.command == "models":
        return _models()
    if args.command == "sessions":
        from ._sessions_command import run_sessions

        return run_sessions(args)
    if args.command == "demo":
        import asyncio

        from ._demo import run_demo

        return asyncio.run(run_demo())
    if args.command == "mcp":
        return _mcp(args)
    if args.command == "hand":
        return _hand(args)
    if args.command == "skills":
        from ._skills_command import run_skills

        return run_skills(args)
    if args.command == "hands":
        from ._hands_command import run_hands

        return run_hands(args)
    if args.command in ("runs", "worker"):
        from ._runs_command import run_durable

        return run_durable(args)
    raise CommandError(f"unknown command {args.command!r}")


def _mcp(args: Any) -> int:
    import asyncio

    from tether import mcp

    if args.action == "serve":
        cwd = os.path.abspath(args.cwd or os.getcwd())
        if not os.path.isdir(cwd):
            raise CommandError(f"--cwd {args.cwd}: not a directory")
        if args.token_file is not None and args.transport != "http":
            raise CommandError("--token-file is for --transport http (stdio needs no token)")
        try:
            return asyncio.run(
                mcp.serve(
                    transport=args.transport,
                    port=args.port,
                    mode=args.gate,
                    tool_names=_tool_names(args.tools),
                    cwd=cwd,
                    sandbox=False if args.no_sandbox else None,
                    token_file=args.token_file,
                )
            )
        except mcp.McpTokenError as exc:
            raise CommandError(str(exc)) from None
    try:
        if args.action == "list":
            return mcp.print_server_list(sys.stdout)
        return mcp.accept_tools(args.server, args.tool, sys.stdout)
    except mcp.McpConfigError as exc:
        raise CommandError(str(exc)) from None


def _hand(args: Any) -> int:
    """``tether hand --stdio``: this host's tools, under this host's gate, for a remote caller."""
    import asyncio

    from tether.remote import serve_hand_on_stdio

    cwd = os.path.abspath(args.cwd or os.getcwd())
    if not os.path.isdir(cwd):
        raise CommandError(f"--cwd {args.cwd}: not a directory")
    sandbox = False if args.no_sandbox else None
    return asyncio.run(
        serve_hand_on_stdio(cwd, _tool_names(args.tools), args.gate, sandbox=sandbox)
    )


def _check_command(script: str, workspace: str | None) -> int:
    """The gate's own ``check-command`` (same output and exit status: 0 allow, 1 approve,
    2 deny), with this directory as the workspace unless one is given; for an ``allow``, one
    more line says whether the bash tool would run it in the read-only jail or on the proof
    alone (no bubblewrap), so a person can see which guards are on."""
    from tether.gate import CHECK_COMMAND_EXIT, check_command

    where = workspace or os.getcwd()
    status = check_command(script, where)
    if status == CHECK_COMMAND_EXIT["allow"]:
        print(_jail_line(where))
    return status


def _jail_line(workspace: str) -> str:
    from tether.tools import create_bash_tool

    if create_bash_tool(workspace, sandbox=False).metadata.get("read_only_jail"):
        return "guard: runs in the read-only jail (bubblewrap): nothing writable, no network"
    return "guard: no read-only jail (bubblewrap is not available): the proof alone decides"


def _models() -> int:
    from tether.ai.providers import ModelsConfigError, api_key_env, list_models
    from tether.ai.providers.local import local_model_loads, local_model_problem

    try:
        models = list_models()
    except ModelsConfigError as exc:
        raise CommandError(str(exc)) from None
    rows = []
    for model in models:
        variable = api_key_env(model.provider)
        if model.api == "local":
            if local_model_problem(model) is not None:
                ready = "not installed: pip install 'tether[local]'"
            else:
                problem = local_model_loads(model)
                ready = (
                    "installed, loads"
                    if problem is None
                    else f"installed, does not load: {problem}"
                )
        elif variable is None:
            ready = "no key needed"
        else:
            ready = "key set" if os.environ.get(variable) else f"needs {variable}"
        window = f"{model.context_window // 1000}k"
        rows.append((model.ref, model.api, window, ready))
    widths = [max(len(row[i]) for row in rows) for i in range(3)] if rows else [0, 0, 0]
    for ref, api, window, ready in rows:
        print(f"{ref:<{widths[0]}}  {api:<{widths[1]}}  {window:>{widths[2]}}  {ready}")
    sys.stdout.flush()
    return 0
