"""The documentation site: built offline and strict, roles rendered, nothing fetched from the web.

The site is built once into a temporary directory with the real ``mkdocs build --strict`` (the
command CI runs), then its HTML is read. The Griffe extension that renders the docstrings'
Sphinx roles is also exercised directly on tether's own package.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from tests.docs.fences import fenced_blocks

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
ROLE_LEFT = re.compile(r":(?:py:)?(?:class|func|meth|data|mod|attr|exc|obj|const):(?:<code>|`)")
REFERENCE_LINK = re.compile(r'<a class="autorefs autorefs-internal"[^>]*href="[^"]*#tether\.')
EXTERNAL_RESOURCE = re.compile(
    r"<(?:link|script|img|iframe|source)\b[^>]*\b(?:href|src)=\"(?:https?:)?//", re.IGNORECASE
)
CSS_EXTERNAL = re.compile(r"(?:@import\s+(?:url\()?|url\()\s*[\"']?(?:https?:)?//", re.IGNORECASE)
CODE_WIDTH = 80
"""Characters a code block shows without scrolling: measured in headless Chromium on the built
site at 1920 px (Material's content column fits 80.7 characters of code)."""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("mkdocs", reason="the docs extra: pip install -e '.[docs]'")
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return out


def pages(site: Path) -> dict[str, str]:
    return {
        str(page.relative_to(site)): page.read_text(encoding="utf-8")
        for page in sorted(site.rglob("*.html"))
    }


def test_no_sphinx_role_is_left_in_the_built_site(site: Path):
    left = {name: ROLE_LEFT.findall(html) for name, html in pages(site).items()}
    assert {name: found for name, found in left.items() if found} == {}


def test_roles_became_links_to_the_reference(site: Path):
    agent = (site / "reference/agent/index.html").read_text(encoding="utf-8")
    # tether.agent's docstring: "the stateful :class:`Agent`"
    assert 'href="#tether.agent.Agent"><code>Agent</code></a>' in agent
    links = sum(len(REFERENCE_LINK.findall(html)) for html in pages(site).values())
    assert links >= 50


def test_the_site_loads_nothing_from_the_web(site: Path):
    for name, html in pages(site).items():
        assert "fonts.googleapis" not in html and "fonts.gstatic" not in html, name
        assert EXTERNAL_RESOURCE.findall(html) == [], name
    for stylesheet in site.rglob("*.css"):
        css = stylesheet.read_text(encoding="utf-8")
        assert CSS_EXTERNAL.findall(css) == [], stylesheet.name
        assert "fonts.googleapis" not in css, stylesheet.name


def test_no_code_line_in_the_docs_is_wider_than_a_code_block():
    wide = []
    for page in sorted(DOCS.glob("*.md")):
        for block in fenced_blocks(page.read_text(encoding="utf-8")):
            if block.info == "console":
                continue  # pasted output, wrapped by docs/stylesheets/extra.css
            for offset, line in enumerate(block.code.splitlines()):
                if len(line) > CODE_WIDTH:
                    wide.append(f"{page.name}:{block.line + offset} ({len(line)} chars)")
    assert wide == []


def test_pasted_output_wraps_instead_of_scrolling(site: Path):
    css = (site / "stylesheets/extra.css").read_text(encoding="utf-8")
    assert re.search(r"\.language-console pre > code \{[^}]*white-space: pre-wrap", css)
    walkthrough = (site / "getting-started/index.html").read_text(encoding="utf-8")
    assert 'class="language-console highlight"' in walkthrough


def load_extension() -> ModuleType:
    spec = importlib.util.spec_from_file_location("_griffe_roles", DOCS / "_griffe_roles.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def extension() -> ModuleType:
    return load_extension()


@pytest.fixture(scope="module")
def loader(extension: ModuleType) -> Any:
    """A Griffe loader that has loaded tether with the extension, as mkdocstrings does."""
    griffe = pytest.importorskip("griffe", reason="the docs extra: pip install -e '.[docs]'")
    loader = griffe.GriffeLoader(
        extensions=griffe.load_extensions(extension.SphinxRoles),
        search_paths=[str(ROOT / "src")],
        docstring_parser=griffe.Parser.sphinx,
    )
    loader.load("tether")
    return loader


@pytest.fixture(scope="module")
def tether_docs(loader: Any) -> Any:
    return loader.modules_collection["tether"]


def test_a_role_to_a_documented_object_becomes_a_cross_reference(tether_docs):
    docstring = tether_docs["agent"].docstring.value
    assert "[`Agent`][tether.agent.Agent]" in docstring
    assert ":class:" not in docstring


def test_a_tilde_shows_the_last_name_and_links_the_public_heading(tether_docs):
    # tether.agent: "ends as exactly one :class:`~tether.ai.ToolResultMessage`", a class
    # defined in a private module and documented as tether.ai.ToolResultMessage
    docstring = tether_docs["agent"].docstring.value
    assert "[`ToolResultMessage`][tether.ai.ToolResultMessage]" in docstring


def test_a_role_to_a_private_or_foreign_target_becomes_inline_code(tether_docs):
    every = []
    pending = [tether_docs]
    while pending:
        obj = pending.pop()
        if obj.docstring is not None:
            every.append(obj.docstring.value)
        pending.extend(m for m in obj.members.values() if not m.is_alias)
    text = "\n".join(every)
    assert not re.search(r":(?:class|func|meth|data|mod|attr):`", text)
    assert "`ValueError`" in text  # :class:`ValueError`, a builtin: no page of ours
    # a private module is never a link target
    assert not re.search(r"\]\[[\w.]*\._", text)


def test_the_extension_links_only_headings_the_site_has(site: Path, extension, loader):
    # what the extension takes as rendered must be what mkdocstrings renders, or a role would
    # link to a heading that is not there (strict mode fails) or miss one that is
    roots = extension.reference_roots()
    predicted = set(extension.documented_paths(loader, roots).values())
    rendered = set()
    for page in (site / "reference").rglob("*.html"):
        rendered |= set(re.findall(r'id="(tether\.[^"]*)"', page.read_text(encoding="utf-8")))
    assert predicted == rendered
