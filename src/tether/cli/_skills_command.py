"""``tether skills list|show NAME|validate [PATH]|trust``: the person's side of skills.

``list`` shows every skill found for the working directory with its scope and state (``ready``,
or ``untrusted`` for a project skill before the workspace is trusted); ``show`` one skill's
fields, files and body; ``validate`` every problem of the skills under PATH (a ``SKILL.md``, a
skill directory or a directory of skills; default: all that ``list`` finds) as
``file:line: severity: message``, exiting 1 when there is any; ``trust`` (``--revoke``) lets
this workspace's own skills load.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from ._errors import CommandError

__all__ = ["run_skills", "skill_rows"]


def run_skills(args: Any) -> int:
    from tether.skills import TrustStore, discover_skills

    cwd = os.path.abspath(args.cwd or os.getcwd())
    if not os.path.isdir(cwd):
        raise CommandError(f"--cwd {args.cwd}: not a directory")
    if args.action == "validate":
        return _validate(args.path, cwd)
    if args.action == "trust":
        return _trust(TrustStore(), cwd, revoke=args.revoke)
    found = discover_skills(cwd)
    if args.action == "show":
        return _show(found, args.name)
    return _list(found)


def skill_rows(found: Any) -> list[tuple[str, str]]:
    """``(name, line)`` of every skill found, loadable ones first: name, scope, state and the
    start of the description (``tether skills list`` and ``/skills``)."""
    rows = [(s, "ready") for s in found.skills.values()]
    rows += [(s, "untrusted") for s in found.untrusted]
    width = max((len(skill.name) for skill, _ in rows), default=0)
    lines = []
    for skill, state in rows:
        description = " ".join(skill.description.split())
        if len(description) > 70:
            description = description[:69] + "…"
        line = f"{skill.name:<{width}}  {skill.scope:<7}  {state:<9}  {description}"
        lines.append((skill.name, line))
    return lines


def _list(found: Any) -> int:
    rows = skill_rows(found)
    if not rows:
        print("No skills found. Where tether looks: docs/skills.md")
    for _, line in rows:
        print(line)
    if found.untrusted:
        print(
            f"\n{len(found.untrusted)} project skill(s) not loaded until you trust this "
            "workspace: tether skills trust (read them first: tether skills show NAME)"
        )
    problems = len(found.diagnostics)
    if problems:
        print(f"{problems} problem(s) found: tether skills validate", file=sys.stderr)
    sys.stdout.flush()
    return 0


def _show(found: Any, name: str) -> int:
    from tether.skills import skill_files

    candidates = [*found.skills.values(), *found.untrusted]
    skill = next((s for s in candidates if s.name == name), None)
    if skill is None:
        raise CommandError(f"no skill named {name!r} here; tether skills list shows them")
    state = "ready" if found.get(name) is skill else "untrusted (not loaded)"
    print(f"name           {skill.name}")
    print(f"description    {' '.join(skill.description.split())}")
    print(f"file           {skill.path}")
    print(f"scope          {skill.scope}, {state}")
    print(f"digest         {skill.digest}")
    for label, value in (("license", skill.license), ("compatibility", skill.compatibility)):
        if value:
            print(f"{label:<14} {value}")
    for key, value in skill.metadata.items():
        print(f"metadata       {key}: {value}")
    if skill.allowed_tools:
        print(
            f"allowed-tools  {' '.join(skill.allowed_tools)} (shown only: a skill never widens "
            "what the gate allows)"
        )
    files, cut = skill_files(skill)
    for file in files:
        print(f"file           {file}")
    if cut:
        print("file           … (more)")
    print()
    print(skill.body)
    sys.stdout.flush()
    return 0


def _validate(path: str | None, cwd: str) -> int:
    from tether.skills import SKILL_FILE, find_skill_files, parse_skill, skill_roots

    if path is None:
        skill_files = [f for root in skill_roots(cwd) for f in find_skill_files(root.path)]
    elif os.path.isfile(path):
        skill_files = [path]
    elif os.path.isfile(os.path.join(path, SKILL_FILE)):
        skill_files = [os.path.join(path, SKILL_FILE)]
    elif os.path.isdir(path):
        skill_files = find_skill_files(path)
        if not skill_files:
            raise CommandError(f"{path}: no {SKILL_FILE} in it or in its subdirectories")
    else:
        raise CommandError(f"{path}: no such file or directory")
    errors = warnings = 0
    for skill_file in skill_files:
        skill, problems = parse_skill(skill_file)
        for problem in problems:
            print(problem)
        errors += sum(p.severity == "error" for p in problems)
        warnings += sum(p.severity == "warning" for p in problems)
        if not problems:
            print(f"{skill_file}: ok" + (f" ({skill.name})" if skill else ""))
    print(
        f"{len(skill_files)} skill(s) checked: {errors} error(s) (skill skipped), "
        f"{warnings} warning(s)"
    )
    sys.stdout.flush()
    return 1 if errors or warnings else 0


def _trust(store: Any, cwd: str, *, revoke: bool) -> int:
    from tether.skills import discover_skills

    if revoke:
        changed = store.revoke(cwd)
        print(f"{'No longer trusted' if changed else 'Was not trusted'}: {cwd}")
        return 0
    changed = store.trust(cwd)
    found = discover_skills(cwd, trust=store)
    project = [s.name for s in found.skills.values() if s.scope == "project"]
    print(f"{'Trusted' if changed else 'Already trusted'}: {cwd}")
    print(f"Project skills that now load: {', '.join(project) if project else 'none'}")
    return 0
