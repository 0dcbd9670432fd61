"""tether — a Python agent runtime whose tools are governed.

The package is layered; each package imports only the ones below it::

    ai ← agent ← gate ← tools ← session, remote, mcp, skills ← durable, runtime ← cli

- :mod:`tether.ai` (layer 1) describes what a model sees and says: content blocks, messages,
  tools as schemas, argument validation, streaming events and the scripted :mod:`tether.ai.faux`
  model; :mod:`tether.ai.providers` holds the wire protocols, one subpackage each. It never
  executes anything.
- :mod:`tether.agent` (layer 2) executes: the agent loop, the five-step tool pipeline, parallel and
  sequential batches, abort, and the stateful :class:`tether.agent.Agent`.
- :mod:`tether.gate` governs: what each tool may do (catalog, shell and path policies, the gate
  with its modes, the AI reviewer, approvals by a person, redaction). It plugs into layer 2
  through the before/after tool-call hooks.
- :mod:`tether.tools` (layer 3) is the product's tools — read, write, edit, bash, grep, find, ls —
  each reaching the system only through a small operations protocol, each declaring its
  governance.
- :mod:`tether.session` keeps sessions on disk (a JSONL tree) and compacts them;
  :mod:`tether.remote` runs tools over SSH and through hands; :mod:`tether.mcp` is MCP both
  ways; :mod:`tether.skills` finds, trusts and discloses skills.
- :mod:`tether.durable` runs a tether run as a DBOS workflow; :mod:`tether.runtime` is the run
  layer every mode of the command builds (settings in, a governed, recorded agent out).
- :mod:`tether.cli` is the ``tether`` command; it only drives the run layer.

Every exception tether raises on purpose derives from :class:`tether.TetherError` (defined in
:mod:`tether.ai`, the lowest layer; its docstring draws the tree).
"""

__version__ = "0.1.0"

__all__ = ["TetherError", "__version__"]


def __getattr__(name: str) -> object:
    # lazily, so that ``import tether`` (and ``tether --help``) stays cheap
    if name == "TetherError":
        from tether.ai import TetherError

        return TetherError
    raise AttributeError(f"module 'tether' has no attribute {name!r}")
