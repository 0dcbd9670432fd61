"""The ``tether`` command line: one parser for the run options and the subcommands.

Parsing imports nothing heavy, so ``tether --help`` answers at once; each subcommand imports
what it needs when it runs.
"""

from __future__ import annotations

import argparse

from tether import __version__

__all__ = ["THINKING_LEVELS", "build_parser"]

# tether.ai's ReasoningLevel (plus "off") and tether.gate's MODES, spelled here so that --help
# imports neither; tests/cli/test_vocabulary.py keeps them equal
THINKING_LEVELS = ("off", "minimal", "low", "medium", "high")
GATE_MODES = ("strict", "normal", "review", "yolo")

_EPILOG = """\
commands:
  tether                              interactive session in the current directory
  tether -p "task"                    print mode: the final answer on stdout
  tether -p "task" --mode json        every agent event as one JSON line on stdout
  tether --mode rpc                   JSON lines both ways on stdin/stdout
  tether demo                         the offline tour: scripted model, real tools, real gate
  tether sessions list|show ID|export ID --html FILE
  tether models                       known and configured models
  tether check-command 'CMD'          how the shell policy judges a command
  tether mcp serve|list|accept        tether's tools as an MCP server; configured MCP servers
  tether skills list|show|validate|trust  Agent Skills here; trust the project's own
  tether hands list|check NAME        the hands of config.toml ([hands.NAME]): tools, gate, host
  tether runs submit --queue Q -p "task"  a durable run (DBOS), printed id; returns at once
  tether worker --queue Q --concurrency N [--rate N/S]  run queue Q's durable runs
  tether runs list|show RUN|approve RUN CALL DECISION|cancel RUN|logs RUN

In print and json modes nobody can answer an approval: a call that needs one is denied
(fail closed) unless --gate yolo. Exit status: 0 done, 1 the run failed, 2 a usage problem,
3 the answer was cut off by the output token limit (print and json modes). Without --model:
the configured default, else Anthropic or OpenAI when its API key is set, else the embedded
local model when installed.

examples:
  tether -p "why does test_stats.py fail?"               answer on stdout, progress on stderr
  git diff | tether -p "review this"                      piped input is appended to the task
  tether -c -p "now add a test"                           continue this directory's newest session
  tether --model openai/gpt-4.1 --thinking low            interactive, a chosen model
  tether --tools read,grep,find,ls -p "map the code"      read-only tools only
  tether --gate strict -p "..."                           deny whatever needs a person
  tether --remote me@build-box:/src/app -p "run the tests"   tools on another host over SSH
  tether --hand build -p "run the tests"                   tools on a configured hand
  tether check-command 'rm -rf build'                     exit 0 allow, 1 approve, 2 deny
  tether sessions export 3f2a --html run.html             a session as one HTML page

environment:
  ANTHROPIC_API_KEY, OPENAI_API_KEY   keys of the built-in providers (others: api_key_env in
                                      models.toml)
  TETHER_HOME                         one directory for everything below, instead of the
                                      platform's user config and data directories
  TETHER_DB                           durable runs' database: sqlite:///PATH (default
                                      durable.sqlite in the data directory) or postgresql://…

files (config directory: $TETHER_HOME, else e.g. ~/.config/tether):
  models.toml     providers and models        config.toml   default model, MCP servers, hands
  AGENTS.md       instructions for every run (also read from the project's directories)
data (data directory: $TETHER_HOME, else e.g. ~/.local/share/tether; all private, 0600/0700):
  sessions/  prompt_history  mcp-pins.json  mcp-logs/  mcp-token  trusted-workspaces.json
skills: .tether/skills .agents/skills .claude/skills (project), $TETHER_HOME/skills
  ~/.agents/skills (user); see docs/skills.md

Every key and variable: docs/configuration.md.
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tether",
        description="A coding agent whose tools are governed.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"tether {__version__}")
    _add_run_options(parser)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.add_parser("demo", help="the offline tour (no key, no network)")
    commands.add_parser("models", help="list known and configured models")
    check = commands.add_parser("check-command", help="how the shell policy judges a command")
    check.add_argument("script", metavar="CMD", help="the bash command to classify")
    check.add_argument("--workspace", metavar="DIR", help="judge paths for this workspace")
    _add_sessions_command(commands)
    _add_mcp_commands(commands)
    _add_skills_commands(commands)
    _add_durable_commands(commands)
    _add_hand_commands(commands)
    return parser


def _add_run_options(parser: argparse.ArgumentParser) -> None:
    """The options of a run (``tether``, ``tether -p TASK``)."""
    parser.add_argument("-p", "--print", dest="prompt", metavar="TASK", help="run TASK and exit")
    parser.add_argument(
        "--mode",
        choices=("text", "json", "rpc"),
        default="text",
        help="output of a run: text (default), json (events), rpc (JSON both ways)",
    )
    parser.add_argument("--model", metavar="PROVIDER/ID", help="e.g. anthropic/claude-sonnet-4-5")
    parser.add_argument("--thinking", choices=THINKING_LEVELS, help="thinking level")
    _add_tools_option(
        parser,
        "comma-separated tools (%(builtin_tools)s, or an MCP tool's mcp__SERVER__TOOL): only "
        "these are offered; default %(default_tools)s and every MCP tool",
    )
    parser.add_argument(
        "--no-mcp",
        action="store_true",
        help="start none of the MCP servers of config.toml and offer none of their tools",
    )
    parser.add_argument(
        "--tool-choice",
        metavar="CHOICE",
        help="auto, required (some tool), none, or a tool's name; default: the server's own",
    )
    parser.add_argument("--gate", choices=GATE_MODES, default=None, help="gate mode (normal)")
    parser.add_argument("--cwd", metavar="DIR", help="working directory (default: here)")
    resume = parser.add_mutually_exclusive_group()
    resume.add_argument(
        "-c",
        "--continue",
        dest="continue_",
        action="store_true",
        help="continue the newest session here",
    )
    resume.add_argument(
        "-r", "--resume", nargs="?", const="", metavar="ID", help="resume a session (id prefix)"
    )
    resume.add_argument("--session", metavar="PATH", help="use this session file")
    resume.add_argument("--no-session", action="store_true", help="keep nothing on disk")
    parser.add_argument("--no-sandbox", action="store_true", help="run bash without bubblewrap")
    parser.add_argument("--system-prompt", metavar="TEXT", help="replace the system prompt")
    parser.add_argument("--append-system-prompt", metavar="TEXT", help="add to the system prompt")
    parser.add_argument(
        "--remote",
        metavar="[USER@]HOST[:PORT][:/PATH]",
        help="run the tools on another host over SSH (in PATH there), through a hand when "
        "tether is installed there",
    )
    parser.add_argument("--hand", metavar="NAME", help="run the tools on this configured hand")


def _add_sessions_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    sessions = commands.add_parser("sessions", help="list, show or export sessions")
    actions = sessions.add_subparsers(dest="action", metavar="ACTION", required=True)
    listing = actions.add_parser("list", help="sessions, newest first")
    listing.add_argument("--all", action="store_true", help="of every directory, not only here")
    show = actions.add_parser("show", help="print a session's messages")
    show.add_argument("id", metavar="ID")
    export = actions.add_parser("export", help="write a session as one HTML page")
    export.add_argument("id", metavar="ID")
    export.add_argument("--html", metavar="FILE", required=True)


def _add_hand_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    hand = commands.add_parser("hand", help="serve this host's governed tools to a caller")
    hand.add_argument("--stdio", action="store_true", required=True, help="JSON lines on stdio")
    hand.add_argument("--gate", choices=GATE_MODES, default="normal", help="gate mode (normal)")
    _add_tools_option(hand, "default %(default_tools)s")
    hand.add_argument("--cwd", metavar="DIR", help="workspace (default: here)")
    hand.add_argument("--no-sandbox", action="store_true", help="run bash without bubblewrap")
    hands = commands.add_parser("hands", help="the hands of config.toml: list or check one")
    hands_actions = hands.add_subparsers(dest="action", metavar="ACTION", required=True)
    hands_actions.add_parser("list", help="every hand, connected to: tools, gate, where")
    check_hand = hands_actions.add_parser("check", help="connect one hand and describe it")
    check_hand.add_argument("name", metavar="NAME")


def _add_durable_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    worker = commands.add_parser("worker", help="run a queue's durable runs (docs/durable.md)")
    worker.add_argument("--queue", required=True, metavar="NAME", help="the queue to drain")
    worker.add_argument(
        "--concurrency", type=int, default=1, metavar="N", help="runs at once here (1)"
    )
    worker.add_argument(
        "--id",
        dest="executor_id",
        default="local",
        metavar="NAME",
        help="this worker's name; a restarted worker recovers the runs its name left (local)",
    )
    worker.add_argument(
        "--approval-expiry",
        type=float,
        default=24 * 3600.0,
        metavar="SECONDS",
        help="how long a run waits for a person before denying (86400)",
    )
    worker.add_argument(
        "--rate",
        default=None,
        metavar="N/SECONDS",
        help="start at most N of the queue's runs per SECONDS, over all workers (no limit)",
    )
    runs = commands.add_parser("runs", help="submit, list, show, approve, cancel durable runs")
    actions = runs.add_subparsers(dest="action", metavar="ACTION", required=True)
    submit = actions.add_parser("submit", help="enqueue a run; prints its id at once")
    submit.add_argument("--queue", required=True, metavar="NAME")
    submit.add_argument("-p", "--print", dest="prompt", required=True, metavar="TASK")
    submit.add_argument("--cwd", metavar="DIR", help="where the run works (default: here)")
    submit.add_argument("--model", metavar="PROVIDER/ID")
    submit.add_argument("--gate", choices=GATE_MODES, default=None, help="gate mode (normal)")
    _add_tools_option(submit, "default %(default_tools)s")
    submit.add_argument("--no-sandbox", action="store_true", help="run bash without bubblewrap")
    actions.add_parser(
        "list", help="every run, newest first, with the engine, database and queue limits"
    )
    for name, text in (
        ("show", "a run's status, record, pending approval and steps"),
        ("cancel", "end a run and kill its tool processes"),
        ("logs", "a run's messages (its session)"),
    ):
        actions.add_parser(name, help=text).add_argument("run", metavar="RUN")
    approve = actions.add_parser("approve", help="answer the call a run waits on")
    approve.add_argument("run", metavar="RUN")
    approve.add_argument("call", metavar="CALL", help="the tool call's id (tether runs show)")
    approve.add_argument("decision", choices=("allow_once", "deny_once"))
    approve.add_argument(
        "--digest",
        metavar="D",
        help="refuse unless the call's arguments are the ones with this digest (runs show)",
    )


def _add_mcp_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    mcp = commands.add_parser("mcp", help="MCP: serve tether's tools, list or accept servers")
    actions = mcp.add_subparsers(dest="action", metavar="ACTION", required=True)
    serve = actions.add_parser("serve", help="the governed tools as an MCP server")
    serve.add_argument("--transport", choices=("stdio", "http"), default="stdio")
    serve.add_argument("--port", type=int, default=8000, help="HTTP port on 127.0.0.1 (0: any)")
    serve.add_argument("--gate", choices=GATE_MODES, default="normal", help="gate mode (normal)")
    _add_tools_option(serve, "default %(default_tools)s")
    serve.add_argument("--cwd", metavar="DIR", help="workspace (default: here)")
    serve.add_argument("--no-sandbox", action="store_true", help="run bash without bubblewrap")
    serve.add_argument(
        "--token-file",
        metavar="PATH",
        help="HTTP: the bearer token clients must send, read from PATH (default: a random one); "
        "either way it is written 0600 to mcp-token in the data directory",
    )
    actions.add_parser("list", help="configured MCP servers, their tools and pin status")
    accept = actions.add_parser("accept", help="accept a server's current tool definitions")
    accept.add_argument("server", metavar="SERVER")
    accept.add_argument("tool", metavar="TOOL", nargs="?", help="only this tool")


def _add_skills_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    skills = commands.add_parser("skills", help="list, show, validate or trust skills")
    actions = skills.add_subparsers(dest="action", metavar="ACTION", required=True)
    actions.add_parser("list", help="the skills found here, their scope and state")
    show = actions.add_parser("show", help="one skill: fields, files and instructions")
    show.add_argument("name", metavar="NAME")
    validate = actions.add_parser("validate", help="every problem, with file and line")
    validate.add_argument("path", metavar="PATH", nargs="?", help="default: every skill here")
    trust = actions.add_parser("trust", help="let this workspace's own skills load")
    trust.add_argument("--revoke", action="store_true", help="stop trusting this workspace")


class _ToolNames:
    """The built-in tools' names (or only the default set's) as help shows them, comma
    separated; looked up in :data:`tether.tools.BUILTIN_TOOLS` only when help is printed, so
    parsing imports no tool."""

    def __init__(self, *, default_only: bool) -> None:
        self.default_only = default_only

    def __str__(self) -> str:
        from tether.tools import BUILTIN_TOOLS

        names = BUILTIN_TOOLS.default_names() if self.default_only else tuple(BUILTIN_TOOLS)
        return ",".join(names)


def _add_tools_option(parser: argparse.ArgumentParser, help_text: str) -> None:
    """``--tools LIST``; its help may name ``%(builtin_tools)s`` and ``%(default_tools)s``."""
    action = parser.add_argument("--tools", default=None, metavar="LIST", help=help_text)
    action.builtin_tools = _ToolNames(default_only=False)  # type: ignore[attr-defined]
    action.default_tools = _ToolNames(default_only=True)  # type: ignore[attr-defined]
