"""A credential never leaves the process in any of the forms it takes on its way out.

`baseUrl` with user-info: the HTTP client turns `user:password` into an `Authorization:
Basic <base64>` header, and a provider that rejects it may repeat it in its error (the fake
LLM's `echo_headers`). The real server, `agent-ls acp` and `agent-ls chat` / `doctor` are
run against such a provider, with a percent-encoded password and a bearer key in the
environment too; every byte sent to the client, stderr at DEBUG, the CLI's output and the
error texts are searched for the password (as written and decoded), `user:password` and its
base64.

`indexUrl` as a libpq key=value string, with `?password=`, or malformed with user-info: the
CLI prints one line naming the setting, never the password nor a traceback.
"""

from __future__ import annotations

import base64
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from acp import PROTOCOL_VERSION, RequestError, spawn_agent_process, text_block
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import client_capabilities, make_test_lsp_client

from server.protocol import AGENT_CHAT, AGENT_STATUS
from tests.e2e.conversations import seed_project
from tests.e2e.test_acp import RecordingClient
from tests.e2e.test_providers_secrets import AGENT_LS, Entry, environment
from tests.fakellm import FakeLLM

KEY = "sk-live-2b7d9e1f3a5c7e9b1d3f5a7c"
USER, WRITTEN, DECODED = "agent", "s3cr%40t-Pw7", "s3cr@t-Pw7"
PAIR = f"{USER}:{DECODED}"
BASIC = base64.b64encode(PAIR.encode()).decode()
NEEDLES = (KEY, WRITTEN, DECODED, PAIR, f"{USER}:{WRITTEN}", BASIC)
ECHO = {"replies": [{"status": 401, "echo_headers": ["authorization"]}]}
ENV = {"AGENT_LS_API_KEY": KEY}


def url_with_userinfo(llm: FakeLLM) -> str:
    return llm.base_url_openai.replace("http://", f"http://{USER}:{WRITTEN}@")


def leaks(outputs: dict[str, bytes]) -> list[str]:
    return [
        f"{where}: {needle!r}"
        for where, data in outputs.items()
        for needle in NEEDLES
        if needle.encode() in data
    ]


async def test_the_language_server_masks_an_echoed_basic_header(tmp_path: Path) -> None:
    workspace = seed_project(tmp_path / "ws")
    out, err = tmp_path / "lsp.stdout", tmp_path / "lsp.stderr"
    tee = f'exec "$0" -m server --log-level DEBUG 2>{shlex.quote(str(err))}'
    tee += f" | tee {shlex.quote(str(out))}"
    client = make_test_lsp_client()
    errors: list[str] = []
    with FakeLLM(ECHO) as llm:
        await client.start_io(
            "sh", "-c", tee, sys.executable, env=environment(tmp_path, Entry(), ENV)
        )
        settings = {"provider": "openai", "baseUrl": url_with_userinfo(llm), "model": "m"}
        await client.initialize_session(
            types.InitializeParams(
                capabilities=client_capabilities("visual-studio-code"),
                root_uri=workspace.as_uri(),
                workspace_folders=[types.WorkspaceFolder(uri=workspace.as_uri(), name="ws")],
                initialization_options={"agentLs": settings},
            )
        )
        with pytest.raises(JsonRpcException) as failure:
            await client.protocol.send_request_async(AGENT_CHAT, {"message": "go"})
        errors.append(str(failure.value))
        status = await client.protocol.send_request_async(AGENT_STATUS, None)
        errors.append(repr(status))
        await client.shutdown_session()
        sent = [r.headers["authorization"] for r in llm.requests if r.method == "POST"]
    assert sent == [f"Basic {BASIC}", f"Basic {BASIC}"]  # the chat and the status check
    assert "HTTP 401" in errors[0]
    assert "you sent authorization: Basic ***" in errors[0]  # echoed, and masked
    assert "you sent authorization: Basic ***" in errors[1]
    outputs = {"sent to the client": out.read_bytes(), "stderr": err.read_bytes()}
    outputs["errors and status"] = "\n".join(errors).encode()
    assert b"agent-ls DEBUG" in outputs["stderr"]
    assert not leaks(outputs), leaks(outputs)


