"""Every malformed file gets an error that names it and what is wrong — never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .support import run_tether

HEADER = {"type": "session", "version": 1, "id": "abc123", "cwd": "/tmp", "timestamp": "t"}


def session_file(folder: Path, header: dict, *entries: dict) -> Path:
    path = folder / "s.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in (header, *entries)) + "\n")
    return path


@pytest.mark.parametrize("version", ["abc", None, [1]], ids=["text", "null", "list"])
@pytest.mark.parametrize("action", ["show", "export", "resume"])
async def test_a_session_header_with_a_bad_version_is_named(
    tmp_path: Path, version: object, action: str
) -> None:
    path = session_file(tmp_path, {**HEADER, "version": version})
    command = {
        "show": ("sessions", "show", str(path)),
        "export": ("sessions", "export", str(path), "--html", str(tmp_path / "out.html")),
        "resume": ("--session", str(path), "-p", "hi", "--model", "openai/gpt-4.1"),
    }[action]

    done = await run_tether(*command, home=tmp_path / "home", cwd=tmp_path)

    assert done.code != 0
    assert "Traceback" not in done.stderr
    assert f"{path}:1: the session header's 'version' must be a positive integer" in done.stderr


async def test_a_session_from_a_newer_tether_loads_with_a_warning(tmp_path: Path) -> None:
    user = {"type": "message", "id": "e1", "parent_id": None, "timestamp": "t",
            "message": {"role": "user", "content": "hello", "timestamp": 0}}  # fmt: skip
    path = session_file(tmp_path, {**HEADER, "version": 99}, user)

    done = await run_tether("sessions", "show", str(path), home=tmp_path / "home", cwd=tmp_path)

    assert done.code == 0, done.stderr
    assert "written by a newer tether (session format 99" in done.stderr
    assert "hello" in done.stdout


async def test_a_compaction_whose_summary_is_not_text_still_exports(tmp_path: Path) -> None:
    compaction = {"type": "compaction", "id": "e1", "parent_id": None, "timestamp": "t",
                  "summary": 5, "first_kept_entry_id": None, "tokens_before": 10}  # fmt: skip
    path = session_file(tmp_path, HEADER, compaction)
    out = tmp_path / "out.html"

    done = await run_tether(
        "sessions", "export", str(path), "--html", str(out), home=tmp_path / "home", cwd=tmp_path
    )

    assert done.code == 0, done.stderr
    assert "<pre>5</pre>" in out.read_text()


async def test_an_export_to_a_path_that_cannot_be_written_is_named(tmp_path: Path) -> None:
    path = session_file(tmp_path, HEADER)
    target = "/proc/tether-cannot-write-here.html"

    done = await run_tether(
        "sessions", "export", str(path), "--html", target, home=tmp_path / "home", cwd=tmp_path
    )

    assert done.code != 0
    assert "Traceback" not in done.stderr
    assert f"cannot write {target}" in done.stderr


async def test_a_config_toml_that_is_not_utf8_is_named(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_bytes(b'model = "caf\xe9"\n')

    done = await run_tether("-p", "hi", home=home, cwd=tmp_path)

    assert done.code != 0
    assert "Traceback" not in done.stderr
    assert f"{home / 'config.toml'}: not UTF-8 text" in done.stderr


async def test_a_models_toml_nested_very_deep_is_named(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "models.toml").write_text("x = " + "[" * 5000 + "]" * 5000 + "\n")

    done = await run_tether("models", home=home, cwd=tmp_path)

    assert done.code != 0
    assert "Traceback" not in done.stderr
    assert "models.toml" in done.stderr and "nested too deeply" in done.stderr


BAD_MODELS = {
    "duplicate id": (
        '[providers.x]\napi = "openai-completions"\nbase_url = "http://127.0.0.1:9/v1"\n'
        '[[providers.x.models]]\nid = "a"\n[[providers.x.models]]\nid = "a"\n',
        'line 7: providers.x.models[1].id: "a" is already the id of models[0]',
    ),
    "id = 5": (
        '[providers.x]\napi = "openai-completions"\nbase_url = "http://127.0.0.1:9/v1"\n'
        "[[providers.x.models]]\nid = 5\n",
        "line 5: providers.x.models[0].id: expected a non-empty string, got 5",
    ),
}


@pytest.mark.parametrize("case", list(BAD_MODELS))
@pytest.mark.parametrize("command", [("models",), ("-p", "hi")], ids=["models", "print"])
async def test_a_bad_models_toml_is_one_clean_line(
    tmp_path: Path, case: str, command: tuple[str, ...]
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    text, problem = BAD_MODELS[case]
    (home / "models.toml").write_text(text)

    done = await run_tether(*command, home=home, cwd=tmp_path)

    assert done.code == 2
    assert "Traceback" not in done.stderr
    assert done.stderr.strip() == f"tether: {home / 'models.toml'}, {problem}"
