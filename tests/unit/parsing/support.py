"""Shared test helpers: corpus location, block normalisation, the naive reference loop, and
hypothesis strategies that generate replies."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from parsing import Block, TextBlock
from parsing.fences import match_fence_at, match_reasoning_at
from parsing.json.snippets import match_bare_at
from parsing.regions import Found, NoMatch, Opaque
from parsing.snippets import _CANDIDATE, Item, TextSpan
from parsing.xml_snippets import match_tool_tag_at

REPO = Path(__file__).resolve().parents[3]
CORPUS = REPO / "tests" / "fixtures" / "corpus"
"""Byte-identical copy of the shared corpus (replies, json-repair regressions), in the repo so
that a plain clone runs every corpus test (.gitattributes keeps git from touching the bytes)."""


def corpus_dir(name: str) -> Path:
    """A corpus folder (a missing one is a broken checkout: fail, never skip)."""
    path = CORPUS / name
    assert path.is_dir(), f"corpus folder missing: {path}"
    return path


def corpus_files(name: str, pattern: str = "*.txt") -> list[Path]:
    """The corpus files of a folder, sorted (fails when the folder is missing)."""
    return sorted(corpus_dir(name).glob(pattern))


def read_reply(path: Path) -> str:
    """The file's exact text (no newline translation)."""
    return path.read_bytes().decode("utf-8")


def canon(value: Any) -> str:
    """A canonical JSON form: compares True and 1 as different, key order ignored."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def normalise(blocks: list[Block]) -> list[Any]:
    """Blocks with runs of text collapsed: non-text blocks and the text between them."""
    out: list[Any] = []
    text: list[str] = []
    for block in blocks:
        if isinstance(block, TextBlock):
            text.append(block.text)
            continue
        out.append("".join(text))
        text = []
        out.append(block)
    out.append("".join(text))
    return out


def assert_tiles(blocks: list[Block], text: str) -> None:
    """Spans are contiguous from 0 to len(text) and each block's text is its slice."""
    pos = 0
    for block in blocks:
        assert block.start == pos
        assert block.text == text[block.start : block.end]
        pos = block.end
    assert pos == len(text)


# -- the seed's greedy sequential loop, kept as an oracle ------------------------------------
def _opaque_end(text: str, res: Opaque) -> int:
    if res.close is None:
        return len(text)
    if res.line is not None:  # a code fence: up to its closing fence line
        m = res.line.search(text, res.search_from)
        return len(text) if m is None else m.end()
    at = text.find(res.close, res.search_from)
    if at < 0:
        return len(text)
    end = at + len(res.close)
    while res.fence and end < len(text) and text[end] == res.close[0]:
        end += 1
    return end


def _naive_find(text: str, lo: int, hi: int, kind: str) -> Found | None:
    """First match of one parser in ``text[lo:hi]``, trying every position in turn."""
    i = lo
    while i < hi:
        m = _CANDIDATE.match(text, i)
        if m is None:
            i += 1
            continue
        token = m.group()
        res: Any
        if token.startswith("<") and not token.startswith(("<tool_call", "<tool_use")):
            res = match_reasoning_at(text, i)
        elif token[0] in "`~":
            res = match_fence_at(text, i, token, True)
        elif token[0] == "<":
            res = match_tool_tag_at(text, i, True)
        else:
            res = match_bare_at(text, i, True) if kind == "bare" else None
        if isinstance(res, Opaque):
            i = _opaque_end(text, res)
            continue
        if isinstance(res, NoMatch) and res.resume > i:
            i = res.resume
            continue
        if isinstance(res, Found) and res.end <= hi:
            if (token[0] == "<" and kind == "xml") or (token[0] in "`~" and kind == "fence"):
                return res
            if kind == "bare" and token[0] in "{[":
                return res
        i += 1
    return None


def naive_items(text: str) -> list[Item]:
    """Start with one text block; repeatedly split the first text block in which some parser
    (priority: XML, fence, bare) finds a match; stop when a full pass splits nothing."""
    items: list[Item] = [TextSpan(0, len(text))] if text else []
    changed = True
    while changed:
        changed = False
        for idx, item in enumerate(items):
            if not isinstance(item, TextSpan):
                continue
            for kind in ("xml", "fence", "bare"):
                found = _naive_find(text, item.start, item.end, kind)
                if found is None:
                    continue
                first = found.snippets[0].start
                parts: list[Item] = [TextSpan(item.start, first), *found.snippets]
                parts.append(TextSpan(found.end, item.end))
                items[idx : idx + 1] = [
                    p for p in parts if not isinstance(p, TextSpan) or p.end > p.start
                ]
                changed = True
                break
            if changed:
                break
    return items


# -- generated replies ------------------------------------------------------------------------
_PROSE = st.text(
    alphabet=st.characters(blacklist_characters="{}[]<>`~\\", blacklist_categories=("Cs", "Cc")),
    max_size=40,
)
_SAFE_STR = st.text(
    alphabet=st.characters(blacklist_characters="<>`~", blacklist_categories=("Cs",)),
    max_size=30,
)
_CODE = st.sampled_from(
    ['def f(x):\n    return {"a": [1, 2]}\n', 'if (a) { b["k"] = "v"; }', "x = '}' + \"]\"\n", ""]
)


@st.composite
def action_docs(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(["text_response", "tool_call", "start_multi_file"]))
    if kind == "text_response":
        return {"action": kind, "text_response": draw(_SAFE_STR)}
    if kind == "tool_call":
        return {
            "action": kind,
            "tool_call": {"function_name": "read_file", "args": {"path": draw(_SAFE_STR)}},
        }
    content = draw(_CODE) + draw(_SAFE_STR)
    return {
        "action": kind,
        "plan": {"description": draw(_SAFE_STR), "files_to_modify": ["/a.py"]},
        "first_file": {"action": "create_file", "file": {"path": "/a.py", "content": content}},
    }


def _malform(text: str, how: str) -> str:
    if how == "trailing_comma" and text.endswith("}"):
        return text[:-1] + ",}"
    if how == "python" and text.endswith("}"):
        return text[:-1] + ', "flag": True}'
    return text


@st.composite
def pieces(draw: st.DrawFn) -> str:
    """One piece of a reply: prose, a document in some wrapping, reasoning, foreign code."""
    shape = draw(
        st.sampled_from(["prose", "bare", "fenced", "tilde", "xml", "call", "think", "python"])
    )
    if shape == "prose":
        return draw(_PROSE)
    doc = json.dumps(draw(action_docs()), indent=draw(st.sampled_from([None, 2])))
    doc = _malform(doc, draw(st.sampled_from(["none", "trailing_comma", "python"])))
    if shape == "bare":
        return doc
    if shape == "fenced":
        return f"```{draw(st.sampled_from(['json', 'JSON', '']))}\n{doc}\n```"
    if shape == "tilde":
        return f"~~~json\n{doc}\n~~~"
    if shape in ("xml", "call"):
        args = json.dumps({"name": "read_file", "arguments": {"path": draw(_SAFE_STR)}})
        return f"<tool_call>\n{args}\n</tool_call>" if shape == "xml" else args
    if shape == "think":
        return f"<think>{draw(_PROSE)} {doc}</think>"
    return f"```python\nx = {doc}\n```"


replies = st.lists(pieces(), max_size=6).map("\n\n".join)
