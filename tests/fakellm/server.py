"""``FakeLLM``: a real HTTP server on 127.0.0.1 speaking the OpenAI, Anthropic and Ollama
chat protocols from a script, recording every request. Standard library only.

    with FakeLLM({"replies": ["Hello"]}) as llm:
        httpx.post(llm.base_url_openai + "/chat/completions", json={...})
        assert llm.requests[0].protocol == "openai"
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from types import TracebackType
from typing import Any

from tests.fakellm.handler import FakeServer
from tests.fakellm.recording import RecordedRequest, RequestLog
from tests.fakellm.script import Script, ScriptPlayer


class FakeLLM:
    """A scripted LLM endpoint; see ``tests.fakellm.script`` for the script format."""

    def __init__(self, script: Mapping[str, Any] | Script | None = None, port: int = 0) -> None:
        self._player = ScriptPlayer(Script.from_json(script if script is not None else {}))
        self._log = RequestLog()
        self._wanted_port = port
        self._server: FakeServer | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> FakeLLM:
        """Bind 127.0.0.1 (port 0: a free port) and serve in a background thread."""
        if self._server is not None:
            raise RuntimeError("fakellm: already started")
        server = FakeServer(self._wanted_port, self._player, self._log)
        thread = threading.Thread(
            target=server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"fakellm-{server.server_address[1]}",
            daemon=True,
        )
        thread.start()
        self._server, self._thread = server, thread
        return self

    def stop(self) -> None:
        """Stop serving; streams in progress give up at their next pause. Idempotent."""
        server, thread = self._server, self._thread
        if server is None or thread is None:
            return
        server.stopping.set()
        server.shutdown()
        server.server_close()
        thread.join()
        self._server = self._thread = None

    def __enter__(self) -> FakeLLM:
        return self.start() if self._server is None else self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("fakellm: not started")
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        """Base URL, e.g. ``http://127.0.0.1:PORT`` (Anthropic and Ollama clients use it)."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url_openai(self) -> str:
        """The OpenAI-style base URL, ``<url>/v1``."""
        return self.url + "/v1"

    @property
    def connections(self) -> int:
        """TCP connections accepted so far (a client reusing its connection adds none)."""
        if self._server is None:
            raise RuntimeError("fakellm: not started")
        return self._server.connections

    @property
    def requests(self) -> list[RecordedRequest]:
        """A copy of the requests recorded so far (control endpoints are not recorded)."""
        return self._log.snapshot()

    @property
    def script(self) -> Script:
        return self._player.script

    def set_script(self, script: Mapping[str, Any] | Script) -> None:
        """Replace the script and rewind its replies (recorded requests are kept)."""
        self._player.replace(Script.from_json(script))

    def reset(self) -> None:
        """Clear recorded requests and rewind the replies (as ``POST /_control/reset``)."""
        self._log.clear()
        self._player.rewind()

    def release(self, gate: str) -> None:
        """Open the gate ``gate``: replies held by it (``"hold": gate``) are sent now."""
        if self._server is None:
            raise RuntimeError("fakellm: not started")
        self._server.gate(gate).set()

    def wait_for_requests(self, n: int, timeout: float = 5.0) -> list[RecordedRequest]:
        """Block until ``n`` requests were recorded and return them; TimeoutError otherwise."""
        return self._log.wait_for(n, timeout)
