"""The openai provider behind the real server reuses one connection for every request."""

from __future__ import annotations

from pytest_lsp import LanguageClient

from tests.e2e.conftest import chat
from tests.fakellm import FakeLLM

TURNS = 15


async def test_every_turn_goes_over_one_connection(
    client: LanguageClient, fakellm: FakeLLM
) -> None:
    fakellm.set_script({"replies": [f"Answer number {i}." for i in range(TURNS)]})
    session = None
    for i in range(TURNS):
        params = {} if session is None else {"sessionId": session}
        result = await chat(client, f"question {i}", **params)
        session = result["sessionId"]
        assert result["text"] == f"Answer number {i}."
    assert len(fakellm.requests) == TURNS
    assert fakellm.connections == 1
