"""SKILL.md against the specification: each rule a case, lenient as the client guide says."""

from __future__ import annotations

import pytest

from tether.skills import parse_skill

from .support import write_skill


def problems(path):
    skill, found = parse_skill(str(path))
    return skill, [(d.line, d.severity, d.message) for d in found]


def test_a_valid_skill_reads_every_field_and_has_no_problem(tmp_path):
    front = (
        "name: pdf-tools\n"
        "description: Extract text from PDFs. Use when handling PDFs.\n"
        "license: Apache-2.0\n"
        "compatibility: Requires poppler-utils\n"
        'metadata:\n  author: example-org\n  version: "1.0"\n'
        "allowed-tools: Bash(pdftotext:*) Read\n"
    )
    skill, found = problems(write_skill(tmp_path, "pdf-tools", front, body="\n# PDF\n\nSteps.\n"))
    assert found == []
    assert skill is not None
    assert (skill.name, skill.license, skill.compatibility) == (
        "pdf-tools",
        "Apache-2.0",
        "Requires poppler-utils",
    )
    assert skill.metadata == {"author": "example-org", "version": "1.0"}
    assert skill.allowed_tools == ("Bash(pdftotext:*)", "Read")
    assert skill.body == "# PDF\n\nSteps."
    assert skill.directory == str(tmp_path / "pdf-tools")
    assert skill.digest.startswith("sha256:")


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("PDF-Tools", "may only hold lowercase letters a-z, digits and '-'"),
        ("pdf_tools", "may only hold lowercase letters a-z, digits and '-'"),
        ("-pdf", "must not start or end with a hyphen"),
        ("pdf-", "must not start or end with a hyphen"),
        ("pdf--tools", "must not hold consecutive hyphens"),
        ("a" * 65, "name is 65 characters; at most 64"),
    ],
)
def test_each_name_rule_warns_on_line_2_and_the_skill_still_loads(tmp_path, name, message):
    front = f"name: {name}\ndescription: A skill.\n"
    skill, found = problems(write_skill(tmp_path, name, front))
    assert skill is not None and skill.name == name
    assert [(line, severity) for line, severity, _ in found] == [(2, "warning")]
    assert message in found[0][2]


def test_a_name_that_is_not_its_directory_warns_and_loads_under_its_own_name(tmp_path):
    skill, found = problems(write_skill(tmp_path, "folder", "name: other\ndescription: A.\n"))
    assert skill is not None and skill.name == "other"
    assert found == [(2, "warning", "name 'other' is not the name of its directory 'folder'")]


def test_a_missing_name_falls_back_to_the_directory_with_a_warning(tmp_path):
    skill, found = problems(write_skill(tmp_path, "folder", "description: A.\n"))
    assert skill is not None and skill.name == "folder"
    assert found[0][1:] == ("warning", "name is missing; the directory's name 'folder' is used")


@pytest.mark.parametrize(
    "front", ["name: x\n", "name: x\ndescription: ''\n", "name: x\ndescription:\n"]
)
def test_a_missing_or_empty_description_skips_the_skill(tmp_path, front):
    skill, found = problems(write_skill(tmp_path, "x", front))
    assert skill is None
    assert [(s, m) for _, s, m in found] == [
        ("error", "description is missing or empty; the skill cannot be disclosed")
    ]


def test_a_description_that_is_not_text_skips_the_skill(tmp_path):
    skill, found = problems(write_skill(tmp_path, "x", "name: x\ndescription: [a, b]\n"))
    assert skill is None and found == [(3, "error", "description is a list, not text")]


def test_an_over_long_description_warns(tmp_path):
    skill, found = problems(write_skill(tmp_path, "x", f"name: x\ndescription: {'d' * 1025}\n"))
    assert skill is not None
    assert found == [(3, "warning", "description is 1025 characters; at most 1024")]


def test_yaml_that_does_not_parse_skips_the_skill_with_its_line(tmp_path):
    front = "name: x\ndescription: fine\nmetadata: [unclosed\n"
    skill, found = problems(write_skill(tmp_path, "x", front))
    assert skill is None
    assert len(found) == 1 and found[0][1] == "error"
    assert found[0][0] >= 4 and "not valid YAML" in found[0][2]


def test_an_unquoted_colon_in_a_value_is_read_with_a_warning(tmp_path):
    front = "name: x\ndescription: Use this skill when: the user asks about PDFs\n"
    skill, found = problems(write_skill(tmp_path, "x", front))
    assert skill is not None
    assert skill.description == "Use this skill when: the user asks about PDFs"
    assert [(s, "read with the values that contain ': ' quoted" in m) for _, s, m in found] == [
        ("warning", True)
    ]


def test_a_file_without_front_matter_is_skipped(tmp_path):
    path = tmp_path / "x" / "SKILL.md"
    path.parent.mkdir()
    path.write_text("# Just markdown\n", encoding="utf-8")
    skill, found = problems(path)
    assert skill is None
    assert found == [(1, "error", "no YAML front matter: the file must start with a '---' line")]


def test_front_matter_never_closed_is_skipped(tmp_path):
    path = tmp_path / "x" / "SKILL.md"
    path.parent.mkdir()
    path.write_text("---\nname: x\ndescription: y\n", encoding="utf-8")
    skill, found = problems(path)
    assert skill is None and "never closed" in found[0][2]


def test_front_matter_that_is_not_a_mapping_is_skipped(tmp_path):
    skill, found = problems(write_skill(tmp_path, "x", "- a\n- b\n"))
    assert skill is None and found == [(2, "error", "the front matter is not a mapping of fields")]


def test_optional_fields_of_the_wrong_shape_warn_with_their_lines(tmp_path):
    front = (
        "name: x\n"
        "description: A.\n"
        "license: 3\n"
        f"compatibility: {'c' * 501}\n"
        "metadata:\n  version: 1.0\n"
        "allowed-tools: [Read, Bash]\n"
        "color: blue\n"
    )
    skill, found = problems(write_skill(tmp_path, "x", front))
    assert skill is not None
    assert [(line, severity) for line, severity, _ in found] == [
        (n, "warning") for n in (4, 5, 6, 8, 9)
    ]
    messages = "\n".join(m for _, _, m in found)
    assert "license is a int, not text" in messages
    assert "compatibility is 501 characters; it must be 1-500" in messages
    assert "metadata 'version' has the value 1.0, not a string; read as '1.0'" in messages
    assert "allowed-tools is a list" in messages
    assert "unknown field 'color'" in messages
    assert skill.metadata == {"version": "1.0"} and skill.allowed_tools == ("Read", "Bash")


def test_metadata_that_is_not_a_mapping_is_ignored_with_a_warning(tmp_path):
    skill, found = problems(write_skill(tmp_path, "x", "name: x\ndescription: A.\nmetadata: v1\n"))
    assert skill is not None and skill.metadata == {}
    assert found == [
        (4, "warning", "metadata is a str, not a mapping of strings to strings; ignored")
    ]


def test_a_field_given_twice_warns(tmp_path):
    front = "name: x\ndescription: first\ndescription: second\n"
    skill, found = problems(write_skill(tmp_path, "x", front))
    assert skill is not None and skill.description == "second"
    assert found == [(4, "warning", "field 'description' is given twice; the last one counts")]
