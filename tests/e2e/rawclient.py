"""A raw JSON-RPC client over a real server subprocess's stdio: exact bytes in, frames out.

pytest-lsp cannot send a malformed frame; this client writes whatever bytes a test gives
and reads the server's frames strictly. Requests from the server (workspace/configuration,
applyEdit) are answered like a plain editor would; notifications are kept.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any


def frame(message: Any) -> bytes:
    """One correctly framed message (`message`: a JSON value, or the body bytes)."""
    body = message if isinstance(message, bytes) else json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class RawClient:
    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.responses: dict[Any, dict[str, Any]] = {}
        self.null_id_errors: list[dict[str, Any]] = []
        self.answers: dict[Any, int] = {}  # how many responses each id got
        self.notifications: list[dict[str, Any]] = []
        self.changed = asyncio.Condition()
        self.settings: dict[str, Any] = {}
        self.stderr_lines: list[str] = []
        self._reader = asyncio.ensure_future(self._read())
        self._stderr = asyncio.ensure_future(self._drain_stderr())
        self._next_id = 0

    @classmethod
    async def start(
        cls, *args: str, cwd: Path | None = None, env: dict[str, str] | None = None
    ) -> RawClient:
        """The server with `args`; `env` added to this process' environment."""
        env = {**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})}
        env.pop("AGENT_LS_API_KEY", None)
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "server",
            *args,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=cwd,
            env=env,
        )
        return cls(process)

    async def send_bytes(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        await self.process.stdin.drain()

    async def send(self, message: Any) -> None:
        await self.send_bytes(frame(message))

    def new_id(self) -> str:
        self._next_id += 1
        return f"r{self._next_id}"

    async def request(self, method: str, params: Any = None, timeout: float = 30) -> dict[str, Any]:
        """Send a well-formed request; its response (result or error) as a dict."""
        msg_id = self.new_id()
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": msg_id, "method": method}
        if params is not None:
            message["params"] = params
        await self.send(message)
        return await self.response(msg_id, timeout)

    async def notify(self, method: str, params: Any = None) -> None:
        await self.send({"jsonrpc": "2.0", "method": method, "params": params})

    async def response(self, msg_id: Any, timeout: float = 30) -> dict[str, Any]:
        async with self.changed:
            await asyncio.wait_for(self.changed.wait_for(lambda: msg_id in self.responses), timeout)
            return self.responses[msg_id]

    async def initialize(self, root: Path, settings: dict[str, Any] | None = None) -> None:
        self.settings = settings or {}
        params = {
            "processId": None,
            "rootUri": root.as_uri(),
            "capabilities": {"workspace": {"configuration": True, "applyEdit": True}},
            "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}],
            "initializationOptions": {"agentLs": self.settings},
        }
        answer = await self.request("initialize", params)
        assert "result" in answer, answer
        await self.notify("initialized", {})

    async def _read(self) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        while True:
            header = await stdout.readuntil(b"\r\n\r\n")
            lengths = [
                int(line.split(b":", 1)[1])
                for line in header.split(b"\r\n")
                if line.lower().startswith(b"content-length:")
            ]
            assert len(lengths) == 1, f"bad header from the server: {header!r}"
            message = json.loads(await stdout.readexactly(lengths[0]))
            await self._dispatch(message)

    async def _dispatch(self, message: dict[str, Any]) -> None:
        if "method" in message and "id" in message:
            await self.send(
                {"jsonrpc": "2.0", "id": message["id"], "result": self._answer(message)}
            )
            return
        async with self.changed:
            if "method" in message:
                self.notifications.append(message)
            elif message.get("id") is None:
                self.null_id_errors.append(message)
            else:
                self.answers[message["id"]] = self.answers.get(message["id"], 0) + 1
                self.responses[message["id"]] = message
            self.changed.notify_all()

    def _answer(self, request: dict[str, Any]) -> Any:
        if request["method"] == "workspace/configuration":
            return [self.settings for _ in request["params"]["items"]]
        if request["method"] == "workspace/applyEdit":
            return {"applied": True}
        return None

    async def close(self) -> int:
        """Close stdin (EOF) and wait for the exit status."""
        if self.process.stdin is not None and not self.process.stdin.is_closing():
            self.process.stdin.close()
        code = await asyncio.wait_for(self.process.wait(), 30)
        self._reader.cancel()
        return code

    async def _drain_stderr(self) -> None:
        stderr = self.process.stderr
        assert stderr is not None
        while line := await stderr.readline():
            async with self.changed:
                self.stderr_lines.append(line.decode(errors="replace"))
                self.changed.notify_all()

    async def logged(self, text: str, timeout: float = 30) -> None:
        """Wait until the server has written `text` on stderr (its log)."""
        async with self.changed:
            await asyncio.wait_for(
                self.changed.wait_for(lambda: any(text in line for line in self.stderr_lines)),
                timeout,
            )

    async def stderr(self) -> str:
        """Everything the server wrote on stderr (complete once the process has exited)."""
        await asyncio.wait({self._stderr}, timeout=10)
        return "".join(self.stderr_lines)
