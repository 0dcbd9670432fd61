"""The one list of secret paths: what it names, what it deliberately does not, and that the
path policy, the search globs and the sandbox's masking all answer from it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tether.gate import SECRET_SEARCH_GLOBS, PathPolicy, secret_path_rule
from tether.tools.operations._sandbox_workspace import scan_workspace
from tether.tools.operations._secret_files import is_secret_file

SECRETS = [
    ".env", ".env.local", "config/.env.production", "id_rsa", "id_ed25519", "keys/id_rsa_work",
    "server.key", "key.pem", "privkey.pem", "server.pem", "cert-key.pem", "store.p12", "a.pfx",
    "release.jks", "app.keystore", "credentials", "credentials.json", "gcp/credentials.yml",
    ".credentials", ".netrc", ".pypirc", ".pgpass", ".git-credentials", ".vault-token",
    ".aws/credentials", ".aws/config", ".docker/config.json", ".kube/config", ".gnupg/pubring.kbx",
    ".ssh/some_key", "PRIVATE.KEY", ".ENV",
]  # fmt: skip
NOT_SECRETS = [
    ".env.example", ".env.sample", ".env.template", ".env.dist", "id_rsa.pub", "cert.pem",
    "server-cert.pem", "fullchain.pem", "chain.pem", "ca.pem", "ca-bundle.pem", "public.pem",
    "tls.crt", "root.cer", "credentials.py", "src/credentials.ts", ".npmrc", "config.json",
    ".ssh/known_hosts", ".ssh/config", "README.md", "environment.yml", "identity.py",
]  # fmt: skip


@pytest.mark.parametrize("path", SECRETS)
def test_secrets_are_named(path: str) -> None:
    assert secret_path_rule(path) is not None


@pytest.mark.parametrize("path", NOT_SECRETS)
def test_deliberate_non_secrets(path: str) -> None:
    assert secret_path_rule(path) is None


def test_npmrc_is_a_secret_in_the_home_only(tmp_path: Path) -> None:
    home = str(tmp_path / "home")
    assert secret_path_rule(f"{home}/.npmrc", homes=(home,)) == "credential store"
    assert secret_path_rule(f"{home}/project/.npmrc", homes=(home,)) is None


@pytest.mark.parametrize("path", SECRETS)
def test_the_path_policy_and_the_search_globs_agree(path: str, tmp_path: Path) -> None:
    policy = PathPolicy(str(tmp_path / "ws"), home=str(tmp_path / "home"))
    verdict = policy.check(str(tmp_path / "ws" / path), "read")
    assert verdict.decision == "deny" and verdict.reasons[0].startswith("secret")
    assert is_secret_file(path), f"{path} is not excluded from searches ({SECRET_SEARCH_GLOBS})"


def test_the_sandbox_masks_exactly_the_listed_secrets(tmp_path: Path) -> None:
    for path in SECRETS + NOT_SECRETS:
        target = tmp_path / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("x")
    scan = scan_workspace(str(tmp_path))
    masked = {str(Path(p).relative_to(tmp_path)) for p in scan.secrets}
    for path in NOT_SECRETS:
        assert path not in masked
    for path in SECRETS:
        assert any(path == m or path.startswith(m + "/") for m in masked), path
