"""A malformed URL setting is found when the settings are loaded: the editor is told which
setting is wrong (RequestFailed naming it, never an InternalError; for indexUrl, by the
search and the index status), the CLI prints one `agent-ls: ...` line (never a traceback)
and stops with exit status 2."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.lsp.client import LanguageClient

from server.protocol import AGENT_CHAT, AGENT_STATUS
from tests.e2e.search_support import running_server, search, status

AGENT_LS = str(Path(sys.executable).parent / "agent-ls")
REQUEST_FAILED = -32803
BAD_BASE_URLS = {
    "port out of range": ("http://127.0.0.1:99999/v1", "its port 99999 is out of range (0-65535)"),
    "broken IPv6 host": ("http://[::1/v1", "its IPv6 host has no closing ']'"),
    "not http": ("ftp://127.0.0.1/v1", "the scheme is 'ftp'"),
}


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENT_LS_")}
    env.update(AGENT_LS_PROBE_OLLAMA_URL="off", AGENT_LS_PROBE_OPENAI_URL="off")
    return {**env, "AGENT_LS_PROBE_LOCAL": "off", **extra}


@pytest.mark.parametrize("name", list(BAD_BASE_URLS))
async def test_chat_and_status_name_the_bad_base_url(tmp_path: Path, name: str) -> None:
    url, problem = BAD_BASE_URLS[name]
    shown: list[str] = []
    client = LanguageClient("bad-urls-test", "0")
    client.feature("workspace/configuration")(lambda params: [None])
    client.feature("agent/chatProgress")(lambda params: None)
    client.feature(types.WINDOW_SHOW_MESSAGE)(lambda params: shown.append(params.message))
    await client.start_io(sys.executable, "-m", "server", env=clean_env())
    await client.initialize_async(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(),
            initialization_options={"agentLs": {"baseUrl": url, "model": "m"}},
            workspace_folders=[types.WorkspaceFolder(uri=tmp_path.as_uri(), name="ws")],
        )
    )
    client.initialized(types.InitializedParams())
    failures = []
    try:
        for method, params in ((AGENT_CHAT, {"message": "hi"}), (AGENT_STATUS, None)):
            with pytest.raises(JsonRpcException) as failure:
                await client.protocol.send_request_async(method, params)
            failures.append(failure.value)
    finally:
        await client.shutdown_async(None)
        client.exit(None)
        await client.stop()
    for failure in failures:
        assert failure.code == REQUEST_FAILED, failure
        assert "agentLs.baseUrl (from initializationOptions)" in str(failure)
        assert problem in str(failure)
    assert any("agentLs.baseUrl" in message and problem in message for message in shown)


@pytest.mark.parametrize("command", ["chat", "doctor"])
@pytest.mark.parametrize("name", list(BAD_BASE_URLS))
@pytest.mark.parametrize("where", ["flag", "environment"])
def test_the_cli_prints_one_line_naming_the_bad_base_url(
    tmp_path: Path, command: str, name: str, where: str
) -> None:
    url, problem = BAD_BASE_URLS[name]
    args = [AGENT_LS, command, "--workspace", str(tmp_path)]
    args += ["--base-url", url] if where == "flag" else []
    args += ["hi"] if command == "chat" else []
    extra = {"AGENT_LS_BASE_URL": url} if where == "environment" else {}
    done = subprocess.run(args, env=clean_env(**extra), capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    source = "command line" if where == "flag" else "environment"
    assert done.stderr.splitlines() == [
        f"agent-ls: setting agentLs.baseUrl (from {source}): expected an http:// or https:// "
        f"URL ({problem}), got {url!r}; it is not used."
    ]


async def test_search_and_status_name_a_malformed_index_url(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A\n\nText.\n")
    url = "postgresql://alice:Kv9-index-pw@[::1/team"
    async with running_server(tmp_path, {"indexUrl": url}, env=clean_env()) as (client, _):
        with pytest.raises(JsonRpcException) as failure:
            await search(client, "text")
        index = (await status(client))["index"]
    message = "agentLs.indexUrl (from initializationOptions)"
    assert failure.value.code == REQUEST_FAILED
    assert message in str(failure.value)
    assert "its IPv6 host has no closing ']'" in str(failure.value)
    assert index["state"] == "unavailable"
    assert message in index["error"]
    assert "Kv9-index-pw" not in str(failure.value) + index["error"]
