"""The README and docs/ point only at what a clone has: every relative link and every
backticked repository path resolves to a file or folder of the repository, every `#anchor`
names a heading of its page, and no page cites the project's private notes (`../shared/...`),
which a clone lacks."""

from __future__ import annotations

import functools
import itertools
import os
import re
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from markdown_it.token import Token

REPO = Path(__file__).resolve().parents[2]
PAGES = sorted([REPO / "README.md", *(REPO / "docs").glob("*.md")])
# What a backticked word may start with to be read as a path of this repository.
TOP_LEVEL = (
    *("actions/", "bench/", "docs/", "examples/", "nvim-client/", "parsing/"),
    *("scripts/", "server/", "tests/", "vscode-client/", ".ci/"),
)
TOP_FILES = ("README.md", "Makefile", "pyproject.toml")
# Files the build writes: named in the docs, absent from a clone until built.
BUILT = ("vscode-client/agent-ls.vsix",)
PLACEHOLDER = re.compile(r"[<>*{}|]|\.\.\.|…")


@functools.cache
def _parse(page: Path) -> list[Token]:
    return MarkdownIt("commonmark").enable("table").parse(page.read_text(encoding="utf-8"))


def _tokens(page: Path) -> list[Token]:
    """Every token of the page, inline children included."""
    found = []
    stack = list(_parse(page))
    while stack:
        token = stack.pop()
        found.append(token)
        stack.extend(token.children or [])
    return found


def _all_hrefs(page: Path) -> list[str]:
    """Where the page's links and images point."""
    hrefs = [str(t.attrGet("href")) for t in _tokens(page) if t.type == "link_open"]
    return hrefs + [str(t.attrGet("src")) for t in _tokens(page) if t.type == "image"]


def _links(page: Path) -> list[str]:
    """The relative links of a page (not `https:`, `mailto:` or `#anchor` alone)."""
    return [h for h in _all_hrefs(page) if not re.match(r"[a-z][a-z0-9+.-]*:|#", h)]


@functools.cache
def _anchors(page: Path) -> frozenset[str]:
    """GitHub's anchors of a page's headings: lower case, punctuation dropped, spaces to `-`."""
    anchors = set()
    for opening, inline in itertools.pairwise(_parse(page)):
        if opening.type == "heading_open":
            text = "".join(child.content for child in inline.children or [])
            anchors.add(re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-"))
    return frozenset(anchors)


def _backticked_paths(page: Path) -> list[str]:
    paths = []
    for token in _tokens(page):
        if token.type != "code_inline":
            continue
        for raw in token.content.split():
            word = raw.rstrip(".,:;)").lstrip("(")
            if PLACEHOLDER.search(word) or word in BUILT:
                continue
            if word.startswith(TOP_LEVEL) or word in TOP_FILES:
                paths.append(re.sub(r"(:\d+|#.*)$", "", word))
            elif word.startswith(("../", "./")):
                paths.append(os.path.relpath(page.parent / word, REPO))
    return paths


def _exists(path: str) -> bool:
    """A file or folder of the repository, or a module's attribute (`embeddings.fuse`)."""
    if path.startswith("..") or not (REPO / path).resolve().is_relative_to(REPO):
        return False
    module = re.sub(r"\.\w+$", ".py", path)
    return (REPO / path).exists() or (REPO / module).exists()


def _page_id(page: Path) -> str:
    return str(page.relative_to(REPO))


@pytest.mark.parametrize("page", PAGES, ids=_page_id)
def test_relative_links_resolve_in_the_repository(page: Path) -> None:
    missing = []
    for href in _links(page):
        target = (page.parent / href.split("#", 1)[0]).resolve()
        if not target.is_relative_to(REPO) or not target.exists():
            missing.append(href)
    assert missing == [], f"{_page_id(page)} links to what the repository lacks"


@pytest.mark.parametrize("page", PAGES, ids=_page_id)
def test_anchors_name_a_heading_of_their_page(page: Path) -> None:
    wrong = []
    for href in _all_hrefs(page):
        if re.match(r"[a-z][a-z0-9+.-]*:", href):
            continue
        target, _, anchor = href.partition("#")
        path = (page.parent / target) if target else page
        if anchor and path.suffix == ".md" and path.exists() and anchor not in _anchors(path):
            wrong.append(href)
    assert wrong == [], f"{_page_id(page)} links to headings that do not exist"


@pytest.mark.parametrize("page", PAGES, ids=_page_id)
def test_backticked_repository_paths_exist(page: Path) -> None:
    missing = [path for path in _backticked_paths(page) if not _exists(path)]
    assert missing == [], f"{_page_id(page)} names paths the repository lacks"


@pytest.mark.parametrize("page", PAGES, ids=_page_id)
def test_no_page_cites_the_private_notes(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    assert "../shared" not in text
    assert "/work/shared" not in text


def test_the_pages_are_found() -> None:
    assert REPO / "README.md" in PAGES
    assert len(PAGES) > 1
