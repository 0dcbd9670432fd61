"""``allow`` as a proof: the small grammar of scripts the shell policy can show are read-only.

A script is provable only when it is a list or pipeline (``;``, ``&&``, ``||``, ``|``) of simple
commands whose every word is a literal — plain or quoted text with nothing bash would expand:
no ``$``, backticks, unquoted glob or brace characters, ``~`` only as a leading ``~`` or ``~/``
— with no assignments, control flow, functions, ``(( ))``/``[[ ]]``, heredocs or here-strings,
no ``cd``, and no redirections but to ``/dev/null`` and ``2>&1``. Each command must be on the
read-only list with options it allows (:mod:`._options`), and every file it names must
be allowed by the path policy. The text must be printable ASCII (with TAB, space and newline) and
hold no comment and no backslash-newline: that is where bash and tree-sitter part ways. Each word
is read twice — from tree-sitter's nodes and by an
independent lexer over its text — and the whole text must be covered by the tree's tokens: any
disagreement, a parse error or a node outside the grammar is a refusal. Everything refused is at
best ``approve``, however harmless it looks.

What is proved is what runs: the ``allow`` carries, as ``prepared["command"]``, the script
regenerated from the command vectors the proof checked — every word single-quoted, ``; && || |``
as separators, the ``/dev/null`` redirections spelled out, no comments, git with the state the
model can write neutralised (:mod:`._git_neutral`) — and the gate hands that to bash in place of
the model's text.
"""

from __future__ import annotations

import fnmatch
import os
import re
from typing import TYPE_CHECKING

from tree_sitter import Node

from .._path_policy import SECRET_SEARCH_GLOBS
from .._secret_inodes import is_link_to_a_secret
from .._verdict import Verdict
from ._budget import spend_entries
from ._git_neutral import neutralised_words
from ._git_secrets import history_refusal
from ._git_worktree import work_tree_refusal
from ._ignore_names import names_ignored_everywhere
from ._options import Reading, read_arguments

if TYPE_CHECKING:
    from .._path_policy import PathAccess, PathPolicy
    from ._call import Paths

__all__ = ["PathChecks", "prove_read_only", "strict_literal"]

_MAX_SEARCHED_ENTRIES = 5000
_SECRET_NAME = re.compile(
    "|".join(fnmatch.translate(glob.rpartition("/")[2]) for glob in SECRET_SEARCH_GLOBS)
)
_SEPARATORS = frozenset({";", "&&", "||", "|", "\n"})
_WORDS = frozenset({"word", "raw_string", "string", "concatenation", "number"})
_EXPANDING = frozenset({"ansi_c_string", "translated_string", "brace_expression"})
_UNQUOTED_SPECIAL = frozenset("$`*?[{}\t\n ;&|<>()")
_DQ_ESCAPABLE = frozenset('$`"\\\n')
_BLANK = re.compile(rb"(?:[ \t\r\n]|\\\n)*")
_OUTSIDE_WALL = re.compile(rb"[^\t\n\x20-\x7e]")


