"""Where skills are found, which wins a name, and the untrusted-project rule."""

from __future__ import annotations

import json
import os
import stat

import pytest

from tether.skills import TrustStore, discover_skills, skill_roots

from .support import write_skill


@pytest.fixture
def place(tmp_path, monkeypatch):
    """A project, a home and a TETHER_HOME, with the trust file in the scratch directory."""
    project, home, tether_home = tmp_path / "project", tmp_path / "home", tmp_path / "th"
    for directory in (project, home, tether_home):
        directory.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("TETHER_HOME", str(tether_home))
    return project, home, tether_home


def test_the_roots_are_project_then_user_in_order(place):
    project, home, tether_home = place
    roots = [(r.path, r.scope) for r in skill_roots(str(project))]
    assert roots == [
        (str(project / ".tether/skills"), "project"),
        (str(project / ".agents/skills"), "project"),
        (str(project / ".claude/skills"), "project"),
        (str(tether_home / "skills"), "user"),
        (str(home / ".agents/skills"), "user"),
    ]


def test_without_tether_home_the_own_user_directory_is_home_dot_tether(place, monkeypatch):
    project, home, _ = place
    monkeypatch.delenv("TETHER_HOME")
    assert skill_roots(str(project))[3].path == str(home / ".tether/skills")


def test_user_skills_load_and_project_skills_wait_for_trust(place):
    project, _home, tether_home = place
    write_skill(tether_home / "skills", "mine")
    write_skill(project / ".agents/skills", "theirs")
    found = discover_skills(str(project))
    assert not found.trusted
    assert list(found.skills) == ["mine"]
    assert [s.name for s in found.untrusted] == ["theirs"]
    assert found.get("theirs") is None and found.get("nothing") is None
    assert found.directories() == [str(tether_home / "skills/mine")]


def test_a_trusted_project_overrides_a_user_skill_of_the_same_name(place):
    project, home, _tether_home = place
    write_skill(home / ".agents/skills", "review", "name: review\ndescription: user one\n")
    write_skill(project / ".claude/skills", "review", "name: review\ndescription: project one\n")
    TrustStore().trust(str(project))
    found = discover_skills(str(project))
    assert found.get("review").description == "project one"
    shadowed = [d for d in found.diagnostics if "shadowed" in d.message]
    assert [(d.path, d.severity) for d in shadowed] == [
        (str(home / ".agents/skills/review/SKILL.md"), "warning")
    ]


def test_an_untrusted_project_skill_shadows_no_user_skill(place):
    project, home, _tether_home = place
    write_skill(home / ".agents/skills", "review", "name: review\ndescription: user one\n")
    write_skill(project / ".agents/skills", "review", "name: review\ndescription: run anything\n")
    found = discover_skills(str(project))
    assert found.get("review").description == "user one"
    assert [s.description for s in found.untrusted] == ["run anything"]


def test_within_a_scope_the_first_directory_wins_with_a_warning(place):
    project, _, tether_home = place
    write_skill(project / ".tether/skills", "fmt", "name: fmt\ndescription: tether dir\n")
    write_skill(project / ".agents/skills", "fmt", "name: fmt\ndescription: agents dir\n")
    write_skill(tether_home / "skills", "a", "name: dup\ndescription: first\n")
    write_skill(tether_home / "skills", "b", "name: dup\ndescription: second\n")
    TrustStore().trust(str(project))
    found = discover_skills(str(project))
    assert found.get("fmt").description == "tether dir"
    assert found.get("dup").description == "first"
    shadowed = sorted(d.path for d in found.diagnostics if "shadowed" in d.message)
    assert shadowed == [
        str(project / ".agents/skills/fmt/SKILL.md"),
        str(tether_home / "skills/b/SKILL.md"),
    ]


def test_a_skipped_skill_is_only_a_diagnostic(place):
    _, _, tether_home = place
    write_skill(tether_home / "skills", "broken", "name: broken\n")
    (tether_home / "skills/notes.md").write_text("not a skill", encoding="utf-8")
    (tether_home / "skills/empty").mkdir()
    found = discover_skills(str(place[0]))
    assert found.skills == {}
    assert [d.severity for d in found.diagnostics] == ["error"]


def test_trust_is_kept_privately_by_real_path_and_can_be_revoked(place, tmp_path):
    project, _, tether_home = place
    link = tmp_path / "link"
    link.symlink_to(project)
    store = TrustStore()
    assert store.trust(str(link)) is True
    assert store.trust(str(project)) is False
    trust_file = tether_home / "trusted-workspaces.json"
    assert json.loads(trust_file.read_text())["workspaces"] == [os.path.realpath(project)]
    assert stat.S_IMODE(trust_file.stat().st_mode) == 0o600
    assert TrustStore().is_trusted(str(project))
    assert store.revoke(str(project)) is True and not store.is_trusted(str(link))


def test_a_damaged_trust_file_trusts_nothing(place):
    project, _, tether_home = place
    (tether_home / "trusted-workspaces.json").write_text("{not json", encoding="utf-8")
    write_skill(project / ".agents/skills", "theirs")
    assert discover_skills(str(project)).skills == {}
