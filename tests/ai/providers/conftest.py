import pytest

from tether.ai.providers import load_models_config


@pytest.fixture
def tether_home(tmp_path, monkeypatch):
    """TETHER_HOME in a fresh directory, the registry reloaded from it (no models.toml yet);
    afterwards the registry holds the built-in models only."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("TETHER_HOME", str(home))
    load_models_config()
    yield home
    load_models_config(tmp_path / "no-such-dir" / "models.toml")
