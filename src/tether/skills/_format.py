"""One skill directory read: ``SKILL.md``'s YAML front matter checked against the Agent Skills
specification, leniently.

A skill is skipped (``None``) only when it cannot be disclosed: no front matter, YAML that does
not parse even after quoting values that hold a ``: ``, front matter that is not a mapping, or a
missing or empty ``description``. Every other departure from the specification (a name that
breaks the rules or differs from the directory's, an over-long description, a ``metadata`` value
that is not a string, an unknown field ...) is a warning and the skill loads. Each problem is a
:class:`Diagnostic` naming the file and the line.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass, field
from typing import Any, Literal

import yaml

__all__ = [
    "SKILL_FILE",
    "Diagnostic",
    "Scope",
    "Skill",
    "parse_skill",
]

SKILL_FILE = "SKILL.md"
Scope = Literal["project", "user"]

MAX_NAME = 64
MAX_DESCRIPTION = 1024
MAX_COMPATIBILITY = 500
_NAME_CHARACTERS = re.compile(r"[a-z0-9-]+")
_KNOWN_FIELDS = ("name", "description", "license", "compatibility", "metadata", "allowed-tools")
_TOP_LEVEL_SCALAR = re.compile(r"^([A-Za-z][\w-]*):[ \t]+(.+?)[ \t]*$")
_MAX_SKILL_BYTES = 1_000_000
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""Safe loading (no Python objects), with libyaml's speed where PyYAML was built with it."""


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One problem of one skill file: an ``error`` skips the skill, a ``warning`` does not."""

    path: str
    line: int
    severity: Literal["error", "warning"]
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.severity}: {self.message}"


@dataclass(frozen=True, slots=True)
class Skill:
    """A skill that can be disclosed: its front matter, body and where it lives.

    ``allowed_tools`` is read and shown, never granted: the gate judges every call a skill's
    instructions lead to exactly as it judges any other (a skill cannot widen permissions).
    """

    name: str
    description: str
    path: str
    """The ``SKILL.md`` file, absolute."""
    scope: Scope
    body: str
    digest: str
    """``sha256:`` of the ``SKILL.md`` bytes: which version of the skill was activated."""
    license: str | None = None
    compatibility: str | None = None
    metadata: dict[str, str] = field(default_factory=dict)
    allowed_tools: tuple[str, ...] = ()

    @property
    def directory(self) -> str:
        """The skill's base directory, against which its relative paths resolve."""
        return os.path.dirname(self.path)


def parse_skill(path: str, scope: Scope = "user") -> tuple[Skill | None, list[Diagnostic]]:
    """The skill whose ``SKILL.md`` is ``path`` (or ``None`` when it must be skipped) and every
    problem found, in file order."""
    path = os.path.abspath(path)
    problems = _Problems(path)
    try:
        with open(path, "rb") as handle:
            raw = handle.read(_MAX_SKILL_BYTES + 1)
    except OSError as exc:
        problems.error(1, f"cannot read {SKILL_FILE}: {exc.strerror or exc}")
        return None, problems.found
    if len(raw) > _MAX_SKILL_BYTES:
        problems.error(1, f"{SKILL_FILE} is larger than {_MAX_SKILL_BYTES} bytes")
        return None, problems.found
    text = raw.decode("utf-8", errors="replace").removeprefix("\ufeff")
    if "\ufffd" in text:
        problems.warning(1, f"{SKILL_FILE} is not valid UTF-8; bad bytes read as U+FFFD")
    split = _split_front_matter(text, problems)
    if split is None:
        return None, problems.found
    front, body = split
    fields = _load_front_matter(front, problems)
    if fields is None:
        return None, problems.found
    values, lines = fields
    description = _description(values, lines, problems)
    if description is None:
        return None, problems.found
    directory_name = os.path.basename(os.path.dirname(path))
    skill = Skill(
        name=_name(values, lines, directory_name, problems),
        description=description,
        path=path,
        scope=scope,
        body=body,
        digest="sha256:" + hashlib.sha256(raw).hexdigest(),
        license=_optional_text(values, lines, "license", problems),
        compatibility=_compatibility(values, lines, problems),
        metadata=_metadata(values, lines, problems),
        allowed_tools=_allowed_tools(values, lines, problems),
    )
    for key, line in lines.items():
        if key not in _KNOWN_FIELDS:
            problems.warning(
                line,
                f"unknown field {key!r} (the specification defines "
                f"{', '.join(_KNOWN_FIELDS)}); ignored",
            )
    if not body.strip():
        problems.warning(len(text.splitlines()) or 1, "the body after the front matter is empty")
    problems.found.sort(key=lambda d: d.line)
    return skill, problems.found


