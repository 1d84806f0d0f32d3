"""A bounded fuzz of the LSP wire: random and mutated JSON-RPC frames to a real server.

After every frame a canary request must succeed (the server is never deaf), and every frame
that is a well-framed request with a readable id gets exactly that id answered.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any

from tests.e2e.rawclient import RawClient, frame

FRAMES = int(os.environ.get("AGENT_LS_WIRE_FUZZ_FRAMES", "400"))
SEED = int(os.environ.get("AGENT_LS_WIRE_FUZZ_SEED", "20261123"))
RANGE = {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 3}}
METHODS: list[tuple[str, Any]] = [
    ("agent/status", {"check": False}),
    ("agent/chat", {"message": "hi", "workDoneToken": "t"}),
    ("workspace/executeCommand", {"command": "agent.checkpoints", "arguments": []}),
    ("workspace/executeCommand", {"command": "agent.undo", "arguments": [{"force": False}]}),
    (
        "textDocument/codeAction",
        {
            "textDocument": {"uri": "file:///nowhere.py"},
            "range": RANGE,
            "context": {"diagnostics": []},
        },
    ),
    ("codeAction/resolve", {"title": "x", "data": {"action": "explain"}}),
    (
        "textDocument/hover",
        {"textDocument": {"uri": "file:///x"}, "position": {"line": 0, "character": 0}},
    ),
    ("initialize", {"capabilities": {}}),
    ("no/such/method", {}),
]
ATOMS: list[Any] = [
    None,
    True,
    0,
    -1,
    2**70,
    1.5,
    "",
    "x",
    "\u00e9\U0001f600",
    [],
    {},
    [1, "a"],
    {"a": {}},
]


def mutate_value(rng: random.Random, value: Any, depth: int = 0) -> Any:
    if isinstance(value, dict) and value and rng.random() < 0.7:
        key = rng.choice(list(value))
        copy = dict(value)
        roll = rng.random()
        if roll < 0.3:
            del copy[key]
        elif roll < 0.5:
            copy[rng.choice(["extra", "id", "uri", key + "X"])] = rng.choice(ATOMS)
        else:
            copy[key] = mutate_value(rng, value[key], depth + 1)
        return copy
    if isinstance(value, list) and value and rng.random() < 0.5:
        index = rng.randrange(len(value))
        return [*value[:index], mutate_value(rng, value[index], depth + 1), *value[index + 1 :]]
    return rng.choice(ATOMS)


def message(rng: random.Random, msg_id: str) -> dict[str, Any]:
    method, params = rng.choice(METHODS)
    data: dict[str, Any] = {"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params}
    roll = rng.random()
    if roll < 0.45:
        data["params"] = mutate_value(rng, params)
    elif roll < 0.75:
        data = mutate_value(rng, data)
    elif roll < 0.8:
        data.pop("id")  # a notification
    return data


def mutate_bytes(rng: random.Random, body: bytes) -> bytes:
    data = bytearray(body)
    for _ in range(rng.randint(1, 4)):
        roll = rng.random()
        position = rng.randrange(len(data) + 1)
        if roll < 0.3 and data:
            data[min(position, len(data) - 1)] = rng.randrange(256)
        elif roll < 0.5:
            del data[position : position + rng.randint(1, 8)]
        elif roll < 0.7:
            data[position:position] = rng.choice(
                [b"\xff", b"\xc3", b"\\ud800", b"{", b"]", b'"', b"\r\n"]
            )
        else:
            data[position:position] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 6)))
    return bytes(data)


def framing(rng: random.Random, body: bytes) -> bytes:
    roll = rng.random()
    length = len(body)
    if roll < 0.15:
        return b"Content-Length: %d\r\n\r\n" % max(1, length + rng.randint(-length + 1, 40)) + body
    if roll < 0.2:
        return b"Content-Length: %d\r\n\r\n" % (length + rng.randint(41, 3000)) + body
    if roll < 0.25:
        return b"Content-Type: application/vscode-jsonrpc\r\n\r\n" + body
    if roll < 0.3:
        value = rng.choice([b"", b"abc", b"-7", b"1e3", b"0x10", b"99999999999999999999"])
        return b"Content-Length: " + value + b"\r\n\r\n" + body
    if roll < 0.35:
        return body
    if roll < 0.4:
        return bytes(rng.randrange(256) for _ in range(rng.randint(1, 200)))
    if roll < 0.45:
        return b"Content-Length: %d\n\n" % length + body  # LF-only header lines
    if roll < 0.5:
        junk = rng.choice([b"\r\n", b"garbage\r\n", b"X-Extra: 1\r\n", b"\x00"])
        return junk + frame(body)
    return frame(body)


def expected_id(data: bytes) -> Any:
    """The id a correctly framed request must be answered with (None: no promise)."""
    if not data.startswith(b"Content-Length: ") or b"\r\n\r\n" not in data:
        return None
    header, _, body = data.partition(b"\r\n\r\n")
    try:
        if int(header.split(b":", 1)[1]) != len(body):
            return None
        value = json.loads(body)
    except (ValueError, RecursionError):
        return None
    if isinstance(value, dict) and isinstance(value.get("method"), str):
        msg_id = value.get("id")
        if isinstance(msg_id, str) and msg_id.startswith("f"):
            return msg_id
    return None


async def test_every_frame_is_survived_and_every_request_answered(tmp_path: Path) -> None:
    rng = random.Random(SEED)
    client = await RawClient.start(cwd=tmp_path)
    await client.initialize(tmp_path, {"provider": "openai", "baseUrl": "http://127.0.0.1:9/v1"})
    promised = []
    for index in range(FRAMES):
        body = json.dumps(message(rng, f"f{index}")).encode()
        if rng.random() < 0.3:
            body = mutate_bytes(rng, body)
        data = framing(rng, body)
        await client.send_bytes(data)
        if (msg_id := expected_id(data)) is not None:
            promised.append(msg_id)
            try:
                answer = await client.response(msg_id)
            except TimeoutError:
                raise AssertionError(f"frame {index} never answered: {data[:300]!r}") from None
            assert ("result" in answer) != ("error" in answer), answer
            assert "Traceback" not in json.dumps(answer), answer
        canary = await client.request("agent/status", {"check": False})
        assert canary.get("result", {}).get("provider") == "openai", (index, data[:300], canary)
    assert len(promised) >= FRAMES // 5  # the fuzz really sent answerable requests
    assert all(client.answers[msg_id] == 1 for msg_id in promised)
    assert await client.close() == 0
