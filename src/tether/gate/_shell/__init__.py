"""The shell policy behind :class:`ShellPolicy`: ``allow``, ``approve`` or ``deny`` for a script.

A private package; the gate and its users import only :class:`ShellPolicy` (``tether.gate``).
Its rooms, from the whole script down to one word:

- :mod:`._policy` — :class:`ShellPolicy`: the work budget, the deny scan past it, the proof;
  :mod:`._walk` — the walk over every command the script would run, pipelines, files, secrets;
- :mod:`._parse` (tree-sitter-bash into commands and words), :mod:`._lex` (bash's own reading of
  the text), :mod:`._expand` (what bash expands), :mod:`._heredoc`, :mod:`._indirect`,
  :mod:`._code` and :mod:`._sed` (code in other languages), :mod:`._wrappers` (what runs other
  programs);
- :mod:`._rules` — what one command means (the deny and approve rules);
- :mod:`._allow` — the read-only proof, with :mod:`._options` and :mod:`._git_options` (the
  option grammars), :mod:`._git_neutral` (git with the model-writable state off) and
  :mod:`._git_secrets` (secrets a repository has ever tracked);
- :mod:`._budget` — the work budget; :mod:`._key` — the session-memory key.
"""

from ._policy import ShellPolicy

__all__ = ["ShellPolicy"]
