"""server/wire/framing.py on byte streams, without a server around it.

Tables of well- and ill-framed streams, each read whole, split in two at every position and
byte by byte: what comes out never depends on how the bytes arrived. Every framing error is a
`BadFrame` naming the problem, with the JSON value it could still recover, and the frame after
it is read as usual (the reader never goes deaf). Properties: any sequence of valid frames,
chunked anyhow, reads back as the same messages; valid frames after any of the table's bad
ones are all read, whatever the chunking.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.wire.framing import (
    MAX_CONTENT_LENGTH,
    MAX_HEADER_BYTES,
    BadFrame,
    Frame,
    FrameReader,
    parse_length,
)

Read = list[Frame | BadFrame]


async def read_all(chunks: list[bytes]) -> Read:
    """Every frame of a stream that arrives in `chunks`, then ends."""
    source = iter(chunks)

    async def read_chunk() -> bytes:
        return next(source, b"")

    reader = FrameReader(read_chunk)
    frames: Read = []
    while (frame := await reader.next()) is not None:
        frames.append(frame)
    return frames


def chunkings(stream: bytes) -> Iterator[list[bytes]]:
    """The stream whole, split in two at every position (in a long stream: near its ends and
    every 61st byte between), and byte by byte."""
    yield [stream]
    for cut in range(1, len(stream)):
        if len(stream) < 256 or min(cut, len(stream) - cut) < 128 or cut % 61 == 0:
            yield [stream[:cut], stream[cut:]]
    yield [stream[i : i + 1] for i in range(len(stream))]


def framed(body: bytes, head: str = "Content-Length: {n}\r\n\r\n") -> bytes:
    return head.format(n=len(body)).encode() + body


A = b'{"a":1}'  # 7 bytes
NEXT = framed(b'{"id": 2}')  # a well-framed message after the case
OK_A, OK_NEXT = Frame(A), Frame(b'{"id": 2}')
UNICODE = '{"text": "é😀 \\u2028"}'.encode()

WELL_FRAMED = [
    pytest.param(framed(A) + NEXT, [OK_A, OK_NEXT], id="two frames"),
    pytest.param(framed(A, "Content-Length: {n}\n\n") + NEXT, [OK_A, OK_NEXT], id="LF only"),
    pytest.param(framed(A, "Content-Length: {n}\r\n\n") + NEXT, [OK_A, OK_NEXT], id="CRLF then LF"),
    pytest.param(framed(A, "content-LENGTH:\t {n} \r\n\r\n"), [OK_A], id="case and blanks"),
    pytest.param(
        framed(
            A,
            "Content-Length: {n}\r\nContent-Type: application/vscode-jsonrpc; "
            "charset=utf-8\r\n\r\n",
        )
        + NEXT,
        [OK_A, OK_NEXT],
        id="Content-Type after",
    ),
    pytest.param(
        framed(A, "Content-Type: application/json\r\nContent-Length: {n}\r\n\r\n"),
        [OK_A],
        id="Content-Type before",
    ),
    pytest.param(
        framed(A, "Content-Length: 3\r\nContent-Length: {n}\r\n\r\n"), [OK_A], id="last length"
    ),
    pytest.param(b"\r\n\r\n \n" + NEXT + b"\r\n" + NEXT, [OK_NEXT, OK_NEXT], id="blank lines"),
    pytest.param(framed(UNICODE), [Frame(UNICODE)], id="multi-byte UTF-8 body"),
    pytest.param(framed(b"[1, 2]") + NEXT, [Frame(b"[1, 2]"), OK_NEXT], id="a batch array"),
    pytest.param(b"", [], id="nothing"),
]

NOT_A_NUMBER = "Content-Length {!r} is not a non-negative integer"
ILL_FRAMED = [
    pytest.param(
        b"Content-Type: application/json\r\n\r\n" + A + NEXT,
        [BadFrame("the frame has no Content-Length header", A), OK_NEXT],
        id="no length",
    ),
    pytest.param(
        A + NEXT, [BadFrame("the message has no Content-Length header", A), OK_NEXT], id="no header"
    ),
    pytest.param(
        b"Content-Length: abc\r\n\r\n" + A + NEXT,
        [BadFrame(NOT_A_NUMBER.format("abc"), A), OK_NEXT],
        id="not a number",
    ),
    pytest.param(
        b"Content-Length: -7\r\n\r\n" + A + NEXT,
        [BadFrame(NOT_A_NUMBER.format("-7"), A), OK_NEXT],
        id="negative",
    ),
    pytest.param(
        b"Content-Length: +7\r\n\r\n" + A + NEXT,
        [BadFrame(NOT_A_NUMBER.format("+7"), A), OK_NEXT],
        id="plus sign",
    ),
    pytest.param(
        b"Content-Length: 7.0\r\n\r\n" + A + NEXT,
        [BadFrame(NOT_A_NUMBER.format("7.0"), A), OK_NEXT],
        id="not an integer",
    ),
    pytest.param(
        b"Content-Length: \r\n\r\n" + A + NEXT,
        [BadFrame(NOT_A_NUMBER.format(""), A), OK_NEXT],
        id="empty value",
    ),
    pytest.param(
        b"Content-Length: 0\r\n\r\n" + A + NEXT,
        [BadFrame("Content-Length 0: the frame has no body", A), OK_NEXT],
        id="zero",
    ),
    pytest.param(
        b"Content-Length: 3\r\n\r\n" + A + NEXT,
        [BadFrame("", b'{"a'), OK_NEXT],  # the body's parser names the problem
        id="too small",
    ),
    pytest.param(
        b"Content-Length: 100\r\n\r\n" + A + NEXT,
        [BadFrame("Content-Length 100 is longer than the message (7 bytes)", A), OK_NEXT],
        id="too large, a frame follows",
    ),
    pytest.param(
        b"Content-Length: 100\r\n\r\n" + A,
        [BadFrame("Content-Length 100 is longer than the message (7 bytes)", A)],
        id="too large, then the end",
    ),
    pytest.param(
        f"Content-Length: {MAX_CONTENT_LENGTH + 1}\r\n\r\n".encode() + A + NEXT,
        [
            BadFrame(
                f"Content-Length {MAX_CONTENT_LENGTH + 1} is over the limit ({MAX_CONTENT_LENGTH})",
                A,
            ),
            OK_NEXT,
        ],
        id="over the limit",
    ),
    pytest.param(
        b"Content-Length: " + b"9" * 40 + b"\r\n\r\n" + A + NEXT,
        [
            BadFrame(f"Content-Length {'9' * 40} is over the limit ({MAX_CONTENT_LENGTH})", A),
            OK_NEXT,
        ],
        id="forty digits",
    ),
    pytest.param(
        framed(b'{"a":1]') + NEXT, [BadFrame("", b'{"a":1]'), OK_NEXT], id="body not JSON"
    ),
]

# Bytes that make no frame: skipped (a warning in the log), and the next frame is read.
MALFORMED = b"Content-Type: x\r\nnot a header line\r\n\r\n{}"
OVERLONG = b"Content-Length: 5\r\nX-Pad: " + b"a" * MAX_HEADER_BYTES + b"\r\n"  # no blank line
SKIPPED = [
    pytest.param(
        b"garbage\r\n" + NEXT, [OK_NEXT], "skipped 9 bytes outside any frame", id="junk line"
    ),
    pytest.param(
        b"garbage" + NEXT, [OK_NEXT], "skipped 7 bytes of a malformed header block", id="glued"
    ),
    pytest.param(
        NEXT + b"Content-Length: 10\r\n\r\n" + b'{"a"',
        [OK_NEXT],
        "connection closed inside a frame (4 bytes dropped)",
        id="end inside a body",
    ),
    pytest.param(
        NEXT + b"Content-Length: 10\r\n",
        [OK_NEXT],
        "connection closed inside a frame (20 bytes dropped)",
        id="end inside a header",
    ),
    # A header block the reader refuses with no Content-Length after it in the buffer yet:
    # reading goes on (it used to judge the same bytes forever without reading again).
    pytest.param(
        MALFORMED + NEXT,
        [OK_NEXT],
        f"skipped {len(MALFORMED)} bytes of a malformed header block",
        id="malformed block",
    ),
    pytest.param(
        MALFORMED,
        [],
        f"connection closed inside a frame ({len(MALFORMED)} bytes dropped)",
        id="malformed block, then the end",
    ),
    pytest.param(OVERLONG + NEXT, [OK_NEXT], None, id="header block over the limit"),
    pytest.param(
        OVERLONG + b"Content-Le",
        [],
        "bytes of a header block without its blank line (no Content-Length header follows)",
        id="header block over the limit, a header cut, then the end",
    ),
]


@pytest.mark.parametrize(("stream", "expected"), WELL_FRAMED + ILL_FRAMED)
async def test_a_stream_reads_the_same_however_it_is_chunked(stream: bytes, expected: Read) -> None:
    for chunks in chunkings(stream):
        assert await read_all(chunks) == expected, [len(c) for c in chunks]


def read_all_returning(chunks: list[bytes]) -> Read:
    """`read_all` in a thread: a reader looping without reading again (it never awaits, so
    no asyncio timeout can stop it) fails the test instead of hanging it."""
    result: list[Read] = []
    thread = threading.Thread(target=lambda: result.append(asyncio.run(read_all(chunks))))
    thread.daemon = True
    thread.start()
    thread.join(timeout=60)
    assert not thread.is_alive(), f"the reader loops forever on chunks {[len(c) for c in chunks]}"
    return result[0]


@pytest.mark.parametrize(("stream", "expected", "warning"), SKIPPED)
def test_bytes_outside_any_frame_are_skipped_with_a_warning(
    stream: bytes, expected: Read, warning: str | None, caplog: pytest.LogCaptureFixture
) -> None:
    for chunks in chunkings(stream):
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="server.wire.framing"):
            assert read_all_returning(chunks) == expected, [len(c) for c in chunks]
        assert warning is None or warning in caplog.text, [len(c) for c in chunks]


async def test_a_length_too_large_is_judged_when_the_sender_goes_quiet() -> None:
    """The client sent its whole message with a length too large and waits for the answer:
    the stream stays open, yet the message is reported (after a short stall)."""
    sent = [b"Content-Length: 100\r\n\r\n" + A]
    never = asyncio.Event()

    async def read_chunk() -> bytes:
        if sent:
            return sent.pop()
        await never.wait()
        return b""

    reader = FrameReader(read_chunk)
    frame = await asyncio.wait_for(reader.next(), timeout=30)
    assert frame == BadFrame("Content-Length 100 is longer than the message (7 bytes)", A)
    assert not reader.eof


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (b"Content-Length: 12", (12, None)),
        (b"Content-Type: x\r\ncontent-length:12 ", (12, None)),
        (b"Content-Type: x", (0, "the frame has no Content-Length header")),
        (b"Content-Length: 1e3", (0, NOT_A_NUMBER.format("1e3"))),
        (b"Content-Length: 0x10", (0, NOT_A_NUMBER.format("0x10"))),
        (b"Content-Length: 1 2", (0, NOT_A_NUMBER.format("1 2"))),
        (b"Content-Length: \xff", (0, NOT_A_NUMBER.format("\ufffd"))),
        (b"Content-Length: 00", (0, "Content-Length 0: the frame has no body")),
    ],
)
def test_parse_length(header: bytes, expected: tuple[int, str | None]) -> None:
    assert parse_length(header) == expected


# Properties ------------------------------------------------------------------------------

JSON: st.SearchStrategy[Any] = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)
MESSAGE = st.dictionaries(st.text(max_size=8), JSON, max_size=4) | st.lists(JSON, max_size=3)
HEADS = st.sampled_from(
    [
        "Content-Length: {n}\r\n\r\n",
        "Content-Length: {n}\n\n",
        "content-length:{n}\r\n\r\n",
        "Content-Length: {n}\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n",
        "Content-Type: application/vscode-jsonrpc\r\nContent-Length: {n}\r\n\r\n",
        "\r\nContent-Length: {n}\r\n\r\n",
    ]
)


def encode(value: Any, indent: int | None) -> bytes:
    return json.dumps(value, ensure_ascii=False, indent=indent).encode()


@st.composite
def chunked(draw: st.DrawFn, stream: bytes) -> list[bytes]:
    cuts = sorted(draw(st.sets(st.integers(1, max(1, len(stream) - 1)), max_size=12)))
    bounds = [0, *(c for c in cuts if c < len(stream)), len(stream)]
    return [stream[a:b] for a, b in itertools.pairwise(bounds) if b > a]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    sent=st.lists(st.tuples(MESSAGE, HEADS, st.sampled_from([None, 2])), max_size=6), data=st.data()
)
def test_valid_frames_chunked_anyhow_read_back_as_the_same_messages(
    sent: list[tuple[Any, str, int | None]], data: st.DataObject
) -> None:
    """Any messages (pretty-printed or not), each with any of the usual header forms."""
    stream = b"".join(framed(encode(message, indent), head) for message, head, indent in sent)
    frames = asyncio.run(read_all(data.draw(chunked(stream))))
    assert all(isinstance(f, Frame) for f in frames)
    assert [json.loads(f.body) for f in frames] == [message for message, _, _ in sent]


BAD_PIECES = [p.values[0].removesuffix(NEXT) for p in ILL_FRAMED if p.values[0].endswith(NEXT)]


@settings(max_examples=200, deadline=None)
@given(
    pieces=st.lists(
        st.tuples(st.sampled_from(BAD_PIECES), st.integers(0, 10**6)), min_size=1, max_size=5
    ),
    data=st.data(),
)
def test_every_valid_frame_after_bad_ones_is_read(
    pieces: list[tuple[bytes, int]], data: st.DataObject
) -> None:
    stream = b"".join(bad + framed(f'{{"id": {n}}}'.encode()) for bad, n in pieces)
    whole = asyncio.run(read_all([stream]))
    assert [json.loads(f.body) for f in whole if isinstance(f, Frame)] == [
        {"id": n} for _, n in pieces
    ]
    assert asyncio.run(read_all(data.draw(chunked(stream)))) == whole
