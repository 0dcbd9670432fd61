"""``allow`` is a proof: only the read-only grammar is allowed, however harmless the rest looks.

Property tests build scripts from allowed pieces and put one construct outside the grammar into
them — an expansion, a glob, an assignment, control flow, a heredoc, a redirection to a file, an
unknown option — and check that none is allowed."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tether.gate import PathPolicy, ShellPolicy


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("project")
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("print(1)\n")
    (root / "README.md").write_text("hello\n")
    (root / ".env").write_text("TOKEN=1\n")
    return root


@pytest.fixture(scope="module")
def policy(workspace: Path) -> ShellPolicy:
    return ShellPolicy(PathPolicy(str(workspace)))


ALLOWED = [
    "ls", "ls -la src", "cat README.md", "cat -n src/app.py", "head -n 5 README.md",
    "tail -n +2 README.md", "wc -l README.md src/app.py", "grep -rn print src",
    "grep -e x -e y README.md", "rg -n print src", "rg --files", "find . -name '*.py' -type f",
    "find src -maxdepth 1", "sed -n 1,5p README.md", "sed -n '/x/p' README.md",
    "git status", "git log --oneline -n 5", "git diff --stat", "git show HEAD",
    "git show HEAD:README.md", "git branch -a", "git rev-parse --abbrev-ref HEAD", "pwd",
    "echo hi", "printf '%s\\n' a", "which git", "command -v git", "test -f README.md",
    "sort README.md | uniq -c | sort -rn | head", "ls src && cat README.md", "ls || true",
    "cat README.md 2>/dev/null", "ls >/dev/null 2>&1", "cat README.md; ls", "date -u",
    "jq . package.json", "python3 --version", "du -sh src", "stat -c %s README.md",
    "diff README.md src/app.py", "cut -d, -f1 README.md", "ls ~/", "cat ./README.md",
    "echo '$(rm -rf ~)'", "printf '%s\\n' '`id`'", "git log -L 1,5:README.md",
]  # fmt: skip


@pytest.mark.parametrize("command", ALLOWED)
def test_the_read_only_grammar_is_allowed(
    policy: ShellPolicy, command: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # python3 is the system's, not a shim
    verdict = policy.classify(command)
    if command == "ls ~/":
        assert verdict.decision == "approve"  # the home directory is outside the workspace
        return
    assert verdict.decision == "allow", verdict
    assert all("read-only" in reason for reason in verdict.reasons), verdict


@pytest.mark.parametrize(
    ("command", "why"),
    [
        ("cat $FILE", "expands"),
        ("echo ${HOME}", "expands"),
        ("cat `echo x`", "expands"),
        ("cat $(echo README.md)", "expands"),
        ("cat src/*.py", "expands"),
        ("cat README.m?", "expands"),
        ("cat {README,x}.md", "expands"),
        ("cat ~+/README.md", "expands"),
        ("cat a=~/x", "expands"),
        ("echo $'x'", "expands"),
        ("x=1", "assignment"),
        ("LANG=C ls", "assignment"),
        ("if true; then ls; fi", "if"),
        ("for f in a; do ls; done", "for"),
        ("while false; do ls; done", "while"),
        ("f() { ls; }", "function"),
        ("(ls)", "subshell"),
        ("{ ls; }", "compound"),
        ("! ls", "negated"),
        ("ls &", "`&`"),
        ("(( 1 ))", "compound statement"),
        ("[[ -f README.md ]]", "test command"),
        ("cat <<EOF\nx\nEOF", "heredoc"),
        ("cat <<< x", "herestring"),
        ("cat < README.md", "redirection"),
        ("ls > out.txt", "redirection"),
        ("ls 2> err.txt", "redirection"),
        ("ls >&3", "redirection"),
        ("cd src && ls", "cd is not"),
        ("./ls", "not on the read-only list"),
        ("/bin/ls", "not on the read-only list"),
        ("make", "not on the read-only list"),
        ("grep --reg x README.md", "not an option"),
        ("sort --outp=x README.md", "not an option"),
        ("ls --hyperlink=auto", "not an option"),
        ("find . -delete", "not a test"),
        ("find . -exec cat {} ;", "not a test"),
        ("sed -i 1d README.md", "not an option"),
        ("sed -n 1w.x README.md", "print commands"),
        ("git -c core.pager=x log", "global options"),
        ("git push", "not a read-only subcommand"),
        ("git branch new", "only listing"),
        ("git diff /dev/null README.md", "--no-index"),
        ("git show HEAD:.env", ".env"),
        ("cat .env", ".env"),
        ("cat ../x", "outside the workspace"),
        ("printf -v x y", "not an option"),
        ("test -v x", "evaluates a name"),
        ("jq -n env", "environment"),
        ("uniq README.md out.txt", "writes"),
        ("echo hi | sh", "not on the read-only list"),
    ],
)
def test_outside_the_grammar_is_at_best_approve(
    policy: ShellPolicy, command: str, why: str
) -> None:
    verdict = policy.classify(command)
    assert verdict.decision != "allow", verdict
    proof = [reason for reason in verdict.reasons if "not provably read-only" in reason]
    assert all(why in reason for reason in proof), verdict  # the proof says where it stopped


@pytest.mark.parametrize(
    "command",
    [
        "cat <<$'EOF'\nEOF\nls\n$'EOF'",  # bash ends the heredoc at EOF; tree-sitter does not
        "ls \\\n",  # a trailing continuation
        "ls (",  # a parse error
        "echo $(",
        "ls\x00",
        "cat 'README.md",
    ],
)
def test_parse_errors_and_disagreements_are_never_allowed(
    policy: ShellPolicy, command: str
) -> None:
    assert policy.classify(command).decision != "allow"


# --- property tests ------------------------------------------------------------------------

_PIECES = st.sampled_from([c for c in ALLOWED if c not in ("ls ~/", "python3 --version")])
_OUTSIDE = st.sampled_from([
    "$X", "${X}", "$(ls)", "`ls`", "$((1))", "<(ls)", ">(cat)", "*", "src/*", "?", "[ab]",
    "{a,b}", "{1..2}", "~+", "~-", "~root", "x=~", "$'a'", '$"a"', '"$X"', "'a'$X", "a$X",
    "!(x)", "$1", "$@", "$$",
])  # fmt: skip
_WRAPS = st.sampled_from([
    "X=1 {}", "{} &", "({})", "{{ {}; }}", "if true; then {}; fi", "for i in 1; do {}; done",
    "while true; do {}; break; done", "f() {{ {}; }}", "! {}", "{} > out.txt", "{} 2> e.txt",
    "{} < README.md", "{} <<< x", "{} <<EOF\nx\nEOF", "cd src; {}", "time {}", "exec {}",
    "{} |& cat", "case x in x) {};; esac", "[[ -n x ]] && {}", "(( 1 )) && {}", "eval {}",
    "sudo {}", "nohup {}", "timeout 1 {}", "env {}", "bash -c '{}'", "{} & wait", "coproc {}",
    "x=1; {}", "{} >> /tmp/x", "{} >&5", "declare x; {}", "trap {} EXIT",
])  # fmt: skip


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_PIECES, min_size=1, max_size=3), _OUTSIDE, st.integers(0, 2), st.booleans())
def test_an_expansion_anywhere_makes_a_script_unprovable(
    policy: ShellPolicy, pieces: list[str], outside: str, position: int, as_name: bool
) -> None:
    target = pieces[position % len(pieces)]
    words = target.split(" ")
    words = [outside, *words[1:]] if as_name else [*words, outside]
    pieces[position % len(pieces)] = " ".join(words)
    script = " && ".join(pieces)
    assert policy.classify(script).decision != "allow", script


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_PIECES, min_size=1, max_size=3), _WRAPS, st.integers(0, 2))
def test_a_construct_outside_the_grammar_makes_a_script_unprovable(
    policy: ShellPolicy, pieces: list[str], wrap: str, position: int
) -> None:
    pieces[position % len(pieces)] = wrap.format(pieces[position % len(pieces)])
    script = "; ".join(pieces)
    assert policy.classify(script).decision != "allow", script


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_PIECES, min_size=1, max_size=4), st.sampled_from([" | ", " && ", " || ", "; "]))
def test_lists_and_pipelines_of_allowed_commands_stay_allowed(
    policy: ShellPolicy, pieces: list[str], separator: str
) -> None:
    script = separator.join(pieces)
    assert policy.classify(script).decision == "allow", script


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ls -a$`'\"\\(){}[]*?~;&|<>\n=!x")), max_size=30))
def test_random_shell_text_is_allowed_only_when_every_word_is_literal(
    policy: ShellPolicy, text: str
) -> None:
    verdict = policy.classify(text)
    if verdict.decision == "allow" and text.strip():
        # a backslash that quotes one character is literal (``\\ls`` is ``ls``); one that
        # joins lines is where bash and tree-sitter part ways, and never allowed
        assert not any(c in text for c in "$`*?[{}()<>&!="), text
        assert "\\\n" not in text, text


def test_a_backslash_quoting_one_character_is_literal_one_joining_lines_is_not(
    policy: ShellPolicy,
) -> None:
    """Hypothesis once drew ``\\ls``: bash runs ``ls`` (the backslash only stops an alias), the
    proof runs ``'ls'``; a backslash-newline is where bash and tree-sitter part ways."""
    assert policy.classify("\\ls -a").decision == "allow"
    assert policy.classify("ls \\\n-a").decision != "allow"


def test_a_recursive_search_is_allowed_only_over_a_tree_without_secrets(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("vendor/\n")
    (tmp_path / "src" / "deep").mkdir(parents=True)
    (tmp_path / "src" / "deep" / "app.py").write_text("x\n")
    (tmp_path / "vendor").mkdir()
    policy = ShellPolicy(PathPolicy(str(tmp_path)))
    assert policy.classify("grep -rn x src").decision == "allow"
    assert policy.classify("rg x").decision == "allow"
    (tmp_path / "src" / "deep" / "server.key").write_text("k\n")
    assert policy.classify("grep -rn x src").decision == "approve"
    assert policy.classify("rg x src").decision == "approve"
    assert policy.classify("grep -n x src/deep/app.py").decision == "allow"
    (tmp_path / "src" / "deep" / "server.key").unlink()
    (tmp_path / ".env").write_text("TOKEN=1\n")
    (tmp_path / "vendor" / "id_rsa").write_text("k\n")
    assert policy.classify("rg x").decision == "allow"  # rg skips hidden and ignored files
    assert policy.classify("grep -r x .").decision == "approve"  # grep reads them
    (tmp_path / "src" / "link").symlink_to("/etc")
    assert policy.classify("rg x src").decision == "allow"  # rg and grep -r do not follow it
    assert policy.classify("grep -r x src").decision == "allow"
    assert policy.classify("grep -R x src").decision == "approve"
    assert policy.classify("ls -LR src").decision == "approve"
    assert policy.classify("diff -r src vendor").decision == "approve"
