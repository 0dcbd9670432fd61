"""The layers are the layout: every import of tether's own code points down the layer map (the
package docstring's), and no package reaches into another's private modules."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "tether"
RANK = {
    "ai": 1, "agent": 2, "gate": 3, "tools": 4,
    "session": 5, "remote": 5, "mcp": 5, "skills": 5,
    "durable": 6, "runtime": 6, "cli": 7,
}  # fmt: skip
"""Layer 0 is the top package's own modules (``tether/_*.py``), below everything; its
``__init__`` and ``__main__`` are the façade (they re-export and start the command)."""
FACADE = {SRC / "__init__.py", SRC / "__main__.py"}


def package_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in RANK else ""


def imports_of(path: Path) -> list[tuple[int, str]]:
    """``(line, module)`` of every import of a tether module in ``path``, lazy ones included."""
    relative = path.relative_to(SRC.parent).with_suffix("")
    here = list(relative.parts if relative.name != "__init__" else relative.parts[:-1])
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.startswith("tether")]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                package = here if relative.name == "__init__" else here[:-1]
                base = package[: len(package) - node.level + 1]
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            if module.startswith("tether"):
                found.append((node.lineno, module))
    return found


def test_every_import_points_down_and_none_reaches_into_another_package() -> None:
    wrong: list[str] = []
    for path in sorted(set(SRC.rglob("*.py")) - FACADE):
        mine = package_of(".".join(path.relative_to(SRC.parent).with_suffix("").parts))
        for line, module in imports_of(path):
            theirs = package_of(module)
            where = f"{path.relative_to(SRC.parent)}:{line} imports {module}"
            if theirs == mine:
                continue
            if theirs and mine and RANK[theirs] >= RANK[mine]:
                wrong.append(f"{where} (not below {mine})")
            elif not mine and theirs:
                wrong.append(f"{where} (layer 0 imports a package)")
            if theirs and any(part.startswith("_") for part in module.split(".")[2:]):
                wrong.append(f"{where} (a private module of {theirs})")
    assert not wrong, "\n".join(wrong)


def test_the_map_covers_every_package() -> None:
    packages = {p.name for p in SRC.iterdir() if (p / "__init__.py").exists()}
    assert packages == set(RANK)
