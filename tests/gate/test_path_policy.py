from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tether.gate._path_policy import PathPolicy


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path.resolve() / "home"
    (home / ".ssh").mkdir(parents=True)
    return home


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    workspace = tmp_path.resolve() / "project"
    (workspace / "src").mkdir(parents=True)
    (workspace / "src" / "app.py").write_text("print('hi')\n")
    return workspace


@pytest.fixture
def policy(workspace: Path, home: Path) -> PathPolicy:
    return PathPolicy(str(workspace), home=str(home))


def decision(policy: PathPolicy, path: str | Path, access: str) -> str:
    return policy.check(str(path), access).decision  # type: ignore[arg-type]


# --- reads and writes by location -------------------------------------------------------------


def test_read_inside_workspace_is_allowed_and_names_the_relative_path(policy: PathPolicy) -> None:
    verdict = policy.check("src/app.py", "read")
    assert verdict.decision == "allow"
    assert verdict.reasons == ("read inside the workspace — src/app.py",)


def test_absolute_path_inside_workspace_counts_as_inside(policy, workspace) -> None:
    assert decision(policy, workspace / "src" / "app.py", "read") == "allow"
    assert decision(policy, workspace / "src" / "new.py", "write") == "allow"


def test_read_outside_workspace_needs_approval(policy: PathPolicy) -> None:
    verdict = policy.check("/usr/share/doc/readme", "read")
    assert verdict.decision == "approve"
    assert "outside the workspace" in verdict.reasons[0]
    assert "/usr/share/doc/readme" in verdict.reasons[0]


def test_write_outside_workspace_is_denied(policy: PathPolicy) -> None:
    verdict = policy.check("/tmp/elsewhere.txt", "write")
    assert verdict.decision == "deny"
    assert verdict.reasons == ("write outside the workspace — /tmp/elsewhere.txt",)


def test_sibling_with_common_prefix_is_not_inside(policy, workspace) -> None:
    evil = workspace.parent / (workspace.name + "_evil")
    evil.mkdir()
    assert decision(policy, evil / "x.txt", "read") == "approve"
    assert decision(policy, evil / "x.txt", "write") == "deny"
    assert decision(policy, "../project_evil/x.txt", "write") == "deny"


@pytest.mark.parametrize("path", ["../outside.txt", "src/../../outside.txt", "src/../.."])
def test_dotdot_escapes_are_resolved_before_deciding(policy: PathPolicy, path: str) -> None:
    assert decision(policy, path, "read") == "approve"
    assert decision(policy, path, "write") == "deny"


def test_dotdot_that_stays_inside_is_inside(policy: PathPolicy) -> None:
    assert decision(policy, "src/../src/./app.py", "write") == "allow"


def test_missing_nested_path_inside_can_be_written(policy: PathPolicy) -> None:
    assert decision(policy, "new/dir/file.txt", "write") == "allow"


def test_tilde_expands_to_home(policy: PathPolicy, home: Path) -> None:
    verdict = policy.check("~/notes.txt", "read")
    assert verdict.decision == "approve"
    assert verdict.reasons == ("read outside the workspace — ~/notes.txt",)
    assert decision(policy, "~", "write") == "deny"


def test_nul_byte_is_denied_for_any_access(policy: PathPolicy) -> None:
    for access in ("read", "write"):
        verdict = policy.check("src/app.py\x00.txt", access)  # type: ignore[arg-type]
        assert verdict.decision == "deny"
        assert "NUL" in verdict.reasons[0]


def test_unknown_access_kind_is_denied(policy: PathPolicy) -> None:
    assert decision(policy, "src/app.py", "execute") == "deny"


@pytest.mark.parametrize("path", ["@/etc/shadow", "  /etc/shadow", "@~/.ssh/id_rsa", " .env "])
def test_the_file_tools_reading_of_a_path_is_judged_too(policy: PathPolicy, path: str) -> None:
    # The tools strip whitespace and a leading "@"; the policy must see the same file.
    assert decision(policy, path, "read") == "deny"


