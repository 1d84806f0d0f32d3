"""Search/replace blocks: matching levels, ambiguity, all-or-none, nearest lines on failure."""

from __future__ import annotations

import pytest

from actions.search_replace import EditBlock, EditsFailed, apply_edits, dedupe

PY = "def a():\n    return 1\n\n\ndef b():\n    x = 2\n    return x\n"

# (case, text, [(search, replace)], expected text, match kinds)
APPLIES = [
    ("exact", PY, [("return 1", "return 10")], PY.replace("return 1", "return 10"), ["exact"]),
    (
        "two blocks out of order",
        PY,
        [("    x = 2\n", "    x = 3\n"), ("def a():\n", "def a0():\n")],
        PY.replace("x = 2", "x = 3").replace("def a()", "def a0()"),
        ["exact", "exact"],
    ),
    (
        "trailing whitespace in the file",
        "a = 1   \nb = 2\n",
        [("a = 1\nb = 2\n", "a = 1\nb = 3\n")],
        "a = 1\nb = 3\n",
        ["whitespace"],
    ),
    (
        "CRLF file, LF search: the replacement keeps CRLF",
        "one\r\ntwo\r\nthree\r\n",
        [("two\nthree\n", "2\n3\n")],
        "one\r\n2\r\n3\r\n",
        ["whitespace"],
    ),
    (
        "CRLF file, exact single-line search with an LF replacement",
        "one\r\ntwo\r\n",
        [("one", "uno\ndos")],
        "uno\r\ndos\r\ntwo\r\n",
        ["exact"],
    ),
    (
        "blank lines around the search",
        PY,
        [("\n    x = 2\n    return x\n\n", "    return 2\n")],
        PY.replace("    x = 2\n    return x\n", "    return 2\n"),
        ["whitespace"],
    ),
    (
        "search indented less than the file: replacement re-indented",
        "class C:\n    def f(self):\n        return 1\n",
        [("def f(self):\n    return 1\n", "def f(self):\n    y = 1\n    return y\n")],
        "class C:\n    def f(self):\n        y = 1\n        return y\n",
        ["indentation"],
    ),
    (
        "search indented more than the file",
        "if x:\n    go()\n",
        [("        if x:\n            go()\n", "        if x:\n            stop()\n")],
        "if x:\n    stop()\n",
        ["indentation"],
    ),
    (
        "delete lines with an empty replace",
        "a\nb\nc\n",
        [("b\n", "")],
        "a\nc\n",
        ["exact"],
    ),
    ("empty file, empty search", "", [("", "new\n")], "new\n", ["exact"]),
    (
        "form feed is not a line break",
        "a\x0cb\nc\n",
        [("a\x0cb \nc\n", "z\n")],
        "z\n",
        ["whitespace"],
    ),
    (
        "no final newline in the file",
        "x = 1\ny = 2",
        [("y = 2\n", "y = 3\n")],
        "x = 1\ny = 3",
        ["whitespace"],
    ),
]


@pytest.mark.parametrize(
    ("text", "pairs", "expected", "kinds"),
    [case[1:] for case in APPLIES],
    ids=[case[0] for case in APPLIES],
)
def test_blocks_apply(text: str, pairs: list[tuple[str, str]], expected: str, kinds: list[str]):
    result = apply_edits(text, [EditBlock(s, r) for s, r in pairs])
    assert result.text == expected
    assert [m.kind for m in result.matched] == kinds


# (case, text, [(search, replace)], failing block numbers, reason, words in the message)
FAILS = [
    ("ambiguous", PY, [("return", "yield")], [1], "ambiguous", ["2 places", "lines 2, 7"]),
    ("not found", PY, [("return 99", "x")], [1], "not_found", ["not found"]),
    ("empty search", PY, [("", "x")], [1], "empty", ["search is empty"]),
    (
        "overlapping blocks",
        PY,
        [("def a():\n    return 1\n", "A"), ("    return 1\n\n", "B")],
        [1, 2],
        "overlap",
        ["overlapping"],
    ),
    (
        "ambiguous after whitespace tolerance",
        "x = 1 \nx = 1\n",
        [("x = 1  \n", "y\n")],
        [1],
        "ambiguous",
        ["lines 1, 2"],
    ),
    (
        "mixed indentation is not a uniform shift",
        "if a:\n    b()\n    c()\n",
        [("if a:\n  b()\n    c()\n", "z")],
        [1],
        "not_found",
        [],
    ),
]


@pytest.mark.parametrize(
    ("text", "pairs", "failing", "reason", "words"),
    [case[1:] for case in FAILS],
    ids=[case[0] for case in FAILS],
)
def test_blocks_fail_and_nothing_applies(
    text: str, pairs: list[tuple[str, str]], failing: list[int], reason: str, words: list[str]
):
    with pytest.raises(EditsFailed) as caught:
        apply_edits(text, [EditBlock(s, r) for s, r in pairs])
    assert [f.index + 1 for f in caught.value.failed] == failing
    assert {f.reason for f in caught.value.failed} == {reason}
    for word in words:
        assert word in caught.value.message


def test_a_failed_block_reports_the_matching_ones_and_the_nearest_numbered_lines() -> None:
    text = "".join(f"line {n}\n" for n in range(1, 301))
    text = text.replace("line 150\n", "def compute_total(items):\n")
    blocks = [
        EditBlock("line 10\n", "LINE 10\n"),
        EditBlock("line 149\ndef compute_totl(items):\nline 151\n", "x\n"),
    ]
    with pytest.raises(EditsFailed) as caught:
        apply_edits(text, blocks)
    (failed,) = caught.value.failed
    assert failed.index == 1
    numbers = [n for n, _ in failed.nearest]
    assert 149 in numbers
    assert 150 in numbers
    assert dict(failed.nearest)[150] == "def compute_total(items):"
    assert [m.index for m in caught.value.matched] == [0]


def test_nearest_lines_found_by_similarity_when_no_line_is_equal() -> None:
    text = "".join(f"value_{n} = compute({n})\n" for n in range(1000))
    with pytest.raises(EditsFailed) as caught:
        apply_edits(text, [EditBlock("valeu_500 = compte(500)\n", "x\n")])
    assert 501 in [n for n, _ in caught.value.failed[0].nearest]


def test_dedupe_drops_repeated_blocks_only() -> None:
    a, b = EditBlock("x", "y"), EditBlock("x", "z")
    assert dedupe([a, b, a]) == [a, b]
