"""File writes whose code content has unescaped quotes (issue 10 item 2).

Code inside a string has closers and colons of its own (``x["k"] = 1``, ``{"c": None}``): a
quote followed by them ends the string only where the rest of the document can follow it. In
a fence or a tool-call tag the document's extent is known, so one whose lines of code hold
``"key":`` pairs is read in full; bare in prose it is never guessed at.
"""

from __future__ import annotations

import json

import pytest

from parsing import ActionBlock, ToolCallBlock, parse_reply

CODE = [
    "def load(path: str) -> dict:",
    '    with open(path, "r", encoding="utf-8") as fh:',
    '    print(f"loaded {len(cfg)} keys\\n")',
    "if (a && b) { x[\"k\"] = '}'; }",
    '    x = {\'a\': [1, 2, 3], "b": {"c": None}}',
    "// TODO: C:\\temp ```not a fence``` </tool_call>",
]


def file_write(content: str) -> str:
    """A start_multi_file document whose content's quotes the model forgot to escape."""
    doc = {
        "action": "start_multi_file",
        "plan": {"description": "big", "files_to_modify": ["/big.py"]},
        "first_file": {"action": "create_file", "file": {"path": "/big.py", "content": "@"}},
    }
    escaped = json.dumps(content)[1:-1].replace('\\"', '"')
    return json.dumps(doc, indent=2).replace('"@"', '"' + escaped + '"')


def content_of(size: int) -> str:
    lines, total, k = [], 0, 0
    while total < size:
        lines.append(CODE[k % len(CODE)])
        total += len(lines[-1]) + 1
        k += 1
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("size", [300, 68_000])
@pytest.mark.parametrize(
    "wrap",
    ["```json\n{}\n```", "Here it is: ```json\n{}\n```\nDone.", "<tool_call>\n{}\n</tool_call>"],
)
def test_a_fenced_or_tagged_file_write_is_read_in_full(size: int, wrap: str) -> None:
    content = content_of(size)
    reply = wrap.replace("{}", file_write(content))
    [action] = [b for b in parse_reply(reply) if isinstance(b, ActionBlock)]
    assert isinstance(action, ActionBlock)
    assert action.document["first_file"]["file"]["content"] == content
    assert action.repaired
    assert not action.truncated
    assert not action.suspect


def test_a_closer_inside_code_does_not_end_the_string() -> None:
    doc = '{"action": "text_response", "text_response": "use x["k"] = 1; then {y}"}'
    [action] = [b for b in parse_reply(doc) if isinstance(b, ActionBlock)]
    assert action.document["text_response"] == 'use x["k"] = 1; then {y}'
    assert not action.truncated


def test_a_bare_document_with_code_pairs_is_not_guessed_at() -> None:
    reply = "Writing it now:\n" + file_write(content_of(2000)) + "\nThat is all."
    blocks = parse_reply(reply)
    assert not [b for b in blocks if isinstance(b, ActionBlock | ToolCallBlock)]
    assert "".join(b.text for b in blocks) == reply