class PathChecks:
    """The path policy's verdicts for one classification, each path resolved once (the walk of
    the deny rules and the proof ask about the same files)."""

    def __init__(self, policy: PathPolicy) -> None:
        self._policy = policy
        self._verdicts: dict[tuple[str, PathAccess], Verdict] = {}

    def check(self, path: str, access: PathAccess) -> Verdict:
        key = (path, access)
        verdict = self._verdicts.get(key)
        if verdict is None:
            spend_entries(1)  # each resolves a path on disk: it counts like a listed entry
            verdict = self._verdicts[key] = self._policy.check(path, access)
        return verdict

    def _links_to_a_secret(self, entry: os.DirEntry[str]) -> bool:
        """A file with other names, one a secret of the home (``ln ~/.ssh/id_rsa notes``)."""
        home = self._policy.home
        try:
            status = entry.stat(follow_symlinks=False)  # cached by the directory listing
        except OSError:
            return True
        return home is not None and is_link_to_a_secret(status, home)

    @property
    def home(self) -> str | None:
        """The home whose secret files a hard link in the workspace may be another name of."""
        return self._policy.home

    @property
    def local(self) -> bool:
        """The files are on this machine (the policy resolves paths here)."""
        return self._policy.local

    def secret_in_tree(
        self,
        directory: str,
        skipped: frozenset[str] | None = None,
        only: tuple[str, ...] = (),
        *,
        follows: bool = True,
    ) -> str | None:
        """What makes a search of ``directory`` unprovable: a secret file or a symlink leading
        outside the workspace somewhere below it, or more entries than are worth walking.
        ``skipped``: the search skips hidden entries and these (git-ignored) names, a name
        ending in ``/`` only as a directory (:mod:`._ignore_names`). ``only``:
        the search reads only files these globs match, so a secret file none of them can
        match is not read (a secret directory always counts). ``follows``: whether the search
        follows symlinks it meets (a symlink it does not follow leads nowhere)."""
        if not self._policy.local:  # its entries are on another host; none is listed from here
            return "files on the host where the commands run, not checked for secrets from here"
        if not os.path.isdir(directory):
            return None
        if skipped is not None and _whitelisted_above(directory):
            skipped = None
        seen = 0
        pending = [directory]
        while pending:
            try:
                entries = list(os.scandir(pending.pop()))
            except OSError:
                return "a directory that cannot be read"
            seen += len(entries)
            spend_entries(len(entries))
            if seen > _MAX_SEARCHED_ENTRIES:
                return f"more than {_MAX_SEARCHED_ENTRIES} entries to check for secrets"
            for entry in entries:
                if skipped is not None and entry.name in _IGNORE_FILES and _whitelists(entry.path):
                    return self.secret_in_tree(directory, None, only, follows=follows)
                if skipped is not None and (entry.name[:1] == "." or _skips(entry, skipped)):
                    continue
                if not follows and entry.is_symlink():
                    continue
                if entry.is_symlink() or _SECRET_NAME.match(entry.name.lower()):
                    if (
                        only
                        and entry.is_file(follow_symlinks=False)
                        and not any(_may_match(glob, entry.name) for glob in only)
                    ):
                        continue
                    verdict = self.check(entry.path, "read")
                    if verdict.decision != "allow":
                        return verdict.reasons[0] if verdict.reasons else entry.path
                elif entry.is_dir(follow_symlinks=False):
                    pending.append(entry.path)
                elif entry.is_file(follow_symlinks=False) and self._links_to_a_secret(entry):
                    return f"a hard link to a secret — {entry.path}"
        return None


_IGNORE_FILES = frozenset({".ignore", ".rgignore", ".gitignore"})


def _skips(entry: os.DirEntry[str], skipped: frozenset[str]) -> bool:
    """Whether the search skips ``entry`` as ignored: its name is, or it is a directory (not a
    symlink to one, which rg does not follow) and its name is a directory-only pattern."""
    if entry.name in skipped:
        return True
    return entry.name + "/" in skipped and entry.is_dir(follow_symlinks=False)


def _whitelists(path: str) -> bool:
    """An ignore file with a ``!pattern`` line: ripgrep then searches the hidden or ignored
    files it re-includes (``!.env`` in a ``.ignore`` the model wrote), so a search that skips
    them proves nothing. Unreadable counts as re-including."""
    try:
        with open(path, "rb") as file:
            data = file.read(1 << 20)
    except FileNotFoundError:
        return False
    except OSError:
        return True
    return any(line.lstrip().startswith(b"!") for line in data.splitlines())


def _whitelisted_above(directory: str) -> bool:
    """An ignore file ripgrep reads for ``directory`` from outside it: in a parent directory, a
    repository's ``.git/info/exclude``, or the user's global git ignore file."""
    candidates = [os.path.expanduser("~/.config/git/ignore")]
    xdg = os.environ.get("XDG_CONFIG_HOME")
    if xdg:
        candidates.append(os.path.join(xdg, "git", "ignore"))
    current = os.path.abspath(directory)
    while True:
        candidates += [os.path.join(current, name) for name in _IGNORE_FILES]
        candidates.append(os.path.join(current, ".git", "info", "exclude"))
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    return any(_whitelists(candidate) for candidate in candidates)


