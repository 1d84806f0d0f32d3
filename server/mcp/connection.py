"""One MCP server: started in the background, its tools listed, calls made, stopped.

The SDK's `Client` is an async context that must be entered and left in one task, so each
connection has a task that holds it open (`_hold`) until `stop`; calls are made from the turn's
task on the open session. States: starting -> ready | failed (with the reason); a server that
was ready and died (a crashed stdio process) is started again at the next call, no sooner than
its backoff allows (at once after a first failure, then 1, 2, 4 ... 60 s after the last one;
a call in between fails at once, the model told until when: never a busy loop).
`notifications/tools/list_changed` lists the tools again. A stdio server's stderr is read
by `StderrLog` (redacted, logged, its last lines in a failed server's status). Stopping
leaves no process: the SDK ends the stdio server's process group when the context is left.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Literal

import mcp_types
from mcp import Client
from mcp.client.session import IncomingMessage
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from server.mcp.stderr import StderrLog
from server.mcp_config import START_TIMEOUT, McpServerSpec
from server.redact import redact

log = logging.getLogger(__name__)

State = Literal["starting", "ready", "failed", "stopped"]
MAX_BACKOFF = 60.0


@dataclass(frozen=True)
class McpStatus:
    """What `agent/status` and `agent-ls mcp list` show of a server."""

    name: str
    transport: str
    state: State
    tools: tuple[str, ...]
    error: str = ""
    failures: int = 0  # in a row
    retry_delay: float | None = None  # failed: seconds after the failure before a new start


class ServerDown(Exception):
    """The server cannot take the call (failed, restarting too soon, or died: `closed`)."""

    def __init__(self, message: str, *, closed: bool = False) -> None:
        super().__init__(message)
        self.closed = closed


class McpConnection:
    """A server's connection, kept open by a background task."""

    def __init__(
        self,
        spec: McpServerSpec,
        start_timeout: float = START_TIMEOUT,
        on_change: Callable[[], None] | None = None,
        cwd: Path | None = None,
    ) -> None:
        self.spec = spec
        self.cwd = cwd  # a stdio server's folder when its entry names none
        self.start_timeout = start_timeout
        self.state: State = "stopped"
        self.error = ""
        self.tools: list[mcp_types.Tool] = []
        self.failures = 0
        self._on_change = on_change
        self._client: Client | None = None
        self._task: asyncio.Task[None] | None = None
        self._refresh: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()
        self._ready = asyncio.Event()
        self._failed_at = 0.0
        self._stderr: StderrLog | None = None

    def status(self) -> McpStatus:
        ready = self.state == "ready"
        names = tuple(tool.name for tool in self.tools) if ready else ()
        error = self.error
        if self.state == "failed" and self._stderr is not None and self._stderr.tail:
            error = f"{error}; its stderr: " + " | ".join(self._stderr.tail)
        delay = self.backoff() if self.state == "failed" else None
        return McpStatus(
            self.spec.name, self.spec.transport, self.state, names, error, self.failures, delay
        )

    def start(self) -> None:
        """Start (or start again) in the background."""
        self.state, self.error = "starting", ""
        self._stop, self._ready = asyncio.Event(), asyncio.Event()
        self._task = asyncio.create_task(self._hold(), name=f"mcp server {self.spec.name}")

    async def wait_started(self) -> None:
        """Until the server is ready or failed (the start itself is bounded by its timeout)."""
        if self.state == "starting":
            await self._ready.wait()

    async def stop(self) -> None:
        """Close the session and end the server (its process, or its HTTP session)."""
        self._stop.set()
        task, self._task = self._task, None
        if task is not None:
            await asyncio.wait({task}, timeout=self.start_timeout)
            if not task.done():
                task.cancel()
                await asyncio.wait({task})
        self.state = "stopped"

    async def _hold(self) -> None:
        failure = ""
        try:
            async with asyncio.timeout(self.start_timeout) as deadline:
                async with self._client_for() as client:
                    if self._stderr is not None:
                        self._stderr.close_writer()  # the server has its own copy
                    self._client = client
                    self.tools = await self._list_tools(client)
                    deadline.reschedule(None)
                    self._set_state("ready")
                    listener = self._listen_for_changes(client)
                    await self._stop.wait()
                    if listener is not None:
                        listener.cancel()
                        await asyncio.wait({listener})
        except TimeoutError:
            failure = f"did not start within {self.start_timeout:g} s"
        except Exception as error:  # whatever the server or its transport did: it failed
            failure = describe(error)
        finally:
            self._client = None
            if self._stderr is not None:  # its last lines, before the failure is shown
                await self._stderr.finish()
            if failure:
                self._fail(failure)
            self._ready.set()

    def _client_for(self) -> Client:
        spec = self.spec
        target: Any
        if spec.url:
            http = create_mcp_http_client(headers=spec.expanded_headers())
            target = streamable_http_client(spec.url, http_client=http)
        else:
            cwd = os.path.expanduser(spec.cwd) if spec.cwd else self.cwd
            parameters = StdioServerParameters(
                command=spec.command,
                args=list(spec.args),
                env=spec.expanded_env() or None,  # the values are secrets from here on
                cwd=cwd,
            )
            self._stderr = StderrLog(spec.name)
            target = stdio_client(parameters, errlog=self._stderr.writer)
        return Client(target, message_handler=self._on_message, cache=None)

    async def _list_tools(self, client: Client) -> list[mcp_types.Tool]:
        tools: list[mcp_types.Tool] = []
        cursor: str | None = None
        for _ in range(100):  # pages
            page = await client.list_tools(cursor=cursor)
            tools.extend(page.tools)
            cursor = page.next_cursor
            if cursor is None:
                break
        return tools

    def _listen_for_changes(self, client: Client) -> asyncio.Task[None] | None:
        """On a 2026-07-28 connection a server says its tools changed only on a
        `subscriptions/listen` stream (earlier revisions notify unasked: `_on_message`)."""
        if client.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            return None
        tools = client.server_capabilities.tools
        if tools is None or not tools.list_changed:
            return None
        return asyncio.create_task(self._listen(client), name=f"mcp listen {self.spec.name}")

    async def _listen(self, client: Client) -> None:
        try:
            async with client.listen(tools_list_changed=True) as subscription:
                async for _event in subscription:
                    await self._relist()
        except Exception as error:  # the list stays as it is; calls go on
            log.info("mcp server %s: no tool list changes: %s", self.spec.name, describe(error))

    async def _on_message(self, message: IncomingMessage) -> None:
        if isinstance(message, mcp_types.ToolListChangedNotification):
            self._refresh = asyncio.create_task(self._relist(), name=f"mcp relist {self.spec.name}")
        elif isinstance(message, Exception):
            log.warning("mcp server %s: %s", self.spec.name, redact(describe(message)))

    async def _relist(self) -> None:
        client = self._client
        if client is None:
            return
        try:
            self.tools = await self._list_tools(client)
        except Exception as error:  # the old list stays; the next change lists again
            log.warning("mcp server %s: listing its tools failed: %s", self.spec.name, error)
            return
        log.info("mcp server %s: %d tool(s) now", self.spec.name, len(self.tools))
        if self._on_change is not None:
            self._on_change()

    def _set_state(self, state: State) -> None:
        self.state = state
        self._ready.set()
        if self._on_change is not None:
            self._on_change()

    def _fail(self, reason: str) -> None:
        self.error = redact(reason)
        self.failures += 1
        self._failed_at = time.monotonic()
        log.warning("mcp server %s failed: %s", self.spec.name, self.error)
        self._set_state("failed")

    def backoff(self) -> float:
        """Seconds to wait after the last failure before starting again: none after the
        first, then 1, 2, 4 ... 60 (failures in a row)."""
        if self.failures <= 1:
            return 0.0
        return min(MAX_BACKOFF, 2.0 ** (self.failures - 2))

    def next_start(self) -> str:
        """When the server is started again, as the model is told."""
        delay = self.backoff()
        if delay <= 0:
            return "restarting it at the next call"
        left = max(0.0, self._failed_at + delay - time.monotonic())
        until = (datetime.now() + timedelta(seconds=left)).strftime("%H:%M:%S")
        return (
            f"{self.failures} failures in a row: gave up until {until} "
            f"(a new start {delay:g} s after the last failure)"
        )

    async def ensure_ready(self) -> str:
        """Ready for a call: a failed server is started again once its backoff has passed.
        Returns a note for the model when it was restarted; raises ServerDown otherwise."""
        if self.state == "starting":
            await self.wait_started()
        if self.state == "ready" and self._client is not None:
            return ""
        name = self.spec.name
        if self._failed_at + self.backoff() > time.monotonic():
            raise ServerDown(f"the MCP server {name} is down ({self.error}); {self.next_start()}")
        reason, failures = self.error, self.failures
        log.info("restarting mcp server %s (%d failure(s) in a row)", name, failures)
        await self.stop()
        self.start()
        await self.wait_started()
        if self.state != "ready":
            raise ServerDown(
                f"the MCP server {name} was restarting and failed again ({self.error}); "
                f"{self.next_start()}"
            )
        return f"(the MCP server {name} had stopped ({reason}); restarting it: it was restarted)"

    async def call(
        self, tool: str, arguments: dict[str, Any], timeout: float
    ) -> mcp_types.CallToolResult:
        """Call `tool`; a timeout cancels it (the server gets `notifications/cancelled`).
        A closed connection marks the server failed (restarted at the next call)."""
        client = self._client
        if client is None:
            raise ServerDown(f"the MCP server {self.spec.name} is not running")
        try:
            async with asyncio.timeout(timeout):
                result = await client.call_tool(tool, arguments)
            self.failures = 0
            return result
        except TimeoutError:
            raise  # the call was cancelled (the server told so); the server goes on
        except MCPError as error:
            if error.error.code != mcp_types.CONNECTION_CLOSED:
                raise
            self._died(describe(error))
            raise self._stopped() from error
        except (OSError, EOFError) as error:
            self._died(describe(error))
            raise self._stopped() from error

    def _stopped(self) -> ServerDown:
        return ServerDown(
            f"the MCP server {self.spec.name} stopped during the call; {self.next_start()}",
            closed=True,
        )

    def _died(self, reason: str) -> None:
        self._stop.set()
        self._fail(f"stopped during a call ({reason})")


def describe(error: BaseException) -> str:
    """One line for an error; the first leaf of an exception group."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    if isinstance(error, MCPError):
        return error.error.message
    text = str(error) or type(error).__name__
    if isinstance(error, FileNotFoundError) and error.filename:
        text = f"command not found: {error.filename}"
    return text.splitlines()[0] if text.strip() else type(error).__name__
