"""The one list of secrets by path: what no tool may read, wherever the question is asked.

:func:`secret_path_rule` is the path policy's test (``read``, ``write``, the shell policy's
files), the sandbox's and the read-only jail's masking of the workspace, and the test of the
paths a git repository has ever tracked (:mod:`._shell._git_secrets`).
:data:`SECRET_SEARCH_GLOBS` is the same list as globs, for searches that exclude by glob
(ripgrep, the in-memory grep).

Deliberate choices:

- ``*.pem`` is a private key unless its name says certificate (``cert.pem``, ``server-cert.pem``,
  ``fullchain.pem``, ``ca.pem``, ``ca-bundle.pem``, ``public.pem``) and not key (``key.pem``,
  ``cert-key.pem`` stay secret); ``*.crt``/``*.cer`` are certificates, never secrets. ``*.key``,
  ``*.p12``, ``*.pfx``, ``*.jks``, ``*.keystore`` always hold keys.
- a bare ``id_*`` (no dot: ``id_rsa``, ``id_ed25519``, ``id_rsa_work``) is an ssh private key;
  ``id_rsa.pub`` is not.
- ``.env`` and ``.env.*`` but not the templates ``.env.example``/``.sample``/``.template``/
  ``.dist``.
- ``credentials`` with no extension or a data one (``credentials.json``, ``.yml``, ``.ini``, ...)
  anywhere; ``credentials.py`` is code. ``.netrc``, ``.pypirc``, ``.pgpass``, ``.git-credentials``,
  ``.vault-token`` anywhere; ``.npmrc`` only in the home directory (projects commit one for its
  settings — one that holds a token is a secret by its content: :func:`holds_credentials`).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from pathlib import PurePosixPath

__all__ = [
    "CONDITIONAL_SECRET_NAMES",
    "SECRET_SEARCH_GLOBS",
    "holds_credentials",
    "secret_path_rule",
]

_PRIVATE_KEY_SUFFIXES = (".key", ".p12", ".pfx", ".jks", ".keystore")
_PEM = ".pem"
_CERTIFICATE_STEM = re.compile(
    r"(?:^|[._-])(?:cert|certs|certificate|crt|chain|fullchain|ca|cacert|ca-bundle|bundle|"
    r"pub|public|trust|truststore)(?:[._-]|$)"
)
_KEY_STEM = re.compile(r"key|priv|secret")
_SSH_NON_SECRETS = frozenset(
    {"config", "known_hosts", "known_hosts.old", "authorized_keys", "authorized_keys2"}
)
_ENV_TEMPLATE_SUFFIXES = frozenset({"example", "sample", "template", "dist"})
_CREDENTIAL_EXTENSIONS = ("json", "yml", "yaml", "toml", "ini", "xml", "txt", "csv", "conf",
                          "cfg", "env", "properties")  # fmt: skip
_CREDENTIALS_NAME = re.compile(r"\.?credentials(?:\.(?:" + "|".join(_CREDENTIAL_EXTENSIONS) + "))?")
_CREDENTIAL_FILES: tuple[tuple[str, ...], ...] = (
    (".aws", "config"),
    (".netrc",),
    (".pgpass",),
    (".git-credentials",),
    (".vault-token",),
    (".docker", "config.json"),
    (".kube", "config"),
    (".config", "gh", "hosts.yml"),
    (".pypirc",),
)
_HOME_CREDENTIAL_FILES = (".npmrc",)
_CREDENTIAL_DIRS = frozenset({".gnupg", ".password-store"})
_SSH_DIR = ".ssh"
_SYSTEM_SECRETS = frozenset(
    {"/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/sudoers"}
)
_SYSTEM_SECRET_DIRS = ("/etc/sudoers.d",)
_PROC_SECRETS = frozenset({"environ", "mem"})


def secret_path_rule(path: str, *, homes: Sequence[str] = ()) -> str | None:
    """What kind of secret ``path`` is (``"private key"``, ``"environment file"``, ...), or
    ``None``. ``path`` is POSIX, absolute or relative (then only the rules by name apply); it is
    judged as spelled — resolving symlinks is the caller's part. ``homes``: the home directory
    (as given and resolved), where an ``.npmrc`` is a secret too. Case-insensitive."""
    parts = tuple(part.casefold() for part in PurePosixPath(path).parts)
    if not parts:
        return None
    name = parts[-1]
    parent = parts[-2] if len(parts) > 1 else ""
    if _is_private_key(name):
        return "private key"
    if parent == _SSH_DIR and not name.endswith(".pub") and name not in _SSH_NON_SECRETS:
        return "ssh key material"
    if name == ".env" or (
        name.startswith(".env.") and name.rsplit(".", 1)[1] not in _ENV_TEMPLATE_SUFFIXES
    ):
        return "environment file"
    if _CREDENTIALS_NAME.fullmatch(name) or any(
        parts[-len(suffix) :] == suffix for suffix in _CREDENTIAL_FILES
    ):
        return "credential store"
    if _CREDENTIAL_DIRS.intersection(parts):
        return "credential store"
    if name in _HOME_CREDENTIAL_FILES and posixpath.dirname(path) in homes:
        return "credential store"
    folded = path.casefold()
    if folded in _SYSTEM_SECRETS or any(
        folded == d or folded.startswith(d + "/") for d in _SYSTEM_SECRET_DIRS
    ):
        return "system credential file"
    if len(parts) > 2 and parts[0] == "/" and parts[1] == "proc" and name in _PROC_SECRETS:
        return "process memory or environment"
    return None


CONDITIONAL_SECRET_NAMES = frozenset({".npmrc"})
"""Files that are a secret by what they hold (:func:`holds_credentials`), not by their name:
the sandbox masks such a file in the workspace, and the history check reads its committed
versions."""
_REGISTRY_CREDENTIAL = re.compile(r"(?m)^\s*[^#;\s]*(?:_authToken|_auth|_password)\s*=")


def holds_credentials(text: str) -> bool:
    """Whether the text of a :data:`CONDITIONAL_SECRET_NAMES` file (an ``.npmrc``) holds a
    registry token or password."""
    return _REGISTRY_CREDENTIAL.search(text) is not None


def _is_private_key(name: str) -> bool:
    if name.endswith(_PRIVATE_KEY_SUFFIXES):
        return True
    if name.startswith("id_") and "." not in name and len(name) > 3:
        return True
    if not name.endswith(_PEM):
        return False
    stem = name[: -len(_PEM)]
    return _KEY_STEM.search(stem) is not None or _CERTIFICATE_STEM.search(stem) is None


def _secret_search_globs() -> tuple[str, ...]:
    names = ["id_*", "*.pem", *(f"*{suffix}" for suffix in _PRIVATE_KEY_SUFFIXES)]
    names += [".env", ".env.*", "credentials", ".credentials", _SSH_DIR]
    names += [f"{dot}credentials.{ext}" for dot in ("", ".") for ext in _CREDENTIAL_EXTENSIONS]
    names += sorted(_CREDENTIAL_DIRS)
    for parts in _CREDENTIAL_FILES:
        names.append(parts[0] if len(parts) == 1 else "**/" + "/".join(parts))
    return tuple(names)


SECRET_SEARCH_GLOBS: tuple[str, ...] = _secret_search_globs()
"""What a search of a directory (grep) must never read, from :func:`secret_path_rule`'s lists:
globs in ripgrep's syntax, to be matched case-insensitively, where one without a slash names a
file or a directory at any depth. Wider than the rule where a glob cannot be as precise
(``.env.*`` takes ``.env.example`` along, ``*.pem`` ``cert.pem``, ``.ssh`` its ``known_hosts``);
a search of one file named explicitly is the rule's call."""
