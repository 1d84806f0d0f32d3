"""The API key never leaves the process, whatever form it enters in.

For each entry form (AGENT_LS_API_KEY with a trailing CR or CRLF, OPENAI_API_KEY named by
apiKeyEnv in the settings, ANTHROPIC_API_KEY, a key broken by an inner line break, a key in
the user-info of baseUrl from the settings, the command line or the environment) the real
server (over stdio, its stdout teed to a file) and `agent-ls chat` / `doctor` run a
successful plan (a checkpoint is written), a 503, a 401, a malformed stream event and a
reset mid-reply, and agent/status is asked. Then every output is searched for the key and its
pieces: every byte the server sent the client, its stderr at DEBUG (tracebacks included),
the CLI's stdout and stderr, and the checkpoint store (files and git objects) under a
temporary XDG_CACHE_HOME.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import client_capabilities, make_test_lsp_client

from server.protocol import AGENT_CHAT, AGENT_STATUS
from tests.e2e.conftest import EditorModel
from tests.e2e.conversations import FULL_CONVERSATION, seed_project
from tests.fakellm import FakeLLM
from tests.unit.providers.test_malformed_events import ANTHROPIC, OPENAI

KEY = "sk-live-7c1f3a9e5b2d4086a1e3c5f7"
NEEDLES = (KEY, KEY[:12], KEY[12:])  # the key, and its pieces around an inner line break
AGENT_LS = str(Path(sys.executable).with_name("agent-ls"))


@dataclass(frozen=True)
class Entry:
    """One way the key enters: environment, settings (LSP), flags (CLI)."""

    provider: str = "openai"
    env: dict[str, str] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)
    userinfo: str = ""  # "settings" / "flag" / "env": the key goes into baseUrl's user-info
    invalid: bool = False  # the key cannot be used: every chat fails with a clear error
    header: str = "authorization"


ENTRIES = {
    "env-cr": Entry(env={"AGENT_LS_API_KEY": KEY + "\r"}),
    "env-crlf": Entry(env={"AGENT_LS_API_KEY": KEY + "\r\n"}),
    "apiKeyEnv-OPENAI_API_KEY": Entry(
        env={"OPENAI_API_KEY": f" {KEY}\n"}, settings={"apiKeyEnv": "OPENAI_API_KEY"}
    ),
    "ANTHROPIC_API_KEY": Entry("anthropic", {"ANTHROPIC_API_KEY": KEY + "\r"}, header="x-api-key"),
    "inner-line-break": Entry(env={"AGENT_LS_API_KEY": KEY[:12] + "\n" + KEY[12:]}, invalid=True),
    "baseUrl-settings": Entry(userinfo="settings"),
    "baseUrl-flag": Entry(userinfo="flag"),
    "baseUrl-env": Entry(userinfo="env"),
}
LSP_ENTRIES = [k for k, e in ENTRIES.items() if e.userinfo not in ("flag", "env")]
CLI_ENTRIES = [k for k, e in ENTRIES.items() if e.userinfo != "settings" and not e.settings]


def base_url(llm: FakeLLM, entry: Entry) -> str:
    url = llm.base_url_openai if entry.provider == "openai" else llm.url
    if entry.userinfo:
        url = url.replace("http://", f"http://agent:{KEY}@")
    return url


def fault_replies(provider: str) -> list[list[Any]]:
    """The failing conversations: 503 forever, 401, a malformed event, a reset mid-reply."""
    bad = OPENAI["content-number"][0] if provider == "openai" else ANTHROPIC["text-number"][0]
    reset = {"content": "a partial answer, long enough", "fault": "reset_mid_stream"}
    return [[{"status": 503, "retry_after": 0}], [{"status": 401}], [{"events": [bad]}], [reset]]


def environment(tmp_path: Path, entry: Entry, extra: dict[str, str]) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("AGENT_LS_", "ANTHROPIC_", "OPENAI_"))
    }
    env.update(XDG_CACHE_HOME=str(tmp_path / "cache"), AGENT_LS_PROBE_LOCAL="off")
    env.update(AGENT_LS_PROBE_OLLAMA_URL="off", AGENT_LS_PROBE_OPENAI_URL="off")
    return {**env, **entry.env, **extra}


def store_texts(cache: Path) -> Iterator[tuple[str, bytes]]:
    """Every file under the cache, and every git object of every store in it."""
    for path in sorted(cache.rglob("*")):
        if path.is_file():
            yield str(path), path.read_bytes()
        if path.is_dir() and (path / "objects").is_dir() and (path / "HEAD").is_file():
            dump = subprocess.run(
                ["git", f"--git-dir={path}", "cat-file", "--batch-all-objects", "--batch"],
                capture_output=True,
                check=True,
            )
            yield f"{path} (git objects)", dump.stdout


def assert_no_key(outputs: dict[str, bytes]) -> None:
    leaks = [
        f"{where}: {needle!r}"
        for where, data in outputs.items()
        for needle in NEEDLES
        if needle.encode() in data
    ]
    assert not leaks, "the key leaked into: " + "; ".join(leaks)


def assert_key_was_usable(llm: FakeLLM, entry: Entry) -> None:
    """The key reached the fake LLM cleaned (stripped), so the leak test tested a used key."""
    headers = [r.headers for r in llm.requests if r.method == "POST"]
    assert headers
    if entry.userinfo:
        assert all(h["authorization"].startswith("Basic ") for h in headers)
    elif entry.header == "authorization":
        assert all(h["authorization"] == f"Bearer {KEY}" for h in headers)
    else:
        assert all(h["x-api-key"] == KEY for h in headers)


async def run_lsp(llm: FakeLLM, tmp_path: Path, entry: Entry) -> tuple[dict[str, bytes], list[str]]:
    workspace = seed_project(tmp_path / "ws")
    out, err = tmp_path / "lsp.stdout", tmp_path / "lsp.stderr"
    tee = f'exec "$0" -m server --log-level DEBUG 2>{shlex.quote(str(err))}'
    tee += f" | tee {shlex.quote(str(out))}"
    client = make_test_lsp_client()
    editor = EditorModel(client)

    def on_apply_edit(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        return editor.on_apply_edit(params)

    client.feature(types.WORKSPACE_APPLY_EDIT)(on_apply_edit)
    env = environment(tmp_path, entry, {})
    await client.start_io("sh", "-c", tee, sys.executable, env=env)
    settings = {
        "provider": entry.provider,
        "baseUrl": base_url(llm, entry),
        "model": "m",
        "maxRetries": 1,
        **entry.settings,
    }
    await client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=workspace.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=workspace.as_uri(), name="ws")],
            initialization_options={"agentLs": settings},
        )
    )
    errors: list[str] = []
    for replies in [FULL_CONVERSATION, *fault_replies(entry.provider)]:
        llm.set_script({"replies": replies})
        try:
            await client.protocol.send_request_async(AGENT_CHAT, {"message": "go"})
        except JsonRpcException as failure:
            errors.append(f"{failure} {failure.data}")
    status = await client.protocol.send_request_async(AGENT_STATUS, None)
    errors.append(repr(status))
    await client.shutdown_session()
    outputs = {"LSP stdout (all sent to the client)": out.read_bytes(), "stderr": err.read_bytes()}
    outputs["client-visible errors and status"] = "\n".join(errors).encode()
    return outputs, errors


@pytest.mark.parametrize("name", LSP_ENTRIES)
async def test_the_language_server_never_shows_the_key(tmp_path: Path, name: str) -> None:
    entry = ENTRIES[name]
    with FakeLLM({}) as llm:
        outputs, errors = await run_lsp(llm, tmp_path, entry)
        if entry.invalid:
            assert all("AGENT_LS_API_KEY contains a control character" in e for e in errors[:5])
            assert not [r for r in llm.requests if r.method == "POST"]
        else:
            assert len(errors) == 5  # four failed chats and the status; the plan succeeded
            assert "503" in errors[0]
            assert "401" in errors[1]
            assert "malformed stream event" in errors[2]
            assert "closed the connection" in errors[3]
            assert_key_was_usable(llm, entry)
    assert b"Traceback" in outputs["stderr"] or entry.invalid  # tracebacks were searched too
    assert list((tmp_path / "cache").rglob("*")) or entry.invalid  # a checkpoint was stored
    for where, data in store_texts(tmp_path / "cache"):
        outputs[where] = data
    assert_no_key(outputs)


def cli(
    tmp_path: Path, entry: Entry, llm: FakeLLM, command: str, *rest: str
) -> subprocess.CompletedProcess[bytes]:
    flags = ["--provider", entry.provider, "--model", "m"]
    extra: dict[str, str] = {}
    if entry.userinfo == "env":
        extra["AGENT_LS_BASE_URL"] = base_url(llm, entry)
    else:
        flags += ["--base-url", base_url(llm, entry)]
    workspace = str(tmp_path / "ws")
    return subprocess.run(
        [AGENT_LS, "--log-level", "DEBUG", command, "--workspace", workspace, *flags, *rest],
        env=environment(tmp_path, entry, extra),
        capture_output=True,
        timeout=120,
    )


@pytest.mark.parametrize("name", CLI_ENTRIES)
def test_the_cli_never_shows_the_key(tmp_path: Path, name: str) -> None:
    entry = ENTRIES[name]
    seed_project(tmp_path / "ws")
    outputs: dict[str, bytes] = {}
    with FakeLLM({}) as llm:
        codes = []
        for i, replies in enumerate([FULL_CONVERSATION, *fault_replies(entry.provider)]):
            llm.set_script({"replies": replies})
            done = cli(tmp_path, entry, llm, "chat", "go")
            codes.append(done.returncode)
            outputs[f"chat {i} stdout"], outputs[f"chat {i} stderr"] = done.stdout, done.stderr
        llm.set_script({"replies": ["pong"]})
        doctor = cli(tmp_path, entry, llm, "doctor")
        outputs["doctor stdout"], outputs["doctor stderr"] = doctor.stdout, doctor.stderr
        if entry.invalid:
            assert codes == [1] * 5
            assert b"AGENT_LS_API_KEY contains a control character" in outputs["chat 0 stderr"]
        else:
            assert codes == [0, 1, 1, 1, 1], outputs
            assert_key_was_usable(llm, entry)
    for where, data in store_texts(tmp_path / "cache"):
        outputs[where] = data
    assert_no_key(outputs)
