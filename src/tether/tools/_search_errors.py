"""What ``find`` and ``grep`` tell a model when a search under a path it gave fails."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from tether.agent import ToolError
from tether.ai import AbortError

__all__ = ["search_errors"]


@contextmanager
def search_errors(
    tool: str, pattern: str, given_path: str, invalid: Callable[[ValueError], str]
) -> Iterator[None]:
    """Turns a search's failures into :class:`ToolError` messages: a missing or unreadable
    ``given_path``, a query the search refused (``ValueError``, worded by ``invalid``), an
    abort. Anything else passes unchanged."""
    try:
        yield
    except FileNotFoundError:
        raise ToolError(f"Path not found: {given_path}") from None
    except PermissionError:
        raise ToolError(f"Permission denied: {given_path}") from None
    except ValueError as error:
        raise ToolError(invalid(error)) from None
    except AbortError:
        raise ToolError(f"{tool} for {pattern!r} was aborted.") from None
