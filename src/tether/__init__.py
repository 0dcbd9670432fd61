"""tether — a Python agent runtime whose tools are governed.

The package is layered; each layer imports only the ones below it:

- :mod:`tether.ai` (layer 1) describes what a model sees and says: content blocks, messages,
  tools as schemas, argument validation, streaming events and the scripted :mod:`tether.ai.faux`
  model. It never executes anything.
- :mod:`tether.agent` (layer 2) executes: the agent loop, the five-step tool pipeline, parallel and
  sequential batches, abort, and the stateful :class:`tether.agent.Agent`.
"""

__version__ = "0.1.0"
