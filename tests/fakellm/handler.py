"""The HTTP side of the fake LLM: routing, recording, and sending replies with their faults.

Responses use HTTP/1.1: complete bodies carry Content-Length, streams use chunked transfer
encoding, so a dropped stream ("drop_mid_stream") is seen by clients as an incomplete body,
never as a normal end. Faults behave alike on every protocol:

- error faults / ``status``: an HTTP error with the protocol's error JSON (+ Retry-After;
  ``echo_headers``: the message repeats these request headers);
- ``drop_mid_stream``: about half the content frames, then the socket is shut down; a
  non-streaming reply sends half its body (Content-Length promises the whole);
- ``reset_mid_stream``: the same, but the connection is reset (TCP RST), as a crashing
  server or a proxy does: the client's read fails with "connection reset";
- ``malformed_sse``: garbage frames (not JSON) mixed into a valid stream; a non-streaming
  reply gets a body that is not valid JSON;
- ``slow_first_byte`` / ``first_byte_delay_ms``: a wait before any byte;
- ``events``: the stream is exactly these events (malformed ones included).

Clients that go away (reset, closed mid-response) are expected: they end their connection
quietly, never with a traceback. Every accepted TCP connection is counted (``connections``),
so tests can check that clients reuse them.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import socket
import struct
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.fakellm import anthropic_wire, ollama_wire, openai_wire
from tests.fakellm.recording import RecordedRequest, RequestLog, last_user_message
from tests.fakellm.script import Reply, Script, ScriptPlayer
from tests.fakellm.wire import Context, Frame, Wire, dumps, estimate_tokens

WIRES: dict[str, Wire] = {
    w.name: w for w in (openai_wire.WIRE, anthropic_wire.WIRE, ollama_wire.WIRE)
}

# (method, path) -> (protocol, action)
ROUTES: dict[tuple[str, str], tuple[str, str]] = {
    ("POST", "/v1/chat/completions"): ("openai", "chat"),
    ("GET", "/v1/models"): ("openai", "models"),
    ("POST", "/v1/messages"): ("anthropic", "chat"),
    ("POST", "/api/chat"): ("ollama", "chat"),
    ("GET", "/api/tags"): ("ollama", "models"),
}


CLIENT_GONE = (ConnectionResetError, BrokenPipeError, ConnectionAbortedError)


def guess_protocol(path: str) -> str:
    if path.startswith("/api/"):
        return "ollama"
    if path.startswith("/v1/messages"):
        return "anthropic"
    return "openai" if path.startswith("/v1/") else "unknown"


class FakeServer(ThreadingHTTPServer):
    """A ThreadingHTTPServer holding the script, the request log and a stop flag."""

    daemon_threads = True

    def __init__(self, port: int, player: ScriptPlayer, log: RequestLog) -> None:
        super().__init__(("127.0.0.1", port), Handler)
        self.player = player
        self.log = log
        self.stopping = threading.Event()
        self.counter = itertools.count(1)
        self.connections = 0
        self.closed = 0
        self._closed_lock = threading.Lock()
        self._gates: dict[str, threading.Event] = {}

    def gate(self, name: str) -> threading.Event:
        """The gate ``name`` (created closed on first use; see ``Reply.hold``)."""
        with self._closed_lock:
            return self._gates.setdefault(name, threading.Event())

    def process_request(self, request: Any, client_address: Any) -> None:
        self.connections += 1  # only the serving thread accepts: no lock needed
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        super().shutdown_request(request)
        with self._closed_lock:
            self.closed += 1

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that went away is normal for an HTTP server: no traceback for it."""
        if isinstance(sys.exc_info()[1], CLIENT_GONE):
            return
        super().handle_error(request, client_address)


def _with_garbage(frames: list[Frame], garbage: bytes) -> list[Frame]:
    """Insert a garbage frame after the first frame and after every second one after it."""
    out: list[Frame] = []
    for i, frame in enumerate(frames):
        out.append(frame)
        if i % 2 == 0 and i < len(frames) - 1:
            out.append(Frame(garbage))
    return out


