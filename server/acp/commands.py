"""`run_command` over ACP: consent through `session/request_permission` (Run / Always allow /
Deny on the `execute` tool call already announced), and, when the client offers terminals,
the line run in the client's terminal (`terminal/create`, `terminal/wait_for_exit`,
`terminal/output`, `terminal/kill`, `terminal/release`) so the user watches it in the editor.

A client terminal runs with the client's environment: the credential variables agent-ls
keeps from commands are set empty there (ACP cannot unset a variable).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import Callable, Mapping
from typing import Any

from acp import update_tool_call
from acp.helpers import text_block, tool_content
from acp.schema import EnvVariable, PermissionOption, TerminalToolCallContent, ToolCallUpdate

from actions.shell.output import CappedOutput
from actions.shell.runner import CommandRun
from actions.tools.run_command import NAME, CommandRequest, Consent, Runner
from server.acp.updates import UpdateSink

OPTIONS = [
    PermissionOption(option_id="run", name="Run", kind="allow_once"),
    PermissionOption(option_id="always", name="Always allow", kind="allow_always"),
    PermissionOption(option_id="deny", name="Deny", kind="reject_once"),
]
ANSWERS = {"run": Consent.RUN, "always": Consent.ALWAYS, "deny": Consent.DENY}
OUTPUT_LIMIT = 1 << 20  # bytes the client keeps (it drops the oldest first)


class AcpCommandGate:
    """Asks the client about the `run_command` tool call in progress."""

    def __init__(self, client: Any, session_id: str, sink: UpdateSink) -> None:
        self.client = client
        self.session_id = session_id
        self.sink = sink

    async def ask(self, request: CommandRequest) -> Consent:
        await self.sink.drain()  # the tool call is announced before the request names it
        call = ToolCallUpdate(
            tool_call_id=self.sink.running(NAME) or self.sink.next_id("command"),
            title=f"Run: {request.command}"[:200],
            kind="execute",
            status="pending",
            content=[tool_content(text_block(f"$ {request.command}\n(in {request.cwd})"))],
            raw_input={"command": request.command, "cwd": str(request.cwd)},
        )
        return await ask_permission(self.client, self.session_id, call)


async def ask_permission(client: Any, session_id: str, call: ToolCallUpdate) -> Consent:
    """`session/request_permission` with Run / Always allow / Deny; cancelled is Deny."""
    response = await client.request_permission(
        session_id=session_id, tool_call=call, options=OPTIONS
    )
    if getattr(response.outcome, "outcome", None) != "selected":
        return Consent.DENY  # cancelled
    return ANSWERS.get(getattr(response.outcome, "option_id", ""), Consent.DENY)


def terminal_runner(client: Any, session_id: str, sink: UpdateSink) -> Runner:
    """Runs a line in the client's terminal, shown in the tool call; the same limits."""

    async def run(
        request: CommandRequest, env: Mapping[str, str], on_output: Callable[[str], None]
    ) -> CommandRun:
        started = time.monotonic()
        emptied = [EnvVariable(name=name, value="") for name in os.environ if name not in env]
        created = await client.create_terminal(
            session_id=session_id,
            command="/bin/sh",
            args=["-c", request.command],
            cwd=str(request.cwd),
            env=emptied,
            output_byte_limit=OUTPUT_LIMIT,
        )
        terminal = created.terminal_id
        call_id = sink.running(NAME)
        if call_id is not None:
            content = TerminalToolCallContent(type="terminal", terminal_id=terminal)
            sink.send(update_tool_call(call_id, content=[content]))
        timed_out = False
        exit_code: int | None = None
        try:
            try:
                done = await asyncio.wait_for(
                    client.wait_for_terminal_exit(session_id=session_id, terminal_id=terminal),
                    request.timeout,
                )
                exit_code = done.exit_code if done.exit_code is not None else -1
            except TimeoutError:
                timed_out = True
                await client.kill_terminal(session_id=session_id, terminal_id=terminal)
            shown = await client.terminal_output(session_id=session_id, terminal_id=terminal)
        finally:
            with contextlib.suppress(Exception):
                await asyncio.shield(
                    client.release_terminal(session_id=session_id, terminal_id=terminal)
                )
        output = CappedOutput()
        output.feed(shown.output.encode("utf-8", "replace"))
        text = output.text()
        if shown.truncated:
            text = "[... the terminal kept only the end of the output ...]\n" + text
        return CommandRun(
            command=request.command,
            cwd=request.cwd,
            exit_code=None if timed_out else exit_code,
            seconds=time.monotonic() - started,
            timed_out=timed_out,
            output=text,
            output_cut=output.cut or shown.truncated,
            output_bytes=output.total_bytes,
        )

    return run