def test_other_users_home_is_expanded(policy: PathPolicy) -> None:
    if os.path.expanduser("~root") == "~root":
        pytest.skip("no root user entry")
    assert decision(policy, "~root/notes.txt", "write") == "deny"


# --- symlinks ---------------------------------------------------------------------------------


def test_symlink_pointing_outside_is_judged_by_its_target(policy, workspace, tmp_path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("x")
    (workspace / "link.txt").symlink_to(outside)
    read = policy.check("link.txt", "read")
    assert read.decision == "approve"
    assert read.reasons == (f"read outside the workspace — link.txt → {outside.resolve()}",)
    assert decision(policy, "link.txt", "write") == "deny"


def test_symlinked_directory_escape_is_denied_for_new_files(policy, workspace, tmp_path) -> None:
    (tmp_path / "elsewhere").mkdir()
    (workspace / "out").symlink_to(tmp_path / "elsewhere")
    assert decision(policy, "out/new.txt", "write") == "deny"


def test_dangling_symlink_to_outside_is_denied_for_writes(policy, workspace) -> None:
    (workspace / "trap").symlink_to("/etc/cron.d/not-there-yet")
    assert decision(policy, "trap", "write") == "deny"


def test_symlink_to_secret_is_denied(policy, workspace, home) -> None:
    key = home / ".ssh" / "id_ed25519"
    key.write_text("secret")
    (workspace / "notes.txt").symlink_to(key)
    verdict = policy.check("notes.txt", "read")
    assert verdict.decision == "deny"
    assert verdict.reasons == ("secret: private key — notes.txt → ~/.ssh/id_ed25519",)


def test_symlink_inside_to_inside_is_allowed(policy, workspace) -> None:
    (workspace / "alias.py").symlink_to(workspace / "src" / "app.py")
    assert decision(policy, "alias.py", "write") == "allow"


def test_workspace_reached_through_a_symlink_is_still_the_workspace(workspace, home, tmp_path):
    alias = tmp_path / "alias"
    alias.symlink_to(workspace)
    policy = PathPolicy(str(alias), home=str(home))
    assert policy.workspace == str(workspace)
    assert decision(policy, "src/app.py", "write") == "allow"
    assert decision(policy, workspace / "src" / "app.py", "write") == "allow"
    assert decision(policy, alias / "src" / "app.py", "write") == "allow"


# --- secrets ----------------------------------------------------------------------------------

SECRETS = [
    ("~/.ssh/id_rsa", "private key"),
    ("~/.ssh/id_ed25519", "private key"),
    ("~/.ssh/deploy_key", "ssh key material"),
    ("backup/id_ecdsa", "private key"),
    ("certs/server.pem", "private key"),
    ("certs/tls.KEY", "private key"),
    ("store.p12", "private key"),
    ("store.pfx", "private key"),
    (".env", "environment file"),
    (".ENV", "environment file"),
    ("config/.env.production", "environment file"),
    (".env.local", "environment file"),
    ("~/.aws/credentials", "credential store"),
    ("~/.aws/config", "credential store"),
    ("~/.netrc", "credential store"),
    ("~/.pgpass", "credential store"),
    ("~/.git-credentials", "credential store"),
    ("~/.docker/config.json", "credential store"),
    ("~/.kube/config", "credential store"),
    ("~/.config/gh/hosts.yml", "credential store"),
    ("~/.npmrc", "credential store"),
    ("~/.pypirc", "credential store"),
    ("~/.gnupg/private-keys-v1.d/abc.key", "private key"),
    ("~/.gnupg/pubring.kbx", "credential store"),
    ("~/.password-store/bank.gpg", "credential store"),
    ("/etc/shadow", "system credential file"),
    ("/etc/gshadow", "system credential file"),
    ("/etc/sudoers", "system credential file"),
    ("/proc/1/environ", "process memory or environment"),
    ("/proc/self/mem", "process memory or environment"),
]


@pytest.mark.parametrize(("path", "rule"), SECRETS)
@pytest.mark.parametrize("access", ["read", "write"])
def test_secrets_are_denied_with_the_rule_named(policy, path: str, rule: str, access) -> None:
    verdict = policy.check(path, access)
    assert verdict.decision == "deny"
    assert verdict.reasons[0].startswith(f"secret: {rule} — ")


def test_secret_reason_shows_home_as_tilde(policy: PathPolicy) -> None:
    assert policy.check("~/.aws/credentials", "read").reasons == (
        "secret: credential store — ~/.aws/credentials",
    )


@pytest.mark.parametrize(
    "path",
    [".env.example", ".env.sample", ".env.template", ".env.dist", "config/.env.local.example"],
)
def test_env_templates_are_not_secrets(policy: PathPolicy, path: str) -> None:
    assert decision(policy, path, "read") == "allow"
    assert decision(policy, path, "write") == "allow"


@pytest.mark.parametrize(
    "path", ["src/environment.py", "src/keys.py", "docs/id_rsa.md", ".npmrc", "env/.gitkeep"]
)
def test_ordinary_files_with_secret_looking_names_are_allowed(policy, path: str) -> None:
    assert decision(policy, path, "read") == "allow"


@pytest.mark.parametrize("path", ["~/.ssh/id_rsa.pub", "~/.ssh/known_hosts", "~/.ssh/config"])
def test_public_ssh_files_are_only_outside_reads(policy: PathPolicy, path: str) -> None:
    assert decision(policy, path, "read") == "approve"


# --- protected writes inside the workspace ----------------------------------------------------


@pytest.mark.parametrize(
    ("path", "rule"),
    [
        (".bashrc", "shell start-up file"),
        ("sub/.zshrc", "shell start-up file"),
        (".profile", "shell start-up file"),
        (".bash_profile", "shell start-up file"),
        (".zprofile", "shell start-up file"),
        (".bash_login", "shell start-up file"),
        (".config/fish/config.fish", "shell start-up file"),
        (".git/hooks/pre-commit", "git hooks"),
        (".git/hooks", "git hooks"),
        ("vendor/lib/.git/hooks/post-checkout", "git hooks"),
        (".git/config", "git config"),
        (".git", "git directory link"),
        (".tether/settings.json", "agent configuration"),
        (".tether", "agent configuration"),
    ],
)
def test_protected_files_inside_workspace_cannot_be_written(policy, path: str, rule) -> None:
    verdict = policy.check(path, "write")
    assert verdict.decision == "deny"
    assert verdict.reasons == (f"protected: {rule} — {path}",)
    assert decision(policy, path, "read") == "allow"


def test_lookalikes_of_protected_files_are_writable(policy: PathPolicy) -> None:
    for path in ("src/bashrc.py", "hooks/pre-commit", ".github/ci.yml", "src/HEAD", "gitx/a"):
        assert decision(policy, path, "write") == "allow", path


@pytest.mark.parametrize(
    ("path", "rule"),
    [
        (".git/COMMIT_EDITMSG", ".git/ is the git repository"),
        (".git/commondir", ".git/ is the git repository"),
        ("sub/.git/x/config", "sub/.git/ is the git repository"),
        (".envrc", ".envrc is a direnv file"),
        (".vscode/tasks.json", ".vscode/ is editor settings"),
        (".idea/workspace.xml", ".idea/ is IDE settings"),
        ("rust-toolchain.toml", "rust-toolchain.toml is a rust toolchain file"),
        (".pre-commit-config.yaml", ".pre-commit-config.yaml is pre-commit hooks"),
        ("src/.rgignore", "src/.rgignore is an ignore file"),
        ("HEAD", "HEAD is a HEAD at the workspace root"),
    ],
)
def test_what_the_sandbox_keeps_read_only_is_written_only_when_asked(
    policy: PathPolicy, path: str, rule: str
) -> None:
    verdict = policy.check(path, "write")
    assert verdict.decision == "approve"
    assert verdict.reasons[0].startswith(f"protected: {rule}")
    assert decision(policy, path, "read") == "allow"


def test_home_agent_config_is_protected_even_when_the_home_is_the_workspace(home: Path) -> None:
    policy = PathPolicy(str(home), home=str(home))
    assert policy.check("~/.tether/config.toml", "write").reasons == (
        "protected: agent configuration — .tether/config.toml",
    )
    assert decision(policy, "~/.bashrc", "write") == "deny"
    assert decision(policy, "~/notes.txt", "write") == "allow"


def test_symlink_into_agent_config_is_judged_by_target(policy, workspace) -> None:
    (workspace / ".tether").mkdir()
    (workspace / "innocent").symlink_to(workspace / ".tether")
    verdict = policy.check("innocent/settings.json", "write")
    assert verdict.decision == "deny"
    assert "agent configuration" in verdict.reasons[0]


def test_custom_agent_config_dirs_and_extra_protected(workspace: Path, home: Path) -> None:
    policy = PathPolicy(
        str(workspace),
        home=str(home),
        agent_config_dirs=[".agent"],
        extra_protected=["deploy", str(workspace / "Makefile")],
    )
    assert decision(policy, ".agent/rules.md", "write") == "deny"
    assert decision(policy, ".tether/settings.json", "write") == "allow"
    assert policy.check("deploy/prod.yml", "write").reasons == (
        "protected: protected path — deploy/prod.yml",
    )
    assert decision(policy, "Makefile", "write") == "deny"
    assert decision(policy, "deployment.md", "write") == "allow"


def test_readable_directories_are_read_like_the_workspace(workspace: Path, home: Path) -> None:
    skill = home / ".tether" / "skills" / "deploy"
    (skill / "references").mkdir(parents=True)
    (skill / "references" / "steps.md").write_text("1. tag\n")
    (skill / "id_rsa").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\n")
    (skill / "escape").symlink_to(home / "notes.txt")
    policy = PathPolicy(str(workspace), home=str(home), readable=[str(skill)])
    assert policy.check(str(skill / "references" / "steps.md"), "read").reasons == (
        "read inside a skill's directory — ~/.tether/skills/deploy/references/steps.md",
    )
    assert decision(policy, "~/.tether/skills/deploy/references/steps.md", "read") == "allow"
    assert decision(policy, skill / "id_rsa", "read") == "deny"  # a secret stays a secret
    assert decision(policy, skill / "escape", "read") == "approve"  # judged by its target
    assert decision(policy, skill.parent / "other" / "SKILL.md", "read") == "approve"
    assert decision(policy, skill / "references" / "steps.md", "write") == "deny"
    without = PathPolicy(str(workspace), home=str(home))
    assert decision(without, skill / "references" / "steps.md", "read") == "approve"


# --- display ----------------------------------------------------------------------------------


def test_display_path(policy: PathPolicy, workspace: Path, home: Path) -> None:
    assert policy.display_path(str(workspace / "src" / "app.py")) == "src/app.py"
    assert policy.display_path(str(workspace)) == "."
    assert policy.display_path("src/../README.md") == "README.md"
    assert policy.display_path(str(home / ".ssh" / "id_rsa")) == "~/.ssh/id_rsa"
    assert policy.display_path(str(home)) == "~"
    assert policy.display_path("~/x") == "~/x"
    assert policy.display_path("/srv/data/x.txt") == "/srv/data/x.txt"
    assert policy.display_path(str(workspace) + "_evil/x") == str(workspace) + "_evil/x"


def test_control_characters_in_paths_are_quoted_in_reasons(policy: PathPolicy) -> None:
    reason = policy.check("src/a\nALLOWED", "read").reasons[0]
    assert "\n" not in reason
    assert "'src/a\\nALLOWED'" in reason


# --- property ---------------------------------------------------------------------------------

_SEGMENTS = st.sampled_from(["..", ".", "src", "out", "x", "", "~", ".git", "hooks"])


@settings(max_examples=200, deadline=None)
@given(st.lists(_SEGMENTS, max_size=6), st.booleans())
def test_allowed_writes_always_land_inside_the_workspace(segments, absolute) -> None:
    root = os.path.realpath(os.path.dirname(__file__))
    policy = PathPolicy(root, home="/nonexistent-home")
    path = ("/" if absolute else "") + "/".join(segments)
    if policy.check(path, "write").decision == "allow":
        target = os.path.realpath(os.path.join(root, path))
        assert os.path.commonpath([target, root]) == root
