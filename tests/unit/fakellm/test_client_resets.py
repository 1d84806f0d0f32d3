"""Clients that reset their connection (mid-response, mid-request, idle keep-alive) are
normal for an HTTP server: the fake LLM, run as a real process, logs no traceback for them
and keeps serving."""

from __future__ import annotations

import json
import signal
import socket
import struct
import time

import httpx

from tests.unit.fakellm.test_cli import announced_url, start

SLOW = {"content": "x" * 400, "chunk_size": 1, "delay_ms": 5}
BODY = json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": True})


def connect(url: str) -> socket.socket:
    host, port = url.removeprefix("http://").split(":")
    return socket.create_connection((host, int(port)), timeout=10)


def reset(sock: socket.socket) -> None:
    """Close with SO_LINGER 0: the peer gets a TCP RST, as from a crashed client."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


def request(body: str, length: int | None = None) -> bytes:
    head = (
        "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body) if length is None else length}\r\n\r\n"
    )
    return (head + body).encode()


def stats(url: str) -> dict[str, int]:
    return httpx.get(url + "/_control/stats", timeout=10).json()  # type: ignore[no-any-return]


def wait_until_closed(url: str) -> None:
    """Every connection but the one asking has ended (bounded wait on the server's count)."""
    deadline = time.monotonic() + 10
    while stats(url)["open"] > 1:
        assert time.monotonic() < deadline, "connections were not closed"


def test_resets_leave_no_traceback(tmp_path) -> None:  # type: ignore[no-untyped-def]
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"replies": [SLOW, "quick", SLOW]}))
    proc = start("--script", str(script))
    try:
        url = announced_url(proc)
        mid_response = connect(url)
        mid_response.sendall(request(BODY))
        assert mid_response.recv(200).startswith(b"HTTP/1.1 200")
        reset(mid_response)

        idle = connect(url)
        idle.sendall(request(json.dumps({"model": "m", "messages": [], "stream": False})))
        assert idle.recv(12).startswith(b"HTTP/1.1 200")  # the rest stays unread
        reset(idle)  # the server waits for the next request on this keep-alive connection

        reset(connect(url))  # connected, then gone before sending anything

        mid_request = connect(url)
        mid_request.sendall(request(BODY[:10], length=len(BODY)))
        reset(mid_request)

        wait_until_closed(url)
        assert httpx.get(url + "/v1/models", timeout=10).status_code == 200
    finally:
        proc.send_signal(signal.SIGTERM)
        _, stderr = proc.communicate(timeout=10)
    assert proc.returncode == 0
    assert "Traceback" not in stderr
    assert "ConnectionResetError" not in stderr
    assert stderr == ""
