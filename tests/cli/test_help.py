"""``tether --help`` names the paths, the environment and examples, and points at the reference."""

from __future__ import annotations

from pathlib import Path

from .support import run_tether

DOCS = Path(__file__).resolve().parents[2] / "docs"


async def test_help_names_the_environment_the_files_and_examples(tmp_path: Path) -> None:
    done = await run_tether("--help", home=tmp_path, cwd=tmp_path)

    assert done.code == 0
    for needed in ("TETHER_HOME", "ANTHROPIC_API_KEY", "OPENAI_API_KEY", "models.toml",
                   "config.toml", "sessions/", "examples:", "git diff | tether -p",
                   "docs/configuration.md"):  # fmt: skip
        assert needed in done.stdout, needed


def test_the_configuration_reference_covers_every_key_the_readers_accept() -> None:
    from tether.ai.providers import _config as models_config
    from tether.mcp import _config as mcp_config

    text = (DOCS / "configuration.md").read_text()
    keys = {
        *models_config._PROVIDER_KEYS,
        *models_config._MODEL_KEYS,
        *models_config._COST_KEYS,
        *mcp_config._KEYS,
    }
    missing = sorted(key for key in keys if f"`{key}`" not in text and f"{key} =" not in text)
    assert missing == []
