"""The lines of a streamed body as the HTTP providers read them: whatever way the bytes are
cut into chunks, the same lines come out; only LF, CRLF and CR end a line."""

from __future__ import annotations

import gzip
from collections.abc import AsyncIterator

import httpx
import pytest

from server.providers.http import body_chunks, body_lines

BODY = (
    'data: {"a": "caf\u00e9 \u2028 \u65e5\u672c"}\r\n'
    "\r\n"
    "data: two\n"
    "\n"
    "data: three\r"
    "\r"
    "last without an ending"
).encode()
LINES = [
    'data: {"a": "caf\u00e9 \u2028 \u65e5\u672c"}',
    "",
    "data: two",
    "",
    "data: three",
    "",
    "last without an ending",
]


async def chunks(data: bytes, cuts: list[int]) -> AsyncIterator[bytes]:
    start = 0
    for cut in [*cuts, len(data)]:
        yield data[start:cut]
        start = cut


async def lines_of(data: bytes, cuts: list[int]) -> list[str]:
    return [line async for line in body_lines(chunks(data, cuts))]


async def test_one_chunk() -> None:
    assert await lines_of(BODY, []) == LINES


@pytest.mark.parametrize("cut", range(1, len(BODY)))
async def test_every_cut_gives_the_same_lines(cut: int) -> None:
    """A cut inside a multi-byte character, between CR and LF, or after a lone CR."""
    assert await lines_of(BODY, [cut]) == LINES


async def test_byte_by_byte() -> None:
    assert await lines_of(BODY, list(range(1, len(BODY)))) == LINES


async def test_a_final_line_ending_adds_no_empty_line() -> None:
    assert await lines_of(b"a\nb\r\n", [2]) == ["a", "b"]
    assert await lines_of(b"a\r", []) == ["a"]
    assert await lines_of(b"", []) == []


async def test_invalid_utf8_is_replaced_not_raised() -> None:
    assert await lines_of(b"data: \xff\xfe ok\n", [7]) == ["data: \ufffd\ufffd ok"]


@pytest.mark.parametrize("encoding", [None, "identity", "gzip", " GZip "])
async def test_a_compressed_body_is_decompressed(encoding: str | None) -> None:
    compressed = encoding is not None and encoding.strip().lower() == "gzip"
    data = gzip.compress(BODY) if compressed else BODY
    headers = {"content-encoding": encoding} if encoding is not None else {}
    response = httpx.Response(200, headers=headers, stream=httpx.ByteStream(data))
    assert [line async for line in body_lines(body_chunks(response))] == LINES
