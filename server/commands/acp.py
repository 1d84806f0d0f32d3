"""`agent-ls acp`: serve the Agent Client Protocol over stdio (Zed, JetBrains, Emacs
agent-shell, Neovim CodeCompanion / avante host agents this way).

Like `serve`, only protocol messages reach the real stdout: fd 1 is duplicated for ACP and
then pointed at stderr, so a stray print or a child process cannot corrupt the stream.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any, BinaryIO

from server.redact import redact_bytes
from server.stdio import protocol_stdout


class RedactingStreamWriter(asyncio.StreamWriter):
    """Every ACP message passes the secret mask on its way out (server/redact.py), as the
    LSP server's do; a message is one write, and the mask keeps its length."""

    def write(self, data: bytes | bytearray | memoryview) -> None:
        super().write(redact_bytes(bytes(data)))


def register(sub: Any) -> None:
    parser = sub.add_parser("acp", help="speak the Agent Client Protocol over stdio")
    parser.set_defaults(func=run)


async def serve_acp(stdin: BinaryIO, stdout: BinaryIO) -> None:
    from acp import AgentSideConnection
    from acp.core import DEFAULT_STDIO_BUFFER_LIMIT_BYTES

    from server.acp.agent import AgentLsAcp

    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=DEFAULT_STDIO_BUFFER_LIMIT_BYTES)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), stdin)
    # A StreamReaderProtocol is the public asyncio protocol with write flow control (drain).
    protocol = asyncio.StreamReaderProtocol(asyncio.StreamReader())
    transport, _ = await loop.connect_write_pipe(lambda: protocol, stdout)
    writer = RedactingStreamWriter(transport, protocol, None, loop)
    agent = AgentLsAcp()
    connection = AgentSideConnection(agent, writer, reader, listening=False)
    try:
        await connection.listen()
    finally:
        await asyncio.shield(agent.close())  # every MCP server stopped
        await asyncio.shield(connection.close())


def run(args: argparse.Namespace) -> int:
    stdout = protocol_stdout()
    try:
        asyncio.run(serve_acp(sys.stdin.buffer, stdout))
    except KeyboardInterrupt:
        return 130
    return 0
