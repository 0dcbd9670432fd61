"""A Griffe extension: the docstrings' Sphinx roles, rendered by mkdocstrings.

tether's docstrings name other objects with Sphinx roles (``:class:`Agent```,
``:data:`~tether.ai.StreamFn```, ``:meth:`PathPolicy.judge```,
``:mod:`._sandbox```), which mkdocstrings would print verbatim. Before any
docstring is parsed, this extension rewrites each role into Markdown:

- an autorefs cross-reference (``[`Agent`][tether.agent.Agent]``) when the
  role's target is an object the API reference renders (it links to that
  object's heading), or
- inline code (`` `_sandbox` ``) otherwise: builtins, private modules, objects
  no page documents.

Targets resolve like Sphinx's: a dotted name is looked up in the scope of the
object whose docstring holds it (its members and imports, then its parents'),
then as an absolute path; a leading ``.`` is relative to the module; ``~``
shows only the last component. A target rendered under a public name
(``tether.ai.ToolResultMessage``, defined in ``tether.ai._types``) links to
that public heading. So no role becomes a broken link, which
``mkdocs build --strict`` rejects.

Which objects the reference renders is read from the ``::: identifier`` lines
of ``docs/reference/*.md`` and mirrors the handler options in ``mkdocs.yml``:
members whose name starts with ``_`` are filtered out, imported names show
only when exported (``__all__``), submodules are not rendered under their
package. Loaded through the handler's ``extensions:`` option as a file path;
it reads nothing from the network.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from griffe import (
    Alias,
    AliasResolutionError,
    Extension,
    GriffeLoader,
    Module,
    Object,
)

ROLES = "class|func|meth|data|mod|attr|exc|obj|const"
ROLE = re.compile(rf":(?:py:)?(?:{ROLES}):`([^`]+)`")
REFERENCE_DIR = Path(__file__).parent / "reference"
IDENTIFIER_LINE = re.compile(r"^:::\s+(\S+)\s*$", re.MULTILINE)


def reference_roots(reference_dir: Path = REFERENCE_DIR) -> list[str]:
    """The identifiers the reference pages render (``::: tether.ai``)."""
    return [
        match.group(1)
        for page in sorted(reference_dir.glob("*.md"))
        for match in IDENTIFIER_LINE.finditer(page.read_text(encoding="utf-8"))
    ]


def _rendered_members(obj: Object | Alias) -> list[Object | Alias]:
    """The members mkdocstrings renders under ``obj`` with our options."""
    if not (obj.is_module or obj.is_class):
        return []
    kept = []
    for name, member in obj.members.items():
        if name.startswith("_") or member.inherited:
            continue
        if member.is_imported and not member.is_public:
            continue
        try:
            if member.is_module:
                continue
        except AliasResolutionError:
            continue  # exported from a package not loaded: no heading of ours
        kept.append(member)
    return kept


def _canonical(obj: Object | Alias) -> str | None:
    """Where ``obj`` is defined; None for an alias to a package not loaded."""
    try:
        return obj.canonical_path
    except Exception:  # the standard library, a dependency
        return None


def documented_paths(loader: GriffeLoader, roots: list[str]) -> dict[str, str]:
    """Each rendered object's own and canonical path → its heading's id."""
    headings: dict[str, str] = {}
    pending: list[Object | Alias] = []
    seen: set[str] = set()
    for root in roots:
        try:
            pending.append(loader.modules_collection.get_member(root))
        except KeyError:
            continue  # another package's page; its loader maps its own roots
    while pending:
        obj = pending.pop()
        if obj.path in seen:
            continue
        seen.add(obj.path)
        headings.setdefault(obj.path, obj.path)
        canonical = _canonical(obj)
        if canonical is not None:
            headings.setdefault(canonical, obj.path)
        pending.extend(_rendered_members(obj))
    return headings


class RoleRewriter:
    """Rewrites the roles in one loaded package's docstrings."""

    def __init__(self, loader: GriffeLoader, headings: dict[str, str]) -> None:
        self.loader = loader
        self.headings = headings

    def _lookup(self, path: str) -> str | None:
        """The heading of the object at ``path``, if it is rendered."""
        if path in self.headings:
            return self.headings[path]
        try:
            obj = self.loader.modules_collection.get_member(path)
        except (KeyError, ValueError, AttributeError):
            return None
        canonical = _canonical(obj)
        return None if canonical is None else self.headings.get(canonical)

    def _candidates(self, target: str, context: Object) -> list[str]:
        """Absolute paths ``target`` may mean in ``context``'s docstring."""
        module = context if context.is_module else context.module
        if target.startswith("."):
            package = module
            if not module.is_package and module.parent is not None:
                package = module.parent
            relative = target.lstrip(".")
            return [f"{module.path}.{relative}", f"{package.path}.{relative}"]
        first, _, rest = target.partition(".")
        candidates = []
        scope: Object | None = context
        while scope is not None:
            try:
                resolved = scope.resolve(first)
            except Exception:  # NameResolutionError, an unresolvable import
                scope = scope.parent
                continue
            candidates.append(f"{resolved}.{rest}" if rest else resolved)
            break
        candidates.append(target)
        return candidates

    def replace(self, target_text: str, context: Object) -> str:
        """The Markdown for one role's target text."""
        target = " ".join(target_text.split())
        short = target.startswith("~")
        target = target.lstrip("~!")
        display = target.rsplit(".", 1)[-1] if short else target.lstrip(".")
        for candidate in self._candidates(target, context):
            heading = self._lookup(candidate)
            if heading is not None:
                return f"[`{display}`][{heading}]"
        return f"`{display}`"

    def rewrite(self, obj: Object) -> None:
        """Rewrite ``obj``'s docstring and its members' (not aliases')."""
        if obj.docstring is not None:
            obj.docstring.value = ROLE.sub(
                lambda match: self.replace(match.group(1), obj),
                obj.docstring.value,
            )
        for member in obj.members.values():
            if isinstance(member, Object):
                self.rewrite(member)


class SphinxRoles(Extension):
    """Turns roles into autorefs links or inline code, once per package."""

    def on_package(
        self, *, pkg: Module, loader: GriffeLoader, **kwargs: Any
    ) -> None:
        """Rewrite every docstring of the package just loaded."""
        headings = documented_paths(loader, reference_roots())
        RoleRewriter(loader, headings).rewrite(pkg)
