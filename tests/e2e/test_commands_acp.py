"""`run_command` over ACP with the official SDK's client side: session/request_permission
with Run (allow_once) / Always allow (allow_always) / Deny (reject_once) on the `execute`
tool call announced before it; and, when the client offers terminals, the command run in the
client's terminal (terminal/create ... release), shown in the tool call."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION, spawn_agent_process, text_block
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    CreateTerminalResponse,
    FileSystemCapabilities,
    ReleaseTerminalResponse,
    RequestPermissionResponse,
    TerminalOutputResponse,
    WaitForTerminalExitResponse,
)

from tests.e2e.conversations import doc, tool
from tests.e2e.test_acp import RecordingClient, agent_env
from tests.fakellm import FakeLLM, last_user_message


def answer(text: str) -> str:
    return doc(action="text_response", text_response=text)


class CommandClient(RecordingClient):
    """Answers permission requests by option kind; runs terminals as real processes."""

    def __init__(self, kinds: list[str]) -> None:
        super().__init__()
        self.kinds_to_pick = list(kinds)
        self.options: list[list[Any]] = []
        self.terminals: dict[str, tuple[asyncio.subprocess.Process, bytearray]] = {}
        self.created: list[dict[str, Any]] = []
        self.released: list[str] = []
        self.pumps: list[asyncio.Future[None]] = []

    async def request_permission(
        self, session_id: str, tool_call: Any, options: list[Any], **kwargs: Any
    ) -> RequestPermissionResponse:
        self.permissions.append(tool_call)
        self.options.append(options)
        kind = self.kinds_to_pick.pop(0)
        option = next(o for o in options if o.kind == kind)
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=option.option_id)
        )

    async def create_terminal(
        self,
        session_id: str,
        command: str,
        args: list[str] | None = None,
        env: Any = None,
        cwd: str | None = None,
        output_byte_limit: int | None = None,
        **kwargs: Any,
    ) -> CreateTerminalResponse:
        self.created.append({"command": command, "args": args, "cwd": cwd, "env": env})
        variables = {v.name: v.value for v in env or []}
        process = await asyncio.create_subprocess_exec(
            command,
            *(args or []),
            cwd=cwd,
            env={**_environ(), **variables},
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )
        buffer = bytearray()
        terminal_id = f"term-{len(self.terminals) + 1}"
        self.terminals[terminal_id] = (process, buffer)

        async def pump() -> None:
            assert process.stdout is not None
            while chunk := await process.stdout.read(4096):
                buffer.extend(chunk)

        self.pumps.append(asyncio.ensure_future(pump()))
        return CreateTerminalResponse(terminal_id=terminal_id)

    async def wait_for_terminal_exit(
        self, session_id: str, terminal_id: str, **kwargs: Any
    ) -> WaitForTerminalExitResponse:
        process, _ = self.terminals[terminal_id]
        code = await process.wait()
        return WaitForTerminalExitResponse(exit_code=code if code >= 0 else None)

    async def terminal_output(
        self, session_id: str, terminal_id: str, **kwargs: Any
    ) -> TerminalOutputResponse:
        _, buffer = self.terminals[terminal_id]
        await asyncio.sleep(0.1)  # the pump's last chunk
        return TerminalOutputResponse(output=buffer.decode(), truncated=False)

    async def kill_terminal(self, session_id: str, terminal_id: str, **kwargs: Any) -> None:
        self.terminals[terminal_id][0].kill()

    async def release_terminal(
        self, session_id: str, terminal_id: str, **kwargs: Any
    ) -> ReleaseTerminalResponse:
        self.released.append(terminal_id)
        return ReleaseTerminalResponse()


def _environ() -> dict[str, str]:
    import os

    return dict(os.environ)


@asynccontextmanager
async def agent(
    llm: FakeLLM, client: RecordingClient, *, terminal: bool = False, **env: str
) -> AsyncIterator[Any]:
    async with spawn_agent_process(
        client, sys.executable, "-m", "server", "acp", env=agent_env(llm, **env)
    ) as (conn, process):
        capabilities = ClientCapabilities(
            fs=FileSystemCapabilities(read_text_file=False, write_text_file=False),
            terminal=terminal,
        )
        await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=capabilities)
        yield conn
        process.terminate()


async def prompt(conn: Any, root: Path, text: str, session_id: str | None = None) -> str:
    if session_id is None:
        session_id = (await conn.new_session(cwd=str(root))).session_id
    response = await conn.prompt(session_id=session_id, prompt=[text_block(text)])
    assert response.stop_reason == "end_turn"
    return session_id


def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "app.py").write_text("print('hi')\n")
    return root


async def test_the_permission_request_names_the_announced_execute_call(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    client = CommandClient(["reject_once"])
    script = {"replies": [tool("run_command", command="touch made.txt"), answer("ok")]}
    with FakeLLM(script) as llm:
        async with agent(llm, client) as conn:
            await prompt(conn, root, "make a file")
        sent = last_user_message(llm.requests[-1])
    assert not (root / "made.txt").exists()
    assert "do not run the same command again" in sent
    (request,) = client.permissions
    assert request.kind == "execute"
    assert "touch made.txt" in request.title
    announced = [u for u in client.updates if u.session_update == "tool_call"]
    assert request.tool_call_id in [u.tool_call_id for u in announced]
    assert [(o.name, o.kind) for o in client.options[0]] == [
        ("Run", "allow_once"),
        ("Always allow", "allow_always"),
        ("Deny", "reject_once"),
    ]


async def test_always_allow_runs_and_the_next_identical_call_does_not_ask(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    client = CommandClient(["allow_always"])
    line = "echo x >> log.txt; echo ran"
    replies = [tool("run_command", command=line), answer("one")] * 2
    with FakeLLM({"replies": replies}) as llm:
        async with agent(llm, client) as conn:
            session = await prompt(conn, root, "once")
            await prompt(conn, root, "again", session)
        sent = last_user_message(llm.requests[-1])
    assert len(client.permissions) == 1
    assert (root / "log.txt").read_text() == "x\nx\n"
    assert "exit code 0" in sent


async def test_with_a_terminal_the_command_runs_in_the_client_terminal(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    client = CommandClient(["allow_once"])
    line = "echo in-terminal; exit 5"
    key = "sk-terminal-1a2b3c4d5e6f"
    script = {"replies": [tool("run_command", command=line), answer("ok")]}
    with FakeLLM(script) as llm:
        async with agent(llm, client, terminal=True, AGENT_LS_API_KEY=key) as conn:
            await prompt(conn, root, "run it")
        sent = last_user_message(llm.requests[-1])
    (created,) = client.created
    assert created["command"] == "/bin/sh"
    assert created["args"] == ["-c", line]
    assert created["cwd"] == str(root)
    emptied = {v.name: v.value for v in created["env"]}
    assert emptied["AGENT_LS_API_KEY"] == ""
    assert client.released == ["term-1"]
    assert "in-terminal" in sent
    assert "exit code 5" in sent
    shown = [
        c
        for u in client.updates
        if u.session_update == "tool_call_update"
        for c in (u.content or [])
        if getattr(c, "type", "") == "terminal"
    ]
    assert [c.terminal_id for c in shown] == ["term-1"]