_SIMPLE_GLOB = re.compile(r"[\w.*?+@%,=~-]+")


def _may_match(glob: str, name: str) -> bool:
    """Whether ripgrep's glob ``glob`` may match the file ``name``: a glob of plain characters,
    ``*`` and ``?`` without a slash matches the base name (compared ignoring case, as
    ``--iglob`` would); any other glob (``**``, ``/``, ``[...]``, ``{...}``) may match anything."""
    if not _SIMPLE_GLOB.fullmatch(glob):
        return True
    return fnmatch.fnmatchcase(name.lower(), glob.lower())


class _Refused(Exception):
    """The script is outside the provable grammar; the message says where."""


def strict_literal(raw: str) -> str | None:
    """The value of the shell word ``raw`` when bash would expand nothing in it, else ``None``."""
    out: list[str] = []
    index, length = 0, len(raw)
    while index < length:
        char = raw[index]
        if char == "\\":
            if index + 1 >= length:
                return None
            if raw[index + 1] != "\n":
                out.append(raw[index + 1])
            index += 2
        elif char == "'":
            end = raw.find("'", index + 1)
            if end < 0:
                return None
            out.append(raw[index + 1 : end])
            index = end + 1
        elif char == '"':
            index += 1
            while index < length and raw[index] != '"':
                inner = raw[index]
                if inner in "$`":
                    return None
                if inner == "\\" and index + 1 < length and raw[index + 1] in _DQ_ESCAPABLE:
                    if raw[index + 1] != "\n":
                        out.append(raw[index + 1])
                    index += 2
                    continue
                out.append(inner)
                index += 1
            if index >= length:
                return None
            index += 1
        elif char in _UNQUOTED_SPECIAL or _expands_here(raw, index):
            return None
        else:
            out.append(char)
            index += 1
    return "".join(out)


def _expands_here(raw: str, index: int) -> bool:
    """An unquoted ``~`` bash would expand (or might: after ``=`` or ``:``), or a comment."""
    char = raw[index]
    if char == "#":
        return index == 0
    if char != "~":
        return False
    return raw[index - 1 : index] in ("=", ":") or (index == 0 and raw[1:2] not in ("", "/"))


# Bash's quoting at the top level of the text: an escape, a single- or double-quoted span, or any
# other byte. Inside quotes a backslash is literal or quotes itself, and tree-sitter agrees.
_QUOTING = re.compile(rb"""\\.|'[^']*'|"(?:\\.|[^"\\])*"|.""", re.DOTALL)
_OPERATOR_OR_BLANK = frozenset(b";&|<>() \t\n\r\x0b\x0c")


def _escapes_an_operator_or_blank(source: bytes) -> bool:
    """Whether an unquoted backslash escapes an operator or a blank: there tree-sitter may split
    a word that bash keeps whole (``'README.md'\\;ls`` is one word to bash)."""
    return any(
        len(token) == 2 and token[0] == 0x5C and token[1] in _OPERATOR_OR_BLANK
        for token in (match.group() for match in _QUOTING.finditer(source))
    )


def prove_read_only(root: Node, source: bytes, paths: Paths, path_policy: PathChecks) -> Verdict:
    """``allow`` with a reason per command when the script is provably read-only, else
    ``approve`` saying what is outside the grammar."""
    prover = _Prover(source, paths, path_policy)
    try:
        if root.has_error:
            raise _Refused("the script does not parse cleanly")
        if _OUTSIDE_WALL.search(source):
            raise _Refused("a character outside printable ASCII, which bash may read differently")
        if b"\\\n" in source:
            raise _Refused("a backslash-newline, which bash removes before it reads the text")
        if _escapes_an_operator_or_blank(source):
            raise _Refused(
                "an escaped blank or operator, where bash and the parser split words apart"
            )
        prover.cover(root)
        script = prover.statement_list(root)
    except _Refused as refused:
        return Verdict.approve(f"{prover.current or 'script'}: {refused}; not provably read-only")
    reasons = prover.reasons or ["empty script: runs nothing"]
    return Verdict("allow", tuple(reasons), {"command": script})