def drop_index(frames: list[Frame]) -> int:
    """Index of the first frame NOT sent by drop_mid_stream: after half the content frames."""
    content = [i for i, f in enumerate(frames) if f.content]
    if not content:
        return 1
    return content[(len(content) + 1) // 2 - 1] + 1


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body are separate writes: no 40 ms stalls
    server: FakeServer

    def log_message(self, format: str, *args: Any) -> None:
        """Silent: the default logs every request line to stderr."""

    def do_GET(self) -> None:
        self._dispatch("GET")

    def do_POST(self) -> None:
        self._dispatch("POST")

    def _dispatch(self, method: str) -> None:
        try:
            raw = self._read_body()
            path, _, query = self.path.partition("?")
            if path.startswith("/_control/"):
                self._control(method, path, raw)
            else:
                self._serve(method, path, query, raw)
        except CLIENT_GONE:
            self.close_connection = True

    def _read_body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            parts = []
            while size := int(self.rfile.readline().split(b";")[0].strip() or b"0", 16):
                parts.append(self.rfile.read(size))
                self.rfile.readline()
            self.rfile.readline()
            return b"".join(parts)
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _serve(self, method: str, path: str, query: str, raw: bytes) -> None:
        body = _parse_json(raw)
        protocol, action = ROUTES.get((method, path), (guess_protocol(path), ""))
        headers = {k.lower(): v for k, v in self.headers.items()}
        record = RecordedRequest(method, path, query, headers, body, protocol, time.time())
        self.server.log.append(record)
        if not action:
            self._send_json(404, {"error": f"fakellm: no route for {method} {path}"})
        elif action == "models":
            self._send_json(200, WIRES[protocol].models(self.server.player.script.model))
        else:
            self._chat(WIRES[protocol], body, headers)

    def _chat(self, wire: Wire, body: Any, headers: dict[str, str]) -> None:
        if not isinstance(body, dict):
            self._send_json(400, wire.error_body(400, "fakellm: body must be a JSON object"))
            return
        reply = self.server.player.next_reply(last_user_message(body))
        if reply is None:
            self._send_json(500, wire.error_body(500, "fakellm: no scripted reply"))
            return
        if self._pause(reply.first_byte_delay) or self._held(reply.hold):
            # The server is stopping: drop the connection unanswered (keep-alive would
            # otherwise wait on it for a next request while the client waits for this one).
            self.close_connection = True
            return
        status = reply.error_status
        if status is not None:
            extra = {} if reply.retry_after is None else {"Retry-After": f"{reply.retry_after:g}"}
            message = f"fakellm: scripted error {status}"
            for name in reply.echo_headers:  # as servers that repeat what they refused
                message += f"; you sent {name}: {headers.get(name, '(none)')}"
            self._send_json(status, wire.error_body(status, message), extra)
        elif wire.is_stream(body):
            self._stream(wire, reply, self._context(body))
        else:
            self._complete(wire, reply, self._context(body))

    def _context(self, body: dict[str, Any]) -> Context:
        model = body.get("model")
        options = body.get("stream_options")
        return Context(
            model=model if isinstance(model, str) and model else self.server.player.script.model,
            request_number=next(self.server.counter),
            prompt_tokens=estimate_tokens(dumps(body.get("messages", []))),
            created=int(time.time()),
            include_usage=isinstance(options, dict) and options.get("include_usage") is True,
        )

    def _complete(self, wire: Wire, reply: Reply, ctx: Context) -> None:
        data = dumps(wire.complete(reply, ctx)).encode()
        if reply.fault == "malformed_sse":
            data = data[: len(data) // 2] + b"<<not json>>"
        self._start(200, "application/json", {"Content-Length": str(len(data))})
        if reply.fault == "drop_mid_stream":
            self.wfile.write(data[: len(data) // 2])
            self._abort()
            return
        self.wfile.write(data)

    def _stream(self, wire: Wire, reply: Reply, ctx: Context) -> None:
        if reply.events is not None:
            frames = [Frame(wire.frame(e), content=True) for e in reply.events]
        else:
            frames = wire.stream(reply, ctx)
        if reply.fault == "malformed_sse":
            frames = _with_garbage(frames, wire.garbage)
        dropping = reply.fault in ("drop_mid_stream", "reset_mid_stream")
        stop_at = drop_index(frames) if dropping else len(frames)
        self._start(200, wire.stream_content_type, {"Transfer-Encoding": "chunked"})
        for i, frame in enumerate(frames[:stop_at]):
            if i and self._pause(reply.delay_ms / 1000):
                self._abort()
                return
            self.wfile.write(b"%x\r\n%s\r\n" % (len(frame.data), frame.data))
            self.wfile.flush()
        if stop_at < len(frames):
            self._abort(reset=reply.fault == "reset_mid_stream")
            return
        self.wfile.write(b"0\r\n\r\n")

    def _control(self, method: str, path: str, raw: bytes) -> None:
        server = self.server
        if (method, path) == ("GET", "/_control/requests"):
            self._send_json(200, [r.to_json() for r in server.log.snapshot()])
        elif (method, path) == ("GET", "/_control/stats"):
            stats = {
                "connections": server.connections,
                "open": server.connections - server.closed,
                "requests": len(server.log.snapshot()),
            }
            self._send_json(200, stats)
        elif (method, path) == ("POST", "/_control/reset"):
            server.log.clear()
            server.player.rewind()
            self._send_json(200, {"ok": True})
        elif (method, path) == ("POST", "/_control/script"):
            try:
                server.player.replace(Script.from_json(_parse_json(raw)))
            except ValueError as exc:
                self._send_json(400, {"error": f"fakellm: bad script: {exc}"})
                return
            self._send_json(200, {"ok": True})
        else:
            self._send_json(404, {"error": f"fakellm: no control endpoint {method} {path}"})

    def _pause(self, seconds: float) -> bool:
        """Wait; True when the server is stopping (the caller then gives up)."""
        return seconds > 0 and self.server.stopping.wait(seconds)

    def _held(self, gate: str | None) -> bool:
        """Wait until the gate is released; True when the server is stopping instead."""
        if gate is None:
            return False
        opened = self.server.gate(gate)
        while not opened.wait(0.05):
            if self.server.stopping.is_set():
                return True
        return False

    def _abort(self, reset: bool = False) -> None:
        """Close the connection abruptly, without finishing the response (`reset`: with a
        TCP RST instead of an orderly shutdown)."""
        self.wfile.flush()
        self.close_connection = True
        with contextlib.suppress(OSError):  # the client may be gone already
            if reset:
                linger = struct.pack("ii", 1, 0)
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, linger)
                self.connection.close()
            else:
                self.connection.shutdown(socket.SHUT_RDWR)

    def _start(self, status: int, content_type: str, headers: dict[str, str]) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()

    def _send_json(self, status: int, obj: Any, headers: dict[str, str] | None = None) -> None:
        data = dumps(obj).encode()
        self._start(
            status, "application/json", {"Content-Length": str(len(data)), **(headers or {})}
        )
        self.wfile.write(data)


def _parse_json(raw: bytes) -> Any:
    if not raw:
        return None
    try:
        return json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        return None
