"""Fence references: {"fence": N} bodies resolved byte-exact, precise errors otherwise."""

from __future__ import annotations

from typing import Any

import pytest

from actions.errors import InvalidAction
from actions.fence_refs import TruncatedBody, has_references, resolve_references
from parsing import parse_reply
from parsing.code_fences import code_fences

BODY = 'x = "}"\nprint(`quoted`)\n'


def reply_with(document: str, *fences: str, cut: bool = False) -> str:
    parts = ["Plan:", "```json", document, "```"]
    for body in fences:
        parts += ["````python" if "```" in body else "```python", body.rstrip("\n")]
        parts.append("````" if "```" in body else "```")
    text = "\n".join(parts) + "\n"
    return text[: text.rfind("`" * 3)] if cut else text


def resolved(reply: str) -> dict[str, Any]:
    blocks = parse_reply(reply)
    document = next(b for b in blocks if b.kind == "action")
    fences = code_fences(reply, [(document.start, document.end)])
    return resolve_references(document.document, fences)  # type: ignore[union-attr]


CREATE = (
    '{"action": "start_multi_file", "plan": {"description": "d", "files_to_modify": ["/a.py"]},'
    ' "first_file": {"action": "create_file", "file": {"path": "/a.py", "content": %s}}}'
)
EDIT = (
    '{"action": "continue_multi_file", "next_file": {"action": "update_file", "file": '
    '{"path": "/a.py", "edits": [{"search": %s, "replace": %s}]}}}'
)


def test_content_and_edit_bodies_resolve_byte_exact() -> None:
    assert (
        resolved(reply_with(CREATE % '{"fence": 1}', BODY))["first_file"]["file"]["content"] == BODY
    )
    inner = "s = '''\n```js\nx\n```\n'''\n"
    edit = resolved(reply_with(EDIT % ('{"fence": 2}', '{"fence": 1}'), BODY, inner))
    assert edit["next_file"]["file"]["edits"][0] == {"search": inner, "replace": BODY}


def test_crlf_bodies_keep_their_line_endings() -> None:
    reply = reply_with(CREATE % '{"fence": 1}', "a\nb\n").replace("a\nb\n", "a\r\nb\r\n")
    assert resolved(reply)["first_file"]["file"]["content"] == "a\r\nb\r\n"


def test_plain_strings_stay_and_need_no_fences() -> None:
    document = resolved(reply_with(CREATE % '"plain\\n"'))
    assert document["first_file"]["file"]["content"] == "plain\n"
    assert not has_references(document)


@pytest.mark.parametrize(
    ("content", "fences", "problem"),
    [
        ('{"fence": 2}', [BODY], "refers to fence 2, but this reply has 1 fenced code block(s)"),
        ('{"fence": 1}', [], "this reply has no fenced code block besides the action document"),
        ('{"fence": 0}', [BODY], "refers to fence 0"),
        ('{"fence": "one"}', [BODY], 'expected a string or a fence reference like {"fence": 1}'),
        ('{"fence": 1, "text": "x"}', [BODY], 'only the key "fence"'),
    ],
)
def test_bad_references_name_the_field(content: str, fences: list[str], problem: str) -> None:
    with pytest.raises(InvalidAction) as caught:
        resolved(reply_with(CREATE % content, *fences))
    assert caught.value.errors[0].startswith("first_file.file.content: ")
    assert problem in caught.value.errors[0]


def test_a_fence_cut_off_is_never_used() -> None:
    with pytest.raises(TruncatedBody) as caught:
        resolved(reply_with(CREATE % '{"fence": 1}', BODY, cut=True))
    assert caught.value.field == "first_file.file.content"


def test_fences_in_reasoning_and_documents_do_not_count() -> None:
    reply = "<think>\n```python\nno\n```\n</think>\n" + reply_with(CREATE % '{"fence": 1}', BODY)
    assert resolved(reply)["first_file"]["file"]["content"] == BODY
