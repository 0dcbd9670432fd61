"""Pins: the definition of every foreign tool a person has accepted, by digest.

A definition is what the model would be shown and what governs the tool: name, description,
input and output schema, annotations. Its digest is sha256 over canonical JSON. The first time a
server is ever connected its tools are pinned (trust on first use); afterwards a tool whose digest
differs from its pin is *changed* and one without a pin is *new*, and both are withheld until a
person accepts them (``tether mcp accept SERVER [TOOL]``). The store is one JSON file in the data
directory (0600), written atomically; one that cannot be read is an error, never an empty store
(which would pin whatever the servers say now).
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeAlias

from ._config import McpConfigError

__all__ = ["PinCheck", "PinStatus", "PinStore", "definition_digest", "describe_change"]

PinStatus: TypeAlias = Literal["pinned", "new", "changed"]

_FIELDS = ("name", "description", "input_schema", "output_schema", "annotations")


def definition_digest(definition: Mapping[str, Any]) -> str:
    canonical = json.dumps(
        {key: definition.get(key) for key in _FIELDS},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return hashlib.sha256(canonical.encode()).hexdigest()


def describe_change(old: Mapping[str, Any], new: Mapping[str, Any]) -> str:
    """The parts of a definition that differ, for the person deciding (``description, ...``)."""
    changed = [key for key in _FIELDS if old.get(key) != new.get(key)]
    return ", ".join(changed) or "nothing visible"


@dataclass(frozen=True, slots=True)
class PinCheck:
    status: PinStatus
    change: str | None = None
    """For ``changed``: the parts of the definition that differ from the pin."""


class PinStore:
    """``{server: {tool: {"digest", "definition"}}}`` in ``path`` (default
    ``<data dir>/mcp-pins.json``). Thread-safe; every change is written at once."""

    def __init__(self, path: Path | None = None) -> None:
        if path is None:
            from tether._home import data_dir

            path = Path(data_dir()) / "mcp-pins.json"
        self.path = path
        self._lock = threading.Lock()

    def knows(self, server: str) -> bool:
        return server in self._load()

    def check(self, server: str, definition: Mapping[str, Any]) -> PinCheck:
        pin = self._load().get(server, {}).get(str(definition.get("name")))
        if pin is None:
            return PinCheck("new")
        if pin.get("digest") == definition_digest(definition):
            return PinCheck("pinned")
        return PinCheck("changed", describe_change(pin.get("definition") or {}, definition))

    def pin(self, server: str, definitions: Sequence[Mapping[str, Any]]) -> None:
        """Accept ``definitions`` of ``server`` as they are now."""
        with self._lock:
            data = self._load()
            tools = data.setdefault(server, {})
            for definition in definitions:
                tools[str(definition["name"])] = {
                    "digest": definition_digest(definition),
                    "definition": dict(definition),
                }
            self._save(data)

    def _load(self) -> dict[str, dict[str, dict[str, Any]]]:
        try:
            with open(self.path, encoding="utf-8") as handle:
                data = json.load(handle)
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            raise McpConfigError(
                f"{self.path}: unreadable pins ({exc}); fix or remove it"
            ) from None
        if not isinstance(data, dict):
            raise McpConfigError(f"{self.path}: pins must be a JSON object; fix or remove it")
        return data

    def _save(self, data: dict[str, Any]) -> None:
        from tether._home import write_private

        write_private(self.path, json.dumps(data, indent=1, sort_keys=True))
