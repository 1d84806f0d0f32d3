"""Bad input on the LSP wire, as raw bytes to a real server: every request is answered with
a JSON-RPC error naming the problem, and the server keeps answering afterwards."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.rawclient import RawClient, frame

PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS = -32700, -32600, -32602
CANARY = ("agent/status", {"check": False})


@pytest.fixture
async def raw(tmp_path: Path) -> AsyncIterator[RawClient]:
    client = await RawClient.start(cwd=tmp_path)
    await client.initialize(tmp_path, {"provider": "openai", "baseUrl": "http://127.0.0.1:9/v1"})
    yield client
    await client.close()


async def assert_alive(client: RawClient) -> None:
    answer = await client.request(*CANARY)
    assert answer["result"]["provider"] == "openai", answer


def body(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode()


def req(msg_id: Any, method: str, params: Any = None, **extra: Any) -> dict[str, Any]:
    message = {"jsonrpc": "2.0", "id": msg_id, "method": method, **extra}
    if params is not None:
        message["params"] = params
    return message


RANGE = {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}}

# (name, bytes to send, id the answer must carry, error code, words the message must hold)
BAD_REQUESTS = [
    (
        "executeCommand without command",
        frame(req(1, "workspace/executeCommand", {"arguments": []})),
        1,
        INVALID_PARAMS,
        ["workspace/executeCommand", "command"],
    ),
    (
        "executeCommand of an unknown command",
        frame(req(2, "workspace/executeCommand", {"command": "nope"})),
        2,
        INVALID_PARAMS,
        ["nope"],
    ),
    (
        "codeAction with a number for uri",
        frame(
            req(
                3,
                "textDocument/codeAction",
                {"textDocument": {"uri": 5}, "range": RANGE, "context": {"diagnostics": []}},
            )
        ),
        3,
        INVALID_PARAMS,
        ["textDocument/codeAction", "uri"],
    ),
    (
        "codeAction without params",
        frame(req(4, "textDocument/codeAction")),
        4,
        INVALID_PARAMS,
        ["textDocument/codeAction", "params"],
    ),
    (
        "no jsonrpc member",
        frame({"id": 5, "method": "agent/status", "params": {"check": False}}),
        5,
        INVALID_REQUEST,
        ['"jsonrpc"', "2.0"],
    ),
    (
        "jsonrpc 1.0",
        frame({**req(6, "agent/status", {"check": False}), "jsonrpc": "1.0"}),
        6,
        INVALID_REQUEST,
        ['"jsonrpc"', "1.0"],
    ),
    (
        "invalid UTF-8",
        frame(
            b'{"jsonrpc": "2.0", "id": 7, "method": "agent/chat", "params": {"message": "\xff"}}'
        ),
        7,
        PARSE_ERROR,
        ["UTF-8"],
    ),
    (
        "params nested 100k deep",
        frame(
            b'{"jsonrpc": "2.0", "id": 8, "method": "agent/chat", "params": '
            + b"[" * 100_000
            + b"]" * 100_000
            + b"}"
        ),
        8,
        PARSE_ERROR,
        ["nested"],
    ),
    (
        "params nested 300 deep",
        frame(
            b'{"jsonrpc": "2.0", "id": 9, "method": "agent/chat", "params": {"message": "x", '
            b'"context": ' + b"[" * 300 + b"]" * 300 + b"}}"
        ),
        9,
        INVALID_PARAMS,
        ["nested"],
    ),
    (
        "workDoneToken is an object",
        frame(req(10, "agent/chat", {"message": "hi", "workDoneToken": {}})),
        10,
        INVALID_PARAMS,
        ["workDoneToken"],
    ),
    (
        "lone surrogate in message",
        frame(
            b'{"jsonrpc": "2.0", "id": 11, "method": "agent/chat", '
            b'"params": {"message": "a\\ud800"}}'
        ),
        11,
        INVALID_PARAMS,
        ["params.message", "surrogate"],
    ),
    (
        "blank chat message",
        frame(req(22, "agent/chat", {"message": "  \n"})),
        22,
        INVALID_PARAMS,
        ["the chat message is empty"],
    ),
    (
        "empty message to the agent.chat command",
        frame(
            req(
                23,
                "workspace/executeCommand",
                {"command": "agent.chat", "arguments": [{"message": ""}]},
            )
        ),
        23,
        INVALID_PARAMS,
        ["the chat message is empty"],
    ),
    ("method is a number", frame(req(12, 5)), 12, INVALID_REQUEST, ['"method"']),
    (
        "id is an object",
        frame(req({"a": 1}, "agent/status", {"check": False})),
        None,
        INVALID_REQUEST,
        ['"id"', "object"],
    ),
    (
        "second initialize",
        frame(req(13, "initialize", {"capabilities": {}})),
        13,
        INVALID_REQUEST,
        ["already initialized"],
    ),
    (
        "params is a string",
        frame(req(14, "agent/status", "x")),
        14,
        INVALID_PARAMS,
        ["params must be an object or an array"],
    ),
    (
        "not JSON",
        frame(b'{"jsonrpc": "2.0", "id": 15, "method": oops}'),
        15,
        PARSE_ERROR,
        ["not valid JSON"],
    ),
    ("a JSON array (batch)", frame(b"[1, 2]"), None, INVALID_REQUEST, ["batch"]),
    (
        "no Content-Length header",
        b"Content-Type: application/vscode-jsonrpc\r\n\r\n" + body(req(16, "agent/status", {})),
        16,
        INVALID_REQUEST,
        ["no Content-Length"],
    ),
    (
        "non-numeric Content-Length",
        b"Content-Length: twelve\r\n\r\n" + body(req(17, "agent/status", {})),
        17,
        INVALID_REQUEST,
        ["Content-Length", "twelve"],
    ),
    (
        "negative Content-Length",
        b"Content-Length: -3\r\n\r\n" + body(req(18, "agent/status", {})),
        18,
        INVALID_REQUEST,
        ["Content-Length", "-3"],
    ),
    (
        "Content-Length too large",
        b"Content-Length: 4000\r\n\r\n" + body(req(19, "agent/status", {})),
        19,
        INVALID_REQUEST,
        ["Content-Length 4000", "longer than the message"],
    ),
    (
        "Content-Length too small",
        b"Content-Length: 30\r\n\r\n"
        + body({"id": 20, "jsonrpc": "2.0", "method": "agent/status"}),
        20,
        PARSE_ERROR,
        ["not valid JSON"],
    ),
    (
        "a message without any header",
        body(req(21, "agent/status", {})),
        21,
        INVALID_REQUEST,
        ["no Content-Length"],
    ),
]


@pytest.mark.parametrize(
    ("data", "msg_id", "code", "words"),
    [case[1:] for case in BAD_REQUESTS],
    ids=[case[0] for case in BAD_REQUESTS],
)
async def test_a_bad_request_gets_a_named_error_and_the_server_stays_alive(
    raw: RawClient, data: bytes, msg_id: Any, code: int, words: list[str]
) -> None:
    await raw.send_bytes(data)
    if msg_id is None:
        async with raw.changed:
            await raw.changed.wait_for(lambda: raw.null_id_errors)
        answer = raw.null_id_errors[0]
    else:
        answer = await raw.response(msg_id)
    assert answer["error"]["code"] == code, answer
    for word in words:
        assert word in answer["error"]["message"], answer
    assert "Traceback" not in json.dumps(answer)
    await assert_alive(raw)


async def test_junk_between_frames_is_skipped(raw: RawClient) -> None:
    await raw.send_bytes(b"garbage line\r\n\x00\xff{not json\r\n\r\nxyz")
    await assert_alive(raw)


async def test_a_header_block_over_the_limit_is_dropped_and_reading_goes_on(
    raw: RawClient,
) -> None:
    """Over 8 KB of header lines and no blank line, then nothing: the server drops them and
    reads on (it used to loop on those bytes forever, deaf to every later message)."""
    await raw.send_bytes(b"Content-Length: 5\r\nX-Pad: " + b"a" * 9000 + b"\r\n")
    await raw.logged("bytes of a header block without its blank line")
    await assert_alive(raw)


async def test_a_malformed_header_block_is_skipped_when_the_next_frame_comes(
    raw: RawClient,
) -> None:
    await raw.send_bytes(b"Content-Type: x\r\nnot a header line\r\n\r\n{}")
    await assert_alive(raw)
    await raw.logged("skipped 40 bytes of a malformed header block")


async def test_a_frame_split_in_many_writes_is_read_whole(raw: RawClient) -> None:
    data = frame(req("split", "agent/status", {"check": False}))
    for index in range(len(data)):
        await raw.send_bytes(data[index : index + 1])
    assert "result" in await raw.response("split")


async def test_two_frames_in_one_write_are_both_answered(raw: RawClient) -> None:
    await raw.send_bytes(
        frame(req("a", "agent/status", {"check": False}))
        + frame(req("b", "agent/status", {"check": False}))
    )
    assert "result" in await raw.response("a")
    assert "result" in await raw.response("b")


async def test_requests_before_initialize_and_after_shutdown_are_refused(tmp_path: Path) -> None:
    client = await RawClient.start(cwd=tmp_path)
    early = await client.request("agent/status", {"check": False})
    assert early["error"]["code"] == -32002
    assert "not initialized" in early["error"]["message"]
    await client.initialize(tmp_path)
    assert "result" in await client.request("shutdown")
    late = await client.request("agent/status", {"check": False})
    assert late["error"]["code"] == INVALID_REQUEST
    assert "shutting down" in late["error"]["message"]
    await client.notify("exit")
    assert await client.close() == 0


async def test_a_second_initialize_keeps_the_workspace(raw: RawClient, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    params = {"capabilities": {}, "rootUri": other.as_uri(), "workspaceFolders": None}
    answer = await raw.request("initialize", params)
    assert answer["error"]["code"] == INVALID_REQUEST
    undo = await raw.request("workspace/executeCommand", {"command": "agent.checkpoints"})
    assert "result" in undo, undo  # the first workspace (tmp_path) still serves commands
    assert str(other) not in json.dumps(undo)


async def test_end_of_input_inside_a_frame_exits_cleanly_with_a_log_line(tmp_path: Path) -> None:
    client = await RawClient.start(cwd=tmp_path)
    await client.initialize(tmp_path)
    await client.send_bytes(b'Content-Length: 100\r\n\r\n{"jsonrpc"')
    assert await client.close() == 0
    assert "connection closed inside a frame" in await client.stderr()