class _Problems:
    def __init__(self, path: str) -> None:
        self.path = path
        self.found: list[Diagnostic] = []

    def error(self, line: int, message: str) -> None:
        self.found.append(Diagnostic(self.path, line, "error", message))

    def warning(self, line: int, message: str) -> None:
        self.found.append(Diagnostic(self.path, line, "warning", message))


def _split_front_matter(text: str, problems: _Problems) -> tuple[str, str] | None:
    """The YAML between the opening ``---`` line and the closing one, and the body after it."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].rstrip() != "---":
        problems.error(1, "no YAML front matter: the file must start with a '---' line")
        return None
    for number in range(1, len(lines)):
        if lines[number].rstrip() == "---":
            return "".join(lines[1:number]), "".join(lines[number + 1 :]).strip()
    problems.error(1, "the front matter opened on line 1 is never closed by a '---' line")
    return None


def _load_front_matter(
    front: str, problems: _Problems
) -> tuple[dict[str, Any], dict[str, int]] | None:
    """The front matter's fields and the file line of each key; on YAML that does not parse,
    one retry with plain values that hold ``: `` quoted (a common slip other clients accept)."""
    try:
        return _fields(front, problems)
    except yaml.YAMLError as exc:
        line = _file_line(exc)
        quoted = _quote_plain_values(front)
        if quoted != front:
            try:
                loaded = _fields(quoted, problems)
            except yaml.YAMLError:
                pass
            else:
                problems.warning(
                    line,
                    f"the front matter is not valid YAML ({_problem(exc)}); "
                    "read with the values that contain ': ' quoted",
                )
                return loaded
        problems.error(line, f"the front matter is not valid YAML: {_problem(exc)}")
        return None


def _fields(front: str, problems: _Problems) -> tuple[dict[str, Any], dict[str, int]] | None:
    loader = _LOADER(front)
    try:
        node = loader.get_single_node()
        values: Any = loader.construct_document(node) if node is not None else None
    finally:
        loader.dispose()
    if node is None:
        problems.error(2, "the front matter is empty (name and description are required)")
        return None
    if not isinstance(node, yaml.MappingNode):
        problems.error(node.start_mark.line + 2, "the front matter is not a mapping of fields")
        return None
    lines: dict[str, int] = {}
    for key_node, _ in node.value:
        key = str(key_node.value)
        line = key_node.start_mark.line + 2
        if key in lines:
            problems.warning(line, f"field {key!r} is given twice; the last one counts")
        lines[key] = line
    return {str(k): v for k, v in values.items()}, lines


def _quote_plain_values(front: str) -> str:
    out = []
    for line in front.splitlines(keepends=True):
        match = _TOP_LEVEL_SCALAR.match(line.rstrip("\r\n"))
        if match and ": " in match[2] and match[2][0] not in "\"'|>[{&*!":
            escaped = match[2].replace("'", "''")
            out.append(f"{match[1]}: '{escaped}'\n")
        else:
            out.append(line)
    return "".join(out)


def _file_line(exc: yaml.YAMLError) -> int:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    return mark.line + 2 if mark is not None else 2


def _problem(exc: yaml.YAMLError) -> str:
    problem = getattr(exc, "problem", None)
    context = getattr(exc, "context", None)
    return " ".join(str(p) for p in (context, problem) if p) or str(exc).splitlines()[0]


def _description(values: dict[str, Any], lines: dict[str, int], problems: _Problems) -> str | None:
    value = values.get("description")
    line = lines.get("description", 2)
    if value is None or (isinstance(value, str) and not value.strip()):
        problems.error(line, "description is missing or empty; the skill cannot be disclosed")
        return None
    if not isinstance(value, str):
        problems.error(line, f"description is a {type(value).__name__}, not text")
        return None
    if len(value) > MAX_DESCRIPTION:
        problems.warning(line, f"description is {len(value)} characters; at most {MAX_DESCRIPTION}")
    return value.strip()


def _name(
    values: dict[str, Any], lines: dict[str, int], directory: str, problems: _Problems
) -> str:
    value = values.get("name")
    line = lines.get("name", 2)
    if value is None:
        problems.warning(line, f"name is missing; the directory's name {directory!r} is used")
        return directory
    if not isinstance(value, str) or not value:
        problems.warning(
            line, f"name is not a non-empty string; the directory's name {directory!r} is used"
        )
        return directory
    if len(value) > MAX_NAME:
        problems.warning(line, f"name is {len(value)} characters; at most {MAX_NAME}")
    if not _NAME_CHARACTERS.fullmatch(value):
        problems.warning(
            line, f"name {value!r} may only hold lowercase letters a-z, digits and '-'"
        )
    if value.startswith("-") or value.endswith("-"):
        problems.warning(line, f"name {value!r} must not start or end with a hyphen")
    if "--" in value:
        problems.warning(line, f"name {value!r} must not hold consecutive hyphens")
    if value != directory:
        problems.warning(line, f"name {value!r} is not the name of its directory {directory!r}")
    return value


def _optional_text(
    values: dict[str, Any], lines: dict[str, int], key: str, problems: _Problems
) -> str | None:
    value = values.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        problems.warning(lines[key], f"{key} is a {type(value).__name__}, not text; read as text")
        return str(value)
    return value


def _compatibility(
    values: dict[str, Any], lines: dict[str, int], problems: _Problems
) -> str | None:
    value = _optional_text(values, lines, "compatibility", problems)
    if value is not None and not 1 <= len(value) <= MAX_COMPATIBILITY:
        problems.warning(
            lines["compatibility"],
            f"compatibility is {len(value)} characters; it must be 1-{MAX_COMPATIBILITY}",
        )
    return value


def _metadata(values: dict[str, Any], lines: dict[str, int], problems: _Problems) -> dict[str, str]:
    value = values.get("metadata")
    if value is None:
        return {}
    if not isinstance(value, dict):
        problems.warning(
            lines["metadata"],
            f"metadata is a {type(value).__name__}, not a mapping of strings to strings; ignored",
        )
        return {}
    metadata: dict[str, str] = {}
    for key, item in value.items():
        if not isinstance(key, str) or not isinstance(item, str):
            problems.warning(
                lines["metadata"],
                f"metadata {key!r} has the value {item!r}, not a string; read as {str(item)!r}"
                if isinstance(key, str)
                else f"metadata key {key!r} is not a string; read as {str(key)!r}",
            )
        metadata[str(key)] = item if isinstance(item, str) else str(item)
    return metadata


def _allowed_tools(
    values: dict[str, Any], lines: dict[str, int], problems: _Problems
) -> tuple[str, ...]:
    value = values.get("allowed-tools")
    if value is None:
        return ()
    if isinstance(value, str):
        return tuple(value.split())
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        problems.warning(
            lines["allowed-tools"],
            "allowed-tools is a list; the specification asks for one space-separated string",
        )
        return tuple(value)
    problems.warning(
        lines["allowed-tools"],
        f"allowed-tools is a {type(value).__name__}, not a space-separated string; ignored",
    )
    return ()
