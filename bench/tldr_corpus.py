"""Extract a compact corpus of real shell commands from tldr-pages (commands no one on the team
wrote) for the shell policy's benchmark and its false-deny review.

    .venv/bin/python bench/tldr_corpus.py GIT_DIR [--every N] [--out bench/corpora/tldr.txt]

``GIT_DIR`` is a clone (or bare mirror) of github.com/tldr-pages/tldr. Every example command of
``pages/common`` and ``pages/linux`` at ``HEAD`` is read; ``{{placeholders}}`` become plausible
values (``{{path/to/file}}`` → ``path/to/file``, ``{{[-r|--recursive]}}`` → ``-r``, a trailing
``...`` dropped); duplicates are removed and every ``N``-th command (default 8, in page order) is
kept so the file stays a few thousand lines. One command per line, a leading ``#`` line names
the source commit.
"""

from __future__ import annotations

import argparse
import re
import subprocess
from pathlib import Path

_EXAMPLE = re.compile(r"^`(.+)`\s*$")
_ALTERNATIVES = re.compile(r"\{\{\[([^|\]]*)\|[^\]]*\]\}\}")
_PLACEHOLDER = re.compile(r"\{\{(.*?)\}\}")


def _git(git_dir: str, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", git_dir, *args], check=True,
                          capture_output=True, text=True).stdout  # fmt: skip


def plausible(example: str) -> str:
    """The example with its placeholders filled in as a person would type them."""
    text = _ALTERNATIVES.sub(lambda m: m.group(1), example)
    text = _PLACEHOLDER.sub(lambda m: m.group(1).replace(" ...", "").replace("...", ""), text)
    return re.sub(r"\s+", " ", text).strip()


def examples(git_dir: str) -> list[str]:
    found: list[str] = []
    for section in ("common", "linux"):
        listing = _git(git_dir, "ls-tree", "--name-only", f"HEAD:pages/{section}")
        for name in sorted(listing.split()):
            page = _git(git_dir, "show", f"HEAD:pages/{section}/{name}")
            for line in page.splitlines():
                match = _EXAMPLE.match(line)
                if match:
                    found.append(plausible(match.group(1)))
    return list(dict.fromkeys(c for c in found if c and "\n" not in c))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("git_dir")
    parser.add_argument("--every", type=int, default=8)
    parser.add_argument("--out", type=Path, default=Path("bench/corpora/tldr.txt"))
    options = parser.parse_args()
    commit = _git(options.git_dir, "rev-parse", "HEAD").strip()
    commands = examples(options.git_dir)
    kept = commands[:: options.every]
    header = f"# tldr-pages {commit}, pages/common + pages/linux: {len(kept)} of {len(commands)}"
    options.out.write_text("\n".join([header, *kept]) + "\n")
    print(header)


if __name__ == "__main__":
    main()
