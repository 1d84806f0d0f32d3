"""Provider `cli`: an external agent command (agentLs.cliCommand, an argv list) run in the
workspace, its streaming-JSON log parsed by the result-log parser (SPEC §4).

The user's last message is the prompt: substituted for `{prompt}` in the argv when one
argument contains it, else written to the command's stdin. Assistant text found in the log
streams to the user as it arrives; at the end the parsed result decides the reply:
a plan-mode result becomes the plan (shown, not applied), a normal result its text
(unless that text was already streamed), an error result or a parse failure a
ProviderError naming the code. The command runs in its own process group; the timeout
(agentLs.cliTimeout) and cancellation end the whole group (SIGTERM, then SIGKILL).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

from actions.tools import Tool
from parsing import ResultLogConfig, ResultLogError, ResultRecord, parse_result_log_async
from server.config import Config
from server.providers.base import ChatMessage, ProviderError, StreamChunk

log = logging.getLogger(__name__)

LINE_LIMIT = 16 * 1024 * 1024  # one stream-json line may carry a whole file
STDERR_TAIL = 2000
KILL_GRACE = 2.0
PROMPT = "{prompt}"
HINTS = {
    "empty_logs": "the command printed nothing on stdout; does it need a flag for streaming "
    "JSON output (e.g. --output-format stream-json)?",
    "no_valid_result_found": "the log has no result line; check that the command prints "
    "streaming JSON and runs to its end",
    "timeout": "parsing the log took too long (AGENT_LS_PARSER_TIMEOUT)",
}


class CliProvider:
    name = "cli"

    def __init__(self, config: Config, workspace: Path | None = None) -> None:
        self.config = config
        self.workspace = workspace

    def _error(self, detail: str, hint: str) -> ProviderError:
        return ProviderError(self.name, None, detail, hint)

    async def stream_chat(
        self, messages: list[ChatMessage], *, tools: Sequence[Tool] | None = None
    ) -> AsyncIterator[StreamChunk]:
        if not self.config.cliCommand:
            raise self._error(
                "no command is configured",
                'set agentLs.cliCommand to the agent\'s argv, e.g. ["my-agent", "-p", '
                '"--output-format", "stream-json"] (or AGENT_LS_CLI_COMMAND)',
            )
        prompt = next((m.content for m in reversed(messages) if m.role == "user"), "")
        run = _Run(self, prompt)
        async for chunk in run.stream():
            yield chunk

    def argv(self, prompt: str) -> tuple[list[str], bytes | None]:
        """The command line and the bytes for its stdin (None: the prompt is in the argv)."""
        command = list(self.config.cliCommand)
        if any(PROMPT in arg for arg in command):
            return [arg.replace(PROMPT, prompt) for arg in command], None
        return command, prompt.encode("utf-8")


class _Run:
    """One run of the command: its process, its log so far and what was streamed."""

    def __init__(self, provider: CliProvider, prompt: str) -> None:
        self.provider = provider
        self.prompt = prompt
        self.lines: list[str] = []
        self.streamed: list[str] = []
        self.stderr = bytearray()

    async def stream(self) -> AsyncIterator[StreamChunk]:
        argv, stdin = self.provider.argv(self.prompt)
        process = await self._start(argv, stdin)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.provider.config.cliTimeout
        drain = asyncio.ensure_future(self._drain_stderr(process))
        finished = False
        try:
            if stdin is not None:
                await _feed(process, stdin)
            async for text in self._read(process, deadline):
                yield StreamChunk(text=text)
            await self._wait(process, deadline)
            finished = True
        finally:
            if not finished:
                drain.cancel()
                await _kill_group(process)
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(1.0):
                await drain  # stderr after the exit, for error messages
        async for chunk in self._reply(process.returncode):
            yield chunk

    async def _start(self, argv: list[str], stdin: bytes | None) -> asyncio.subprocess.Process:
        cwd = self.provider.workspace
        try:
            return await asyncio.create_subprocess_exec(
                *argv,
                cwd=str(cwd) if cwd is not None else None,
                stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                start_new_session=True,
                limit=LINE_LIMIT,
            )
        except OSError as exc:
            raise self.provider._error(
                f"cannot run {argv[0]!r}: {exc.strerror or exc}",
                "check agentLs.cliCommand: the program must be installed and on PATH",
            ) from None

    async def _read(
        self, process: asyncio.subprocess.Process, deadline: float
    ) -> AsyncIterator[str]:
        assert process.stdout is not None
        while True:
            try:
                # asyncio.timeout, not wait_for: 3.11's wait_for can swallow a cancellation
                # that arrives as the line does, and the command would outlive its caller.
                async with asyncio.timeout_at(deadline):
                    raw = await process.stdout.readline()
            except TimeoutError:
                raise self._timeout() from None
            except ValueError:  # a line over LINE_LIMIT: keep going without it
                log.warning("cli: skipped an over-long output line")
                continue
            if not raw:
                return
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            self.lines.append(line)
            for text in assistant_texts(line):
                self.streamed.append(text)
                yield text

    async def _wait(self, process: asyncio.subprocess.Process, deadline: float) -> None:
        try:
            async with asyncio.timeout_at(deadline):
                await process.wait()
        except TimeoutError:
            raise self._timeout() from None

    def _timeout(self) -> ProviderError:
        seconds = self.provider.config.cliTimeout
        return self.provider._error(
            f"the command did not finish within {seconds:g}s and was stopped",
            "raise agentLs.cliTimeout, or ask for a smaller task",
        )

    async def _drain_stderr(self, process: asyncio.subprocess.Process) -> None:
        assert process.stderr is not None
        while chunk := await process.stderr.read(65536):
            self.stderr += chunk
            del self.stderr[: max(len(self.stderr) - STDERR_TAIL, 0)]

    async def _reply(self, returncode: int | None) -> AsyncIterator[StreamChunk]:
        try:
            record = await parse_result_log_async("\n".join(self.lines), ResultLogConfig.from_env())
        except ResultLogError as exc:
            raise self._failure(exc, returncode) from None
        if record.is_error:
            detail = f"the agent reported an error ({record.subtype}): {record.result or ''}"
            raise self.provider._error(detail.strip(), "see the agent's own log for details")
        text = reply_text(record, "".join(self.streamed))
        if text:
            yield StreamChunk(text=("\n\n" if self.streamed else "") + text)
        yield StreamChunk(finish_reason="stop")

    def _failure(self, exc: ResultLogError, returncode: int | None) -> ProviderError:
        detail = f"{exc.code.value}: {exc.message}"
        if returncode:
            detail += f" (exit status {returncode})"
        tail = bytes(self.stderr).decode("utf-8", "replace").strip()
        if tail:
            detail += f"; stderr: {tail[-500:]}"
        hint = HINTS.get(exc.code.value, "check the command's output format")
        return self.provider._error(detail, hint)


def reply_text(record: ResultRecord, streamed: str) -> str:
    """The text the result adds to what was streamed: the plan, or a result not yet shown."""
    result = (record.result or "").strip()
    if record.subtype == "plan_mode":
        return f"Plan (proposed, nothing applied):\n{result}\n"
    if not result or streamed.strip().endswith(result):
        return ""
    return result


def assistant_texts(line: str) -> list[str]:
    """Text blocks of an assistant message in one stream-json line (none for other lines)."""
    start = line.find("{")
    if start < 0 or '"assistant"' not in line:
        return []
    try:
        event: Any = json.loads(line[start:])
    except json.JSONDecodeError:
        return []
    if not isinstance(event, dict) or event.get("type") != "assistant":
        return []
    content = (event.get("message") or {}).get("content")
    if not isinstance(content, list):
        return []
    return [
        str(block["text"])
        for block in content
        if isinstance(block, dict) and block.get("type") == "text" and block.get("text")
    ]


async def _feed(process: asyncio.subprocess.Process, data: bytes) -> None:
    assert process.stdin is not None
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        process.stdin.write(data)
        await process.stdin.drain()
    process.stdin.close()


async def _kill_group(process: asyncio.subprocess.Process) -> None:
    """End the command's whole process group: SIGTERM, then SIGKILL after a grace period."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, sig)
        try:
            async with asyncio.timeout(KILL_GRACE):
                await process.wait()
            if sig == signal.SIGTERM:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(process.pid, signal.SIGKILL)  # children that ignored SIGTERM
            return
        except TimeoutError:
            continue
