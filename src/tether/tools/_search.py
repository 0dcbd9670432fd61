"""What ``find`` and ``grep`` share: how they read a search's arguments and what they tell a
model when a search under a path it gave fails."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from tether.agent import ToolError
from tether.ai import AbortError

from ._paths import resolve_path

__all__ = ["SearchArguments", "limit_parameter", "search_errors"]


def limit_parameter(counted: str, default: int) -> dict[str, Any]:
    """The schema of a search's ``limit``: at most how many ``counted`` (default ``default``)."""
    return {
        "type": "integer",
        "minimum": 1,
        "description": f"Maximum number of {counted} to return (default {default}).",
    }


@dataclass(frozen=True, slots=True)
class SearchArguments:
    """A search's ``pattern``, the ``path`` as the model gave it (the working directory when it
    gave none), that path resolved, and the ``limit``."""

    pattern: str
    given_path: str
    path: str
    limit: int

    @classmethod
    def read(cls, params: Mapping[str, Any], cwd: str, default_limit: int) -> SearchArguments:
        given_path: str = params.get("path") or cwd
        limit = int(params.get("limit", default_limit))
        return cls(params["pattern"], given_path, resolve_path(given_path, cwd), limit)


@contextmanager
def search_errors(
    tool: str, search: SearchArguments, invalid: Callable[[ValueError], str]
) -> Iterator[None]:
    """Turns a search's failures into :class:`ToolError` messages: a missing or unreadable
    path, a query the search refused (``ValueError``, worded by ``invalid``), an abort.
    Anything else passes unchanged."""
    try:
        yield
    except FileNotFoundError:
        raise ToolError(f"Path not found: {search.given_path}") from None
    except PermissionError:
        raise ToolError(f"Permission denied: {search.given_path}") from None
    except ValueError as error:
        raise ToolError(invalid(error)) from None
    except AbortError:
        raise ToolError(f"{tool} for {search.pattern!r} was aborted.") from None
