"""Documents the parser could not decode are found in the text it left, with the reason."""

from __future__ import annotations

import pytest

from parsing import parse_reply
from parsing.malformed import malformed_documents

# (a missing comma alone is repaired now: a stray colon is not)
FOUND = [
    ('{"action": "text_response" : "text_response": "hi"}', "text_response", "Expecting ','"),
    (
        'Untagged fence:\n```\n{"action": "text_response" : "text_response": "hi"}\n```',
        "text_response",
        "line 1, column 28",
    ),
    ("<tool_call>not json</tool_call>", "tool_call", "not a JSON object"),
]
NOT_FOUND = [
    'Valid: {"action": "text_response", "text_response": "hi"}',
    '```python\nx = {"action": "tool_call" oops\n```',
    '<think>{"action": "text_response" "x"}</think> fine',
    "The action field says what to do.",
]


@pytest.mark.parametrize(("reply", "kind", "problem"), FOUND)
def test_undecodable_documents_are_found(reply: str, kind: str, problem: str) -> None:
    (found,) = malformed_documents(reply, parse_reply(reply))
    assert found.kind == kind
    assert problem in found.problem


@pytest.mark.parametrize("reply", NOT_FOUND)
def test_examples_in_code_reasoning_and_valid_documents_are_not_reported(reply: str) -> None:
    assert malformed_documents(reply, parse_reply(reply)) == []
