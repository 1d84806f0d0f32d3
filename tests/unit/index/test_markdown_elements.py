"""The markdown element parser and prose chunking (SPEC §10, issue 14 item 1)."""

from __future__ import annotations

import itertools
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from actions.index.markdown_elements import chunk_elements, cut_spans, parse_elements

NESTED = """\
Guide
=====

Intro paragraph.

Install
-------

```sh
# not a heading: inside a fence
pip install thing
```

### Linux

Use the package manager.

#### Debian

apt-get install thing

## Configure

| key | default |
|-----|---------|
| a   | 1       |

# Appendix

~~~
## also not a heading
~~~

Last words.
"""


def test_every_element_carries_its_heading_path() -> None:
    found = [(e.type, e.start_line, e.headings) for e in parse_elements(NESTED)]
    assert found == [
        ("heading", 1, ("Guide",)),
        ("text", 4, ("Guide",)),
        ("heading", 6, ("Guide", "Install")),
        ("code", 9, ("Guide", "Install")),
        ("heading", 14, ("Guide", "Install", "Linux")),
        ("text", 16, ("Guide", "Install", "Linux")),
        ("heading", 18, ("Guide", "Install", "Linux", "Debian")),
        ("text", 20, ("Guide", "Install", "Linux", "Debian")),
        ("heading", 22, ("Guide", "Configure")),
        ("table", 24, ("Guide", "Configure")),
        ("heading", 28, ("Appendix",)),
        ("code", 30, ("Appendix",)),
        ("text", 34, ("Appendix",)),
    ]


def test_elements_are_exact_slices_with_lines() -> None:
    lines = NESTED.splitlines()
    for element in parse_elements(NESTED):
        expected = "\n".join(lines[element.start_line - 1 : element.end_line])
        assert element.content == expected


def test_a_200_row_table_is_one_chunk_identical_to_the_file() -> None:
    rows = "".join(f"| row {i} | value {i} | {'x' * 40} |\n" for i in range(200))
    table = "| name | value | filler |\n|---|---|---|\n" + rows
    text = "# Data\n\nSome prose before.\n\n" + table + "\nAfter.\n"
    chunks = chunk_elements(parse_elements(text))
    tables = [chunk for chunk in chunks if chunk.type == "table"]
    assert len(tables) == 1
    assert tables[0].content == table.rstrip("\n")
    assert tables[0].is_atomic
    assert (tables[0].start_line, tables[0].end_line) == (5, 206)
    assert len(tables[0].content) > 10_000  # far above the prose chunk size: still one chunk


def test_crlf_content_is_kept_byte_for_byte() -> None:
    text = "# T\r\n\r\n| a | b |\r\n|---|---|\r\n| 1 | 2 |\r\n"
    (table,) = [e for e in parse_elements(text) if e.type == "table"]
    assert table.content == "| a | b |\r\n|---|---|\r\n| 1 | 2 |"


def test_long_prose_is_cut_on_sentences_with_overlap() -> None:
    sentences = [f"Sentence number {i} says something about topic {i % 7}." for i in range(120)]
    text = "# Long\n\n" + " ".join(sentences) + "\n"
    chunks = chunk_elements(parse_elements(text))
    assert len(chunks) > 3
    for chunk in chunks:
        assert len(chunk.content) <= 1500
        assert chunk.content.startswith("Sentence number")
        assert chunk.content.endswith(".")
        assert chunk.headings == ("Long",)
    for before, after in itertools.pairwise(chunks):
        shared = set(re.findall(r"number \d+", before.content)) & set(
            re.findall(r"number \d+", after.content)
        )
        words = sum(len(s.split()) for s in sentences if f"number {s.split()[2]}" in shared)
        assert 60 <= words <= 100  # about 75 words repeated


def test_paragraphs_of_one_section_merge_and_sections_do_not() -> None:
    text = "# A\n\nOne.\n\nTwo.\n\n# B\n\nThree.\n"
    chunks = chunk_elements(parse_elements(text))
    assert [(c.content, c.start_line, c.end_line, c.headings) for c in chunks] == [
        ("One.\n\nTwo.", 3, 5, ("A",)),
        ("Three.", 9, 9, ("B",)),
    ]


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet="ab .!?\n", min_size=0, max_size=4000))
def test_spans_cover_the_text_in_order(text: str) -> None:
    spans = cut_spans(text, 200, 10)
    for begin, end in spans:
        assert 0 <= begin < end <= len(text)
        assert end - begin <= 200
    for (b1, _), (b2, _) in itertools.pairwise(spans):
        assert b2 > b1  # always moving forward
    covered = "".join(text[b:e] for b, e in spans)
    assert set(text.split()) <= set(covered.split()) | {""}


@settings(max_examples=80, deadline=None)
@given(st.text(alphabet="#|-`~ ab\n=*>1.", max_size=600))
def test_any_text_parses_into_slices(text: str) -> None:
    lines = re.findall(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z", text)
    for element in parse_elements(text):
        assert 1 <= element.start_line <= element.end_line <= max(1, len(lines))
        assert element.content in text
