"""What ``find`` and ``grep`` share: how they read a search's arguments, what they tell a
model when a search under a path it gave fails, and the notices that end a cut listing."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from tether.agent import ToolError
from tether.ai import AbortError

from ._paths import resolve_path
from ._truncate import TruncationResult, format_size

__all__ = [
    "SearchArguments",
    "capped_notice",
    "limit_notice",
    "limit_parameter",
    "search_errors",
    "with_notices",
]


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


def limit_notice(limit: int, counted: str) -> str:
    """What a search says when it stopped at its ``limit`` of ``counted``."""
    return f"[{limit} {counted} limit reached. Use limit={limit * 2} for more, or refine pattern]"


def capped_notice(truncation: TruncationResult, total: int, counted: str, advice: str) -> str:
    """What a search says when its listing of ``total`` ``counted`` was cut at the output cap,
    ending in ``advice``: how to see the rest."""
    cap = (
        f"{truncation.max_lines} lines"
        if truncation.truncated_by == "lines"
        else format_size(truncation.max_bytes)
    )
    return (
        f"[Output capped at {cap}: showing {truncation.output_lines} of {total} {counted}. "
        f"{advice}]"
    )


def with_notices(text: str, notices: Sequence[str]) -> str:
    """``text`` followed by the ``notices``, one a line, after a blank line (if there are any)."""
    return text + "\n\n" + "\n".join(notices) if notices else text