@pytest.mark.parametrize("command", ["chat", "doctor"])
def test_the_cli_masks_an_echoed_basic_header(tmp_path: Path, command: str) -> None:
    seed_project(tmp_path / "ws")
    with FakeLLM(ECHO) as llm:
        rest = ["go"] if command == "chat" else []
        flags = ["--provider", "openai", "--model", "m", "--base-url", url_with_userinfo(llm)]
        where = ["--workspace", str(tmp_path / "ws")]
        done = subprocess.run(
            [AGENT_LS, "--log-level", "DEBUG", command, *where, *flags, *rest],
            env=environment(tmp_path, Entry(), ENV),
            capture_output=True,
            timeout=120,
        )
        assert [r.headers["authorization"] for r in llm.requests] == [f"Basic {BASIC}"]
    assert done.returncode == 1
    assert b"you sent authorization: Basic ***" in done.stdout + done.stderr
    assert b"Traceback" not in done.stderr
    assert not leaks({"stdout": done.stdout, "stderr": done.stderr})


async def test_the_acp_front_end_masks_an_echoed_basic_header(tmp_path: Path) -> None:
    root = seed_project(tmp_path / "ws")
    out = tmp_path / "acp.stdout"
    tee = f'"$0" -m server --log-level DEBUG acp | tee {shlex.quote(str(out))}'
    with FakeLLM(ECHO) as llm:
        env = environment(tmp_path, Entry(), {**ENV, "AGENT_LS_BASE_URL": url_with_userinfo(llm)})
        env["AGENT_LS_MODEL"] = "m"
        async with spawn_agent_process(
            RecordingClient(), "sh", "-c", tee, sys.executable, env=env
        ) as (conn, process):
            await conn.initialize(protocol_version=PROTOCOL_VERSION)
            session = await conn.new_session(cwd=str(root))
            with pytest.raises(RequestError) as failure:
                await conn.prompt(session_id=session.session_id, prompt=[text_block("go")])
            process.terminate()
        sent = [r.headers["authorization"] for r in llm.requests if r.method == "POST"]
    assert sent == [f"Basic {BASIC}"]
    assert "you sent authorization: Basic ***" in str(failure.value)
    outputs = {"sent to the ACP client": out.read_bytes(), "error": str(failure.value).encode()}
    assert not leaks(outputs), leaks(outputs)


SECRET = "Kv9-team-index-pw"
INDEX_URLS = {
    "libpq key=value": f"host=127.0.0.1 port=1 user=alice password={SECRET} dbname=team",
    "libpq quoted": f"host=127.0.0.1 password='{SECRET} x' dbname=team",
    "malformed with user-info": f"postgresql://alice:{SECRET}@[::1/team",
    "port out of range": f"postgresql://alice:{SECRET}@127.0.0.1:99999/team",
    "password in the query": f"postgresql://alice@127.0.0.1:1/team?password={SECRET}",
}


@pytest.mark.parametrize("where", ["environment", "flag"])
@pytest.mark.parametrize("name", list(INDEX_URLS))
def test_an_index_url_never_shows_its_password(tmp_path: Path, name: str, where: str) -> None:
    url = INDEX_URLS[name]
    extra = {"AGENT_LS_INDEX_URL": url} if where == "environment" else {}
    flag = ["--index-url", url] if where == "flag" else []
    done = subprocess.run(
        [AGENT_LS, "index", "--workspace", str(tmp_path), *flag],
        env=environment(tmp_path, Entry(), extra),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr  # one line, no traceback
    assert lines[0].startswith("agent-ls: ")
    if name != "password in the query":  # well formed: it fails when connecting
        assert "agentLs.indexUrl" in lines[0]
    assert SECRET not in done.stdout + done.stderr