class _Prover:
    def __init__(self, source: bytes, paths: Paths, path_policy: PathChecks) -> None:
        self._source = source
        self._paths = paths
        self._policy = path_policy
        self.reasons: list[str] = []
        self.current = ""

    def _text(self, node: Node) -> str:
        return self._source[node.start_byte : node.end_byte].decode("utf-8", "surrogateescape")

    # --- the text is what the tree says -------------------------------------------------------

    def cover(self, root: Node) -> None:
        """Every byte of the script is inside a token of the tree, a comment or blank."""
        position = 0
        stack = [root]
        leaves: list[Node] = []
        while stack:
            node = stack.pop()
            if node.is_missing or node.type == "ERROR":
                raise _Refused("the parse has a missing or erroneous part")
            if node.type == "comment":
                raise _Refused("a comment (where one starts is where bash and the parser differ)")
            if node.child_count == 0 or node.type in _WORDS or node.type == "comment":
                leaves.append(node)
            else:
                stack.extend(reversed(node.children))
        for leaf in leaves:
            if leaf.start_byte < position:
                raise _Refused("tokens overlap in the parse")
            if not _BLANK.fullmatch(self._source, position, leaf.start_byte):
                raise _Refused("text the parse does not account for")
            position = leaf.end_byte
        if not _BLANK.fullmatch(self._source, position, len(self._source)):
            raise _Refused("text after the parse")

    # --- structure ----------------------------------------------------------------------------

    def statement_list(self, node: Node) -> str:
        """The regenerated script of ``node``'s statements, ``; ``-separated."""
        statements: list[str] = []
        for child in node.children:
            if not child.is_named and child.type in _SEPARATORS:
                continue
            if not child.is_named:
                raise _Refused(f"`{child.type}` is outside the provable grammar")
            statements.append(self.statement(child))
        return "; ".join(statements)

    def statement(self, node: Node) -> str:
        """The statement's commands, operators and redirections in the order of the text, so bash
        groups the regenerated script as it groups the original (tree-sitter may nest them
        otherwise)."""
        kind = node.type
        if kind == "command":
            return self.command(node)
        if kind in ("list", "pipeline"):
            parts: list[str] = []
            for child in node.children:
                if child.type in ("&&", "||", "|"):
                    parts.append(child.type)
                    continue
                if not child.is_named:
                    raise _Refused(f"`{child.type}` is outside the provable grammar")
                parts.append(self.statement(child))
            return " ".join(parts)
        if kind == "redirected_statement":
            body = node.child_by_field_name("body")
            redirects: list[str] = []
            for child in node.children:
                if body is not None and child == body:
                    continue
                if child.type != "file_redirect":
                    raise _Refused(f"a {child.type.replace('_', ' ')}")
                redirects.append(self.redirect(child))
            if body is None:
                raise _Refused("a redirection without a command")
            return " ".join([self.statement(body), *redirects])
        raise _Refused(f"a {kind.replace('_', ' ')} is outside the provable grammar")

    def redirect(self, node: Node) -> str:
        """The redirection, spelled canonically; only ``/dev/null`` and ``>&1``/``>&2`` are."""
        operator, target, descriptor = "", "", ""
        for child in node.children:
            if child.type == "file_descriptor":
                descriptor = self._text(child)
                if not descriptor.isdigit():
                    raise _Refused("a redirection of an unusual descriptor")
            elif not child.is_named:
                operator += child.type
            elif target:
                raise _Refused("a redirection with more than one target")
            else:
                target = self.word(child)
        if operator in (">", ">>", "&>", "&>>", ">|") and target == "/dev/null":
            return f"{descriptor}{operator}/dev/null"
        if operator == ">&" and target in ("1", "2"):
            return f"{descriptor}{operator}{target}"
        raise _Refused(f"the redirection {operator} {target} (only /dev/null and 2>&1 are)")

    def command(self, node: Node) -> str:
        words: list[str] = []
        redirects: list[str] = []
        for child in node.children:
            kind = child.type
            if kind == "command_name":
                if child.child_count != 1:
                    raise _Refused("a command name that is not one word")
                words.append(self.word(child.children[0]))
            elif kind in _WORDS:
                words.append(self.word(child))
            elif kind == "file_redirect":
                redirects.append(self.redirect(child))
            elif kind in _EXPANDING or kind.endswith(("expansion", "substitution")):
                raise _Refused(f"{self._text(child)[:40]} expands at run time")
            else:
                raise _Refused(f"a {kind.replace('_', ' ')} is outside the provable grammar")
        if not words:
            raise _Refused("a command without a name")
        name, args = words[0], words[1:]
        self.current = " ".join([name, *args])[:80]
        if "/" in name or name in ("cd", "pushd", "popd"):
            raise _Refused(f"{name} is not on the read-only list")
        reading = read_arguments(name, args)
        if isinstance(reading, str):
            raise _Refused(reading)
        self.files(name, reading)
        if name == "git":
            workspace, local = self._paths.workspace, self._policy.local
            refusal = history_refusal(args, workspace, local=local) or work_tree_refusal(
                args, workspace, self._policy.home, local=local
            )
            if refusal is not None:
                raise _Refused(refusal)
        self.reasons.append(f"{self.current}: read-only, every file inside the workspace")
        return " ".join([*neutralised_words(words, self._paths.workspace), *redirects])

    def word(self, node: Node) -> str:
        kind = node.type
        raw = self._text(node)
        if kind not in _WORDS:
            raise _Refused(f"{raw[:40]} expands at run time")
        value = strict_literal(raw)
        tree_value = self._tree_value(node)
        if value is None:
            raise _Refused(f"{raw[:40]} expands at run time")
        if value != tree_value:
            raise _Refused(f"tree-sitter and the text disagree about {raw[:40]}")
        if "\x00" in value:
            raise _Refused("a NUL byte in a word")
        return value

    def _tree_value(self, node: Node) -> str | None:
        kind = node.type
        text = self._text(node)
        if kind in ("word", "number"):
            return re.sub(r"\\(\n|.)", lambda m: "" if m.group(1) == "\n" else m.group(1), text)
        if kind == "raw_string":
            return text[1:-1]
        if kind == "string":
            parts: list[str] = []
            for child in node.children:
                if child.type == '"':
                    continue
                if child.type != "string_content":
                    return None
                parts.append(re.sub(r"\\([\\\"$`\n])", lambda m: "" if m.group(1) == "\n"
                                    else m.group(1), self._text(child)))  # fmt: skip
            return "".join(parts)
        if kind == "concatenation":
            values = [self._tree_value(child) for child in node.children]
            return None if None in values else "".join(v for v in values if v is not None)
        return None

    # --- files --------------------------------------------------------------------------------

    def _ignored(self) -> frozenset[str]:
        """Names the workspace's top ``.gitignore`` ignores at every depth (rg reads ignore
        files only in a git repository; none on another host)."""
        workspace = self._paths.workspace
        if workspace is None or not self._paths.local:
            return frozenset()
        return names_ignored_everywhere(workspace)

    def files(self, name: str, reading: Reading) -> None:
        for path, listing in [(p, False) for p in reading.files] + [
            (p, True) for p in reading.listed
        ]:
            resolved = self._paths.resolve(path)
            if resolved is None:
                raise _Refused(f"cannot tell where {path} is")
            verdict = self._policy.check(resolved, "read")
            if verdict.decision != "allow":
                why = "; ".join(verdict.reasons) or verdict.decision
                raise _Refused(f"{name} {'lists' if listing else 'reads'} {path} ({why})")
        for path in reading.searched:
            resolved = self._paths.resolve(path)
            skipped = self._ignored() if reading.skips_ignored else None
            found = (
                self._policy.secret_in_tree(
                    resolved, skipped, reading.only_globs, follows=reading.follows_links
                )
                if resolved
                else path
            )
            if found is not None:
                raise _Refused(f"{name} searches {path}, which holds {found}")
