"""`agent-ls acp` driven by the official ACP SDK's client side (a client we did not write),
against the fake LLM: prompt -> tools -> a plan of several files -> answer, streamed updates,
files on disk, cancel mid-plan rolls back, undo, and `session/load` after a restart."""

from __future__ import annotations

import asyncio
import os
import shlex
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from acp import PROTOCOL_VERSION, RequestError, spawn_agent_process, text_block
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    FileSystemCapabilities,
    RequestPermissionResponse,
    WriteTextFileResponse,
)

from tests.e2e.conversations import (
    FULL_CONVERSATION,
    NEW_APP,
    NEW_MODULE,
    SEED_FILES,
    doc,
    fenced,
    seed_project,
    tool,
    tree,
)
from tests.fakecli import command
from tests.fakellm import FakeLLM, last_user_message


class RecordingClient:
    """An ACP client: records every session/update; optionally owns the file writes."""

    def __init__(self, root: Path | None = None) -> None:
        self.updates: list[Any] = []
        self.writes: list[str] = []
        self.changed = asyncio.Event()
        self.permissions: list[Any] = []
        self.answers: list[str] = []  # "allow" / "reject", one per permission request

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append(update)
        self.changed.set()

    async def write_text_file(
        self, session_id: str, path: str, content: str, **kwargs: Any
    ) -> WriteTextFileResponse:
        self.writes.append(path)
        Path(path).write_text(content, encoding="utf-8")
        return WriteTextFileResponse()

    async def request_permission(
        self, session_id: str, tool_call: Any, options: list[Any], **kwargs: Any
    ) -> RequestPermissionResponse:
        self.permissions.append(tool_call)
        choice = self.answers.pop(0) if self.answers else "reject"
        kind = "allow_once" if choice == "allow" else "reject_once"
        option = next(o for o in options if o.kind == kind)
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=option.option_id)
        )

    def kinds(self) -> list[str]:
        return [u.session_update for u in self.updates]

    def text(self) -> str:
        return "".join(
            u.content.text for u in self.updates if u.session_update == "agent_message_chunk"
        )

    async def wait_for(self, kind: str) -> None:
        while kind not in self.kinds():
            self.changed.clear()
            await asyncio.wait_for(self.changed.wait(), 20)


def agent_env(llm: FakeLLM, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENT_LS_")}
    env.update(AGENT_LS_BASE_URL=llm.base_url_openai, AGENT_LS_MODEL="fake", **extra)
    return env


@asynccontextmanager
async def acp_agent(
    llm: FakeLLM, client: RecordingClient, *, fs: bool = False, **env: str
) -> AsyncIterator[Any]:
    async with spawn_agent_process(
        client, sys.executable, "-m", "server", "acp", env=agent_env(llm, **env)
    ) as (conn, process):
        capabilities = ClientCapabilities(
            fs=FileSystemCapabilities(read_text_file=fs, write_text_file=fs)
        )
        init = await conn.initialize(
            protocol_version=PROTOCOL_VERSION, client_capabilities=capabilities
        )
        assert init.agent_capabilities.load_session is True
        yield conn
        process.terminate()


@pytest.mark.parametrize("client_fs", [False, True], ids=["disk", "client-fs"])
async def test_prompt_runs_tools_and_a_plan(tmp_path: Path, client_fs: bool) -> None:
    root = seed_project(tmp_path / "ws")
    client = RecordingClient()
    with FakeLLM({"replies": FULL_CONVERSATION}) as llm:
        async with acp_agent(llm, client, fs=client_fs) as conn:
            session = await conn.new_session(cwd=str(root))
            response = await conn.prompt(
                session_id=session.session_id, prompt=[text_block("Add a greeting module")]
            )
    assert response.stop_reason == "end_turn"
    assert tree(root) == {
        "src/new.py": NEW_MODULE,
        "src/app.py": NEW_APP,
        "src/util.py": SEED_FILES["src/util.py"],
    }
    kinds = client.kinds()
    assert "available_commands_update" in kinds
    tool_calls = [u for u in client.updates if u.session_update == "tool_call"]
    titles = [u.title for u in tool_calls]
    assert any(t.startswith("list_files") for t in titles)
    assert any(t.startswith("read_file") for t in titles)
    finished = [u for u in client.updates if u.session_update == "tool_call_update"]
    assert [u.status for u in finished[:2]] == ["completed", "completed"]
    edits = [u for u in tool_calls if u.kind in ("edit", "delete")]
    assert [e.title for e in edits] == ["Create src/new.py", "Edit src/app.py", "Delete old.txt"]
    diff = edits[1].content[0]
    assert diff.type == "diff"
    assert diff.old_text == SEED_FILES["src/app.py"]
    assert diff.new_text == NEW_APP
    plans = [u for u in client.updates if u.session_update == "plan"]
    assert [e.status for e in plans[-1].entries] == ["completed"] * 3
    assert "Done: greet() lives in src/new.py." in client.text()
    expected_writes = [str(root / "src/new.py"), str(root / "src/app.py")] if client_fs else []
    assert client.writes == expected_writes


async def test_cancel_mid_plan_rolls_back(tmp_path: Path) -> None:
    root = seed_project(tmp_path / "ws")
    before = tree(root)
    stalled = {"content": FULL_CONVERSATION[3], "first_byte_delay_ms": 30000}
    script = {"replies": [*FULL_CONVERSATION[:3], stalled]}
    client = RecordingClient()
    with FakeLLM(script) as llm:
        async with acp_agent(llm, client) as conn:
            session = await conn.new_session(cwd=str(root))
            turn = asyncio.ensure_future(
                conn.prompt(session_id=session.session_id, prompt=[text_block("go")])
            )
            while not (root / "src/new.py").exists():
                await client.wait_for("tool_call")
                await asyncio.sleep(0.05)
            await conn.cancel(session_id=session.session_id)
            response = await asyncio.wait_for(turn, 20)
    assert response.stop_reason == "cancelled"
    assert tree(root) == before


async def test_a_new_session_loads_in_a_new_agent_process(tmp_path: Path) -> None:
    """acpx's `sessions new` then a prompt in a new agent process: the session exists from
    session/new on, so the second process loads it (before any prompt) and prompts in it."""
    root = seed_project(tmp_path / "ws")
    script = {"replies": [doc(action="text_response", text_response="Hello there.")]}
    with FakeLLM(script) as llm:
        async with acp_agent(llm, RecordingClient()) as conn:
            session = await conn.new_session(cwd=str(root))
        second = RecordingClient()
        async with acp_agent(llm, second) as conn:
            await conn.load_session(cwd=str(root), session_id=session.session_id)
            response = await conn.prompt(session_id=session.session_id, prompt=[text_block("hi")])
    assert response.stop_reason == "end_turn"
    assert "Hello there." in second.text()
    assert last_user_message(llm.requests[-1]) == "hi"


async def test_an_unknown_session_is_resource_not_found(tmp_path: Path) -> None:
    """ACP's -32002 for an id no session has, wherever a session id is taken: clients fall
    back on it (e.g. to session/new)."""
    root = seed_project(tmp_path / "ws")
    with FakeLLM({"replies": []}) as llm:
        async with acp_agent(llm, RecordingClient()) as conn:
            calls = [
                conn.load_session(cwd=str(root), session_id="nosuchsession"),
                conn.prompt(session_id="nosuchsession", prompt=[text_block("hi")]),
                conn.ext_method("agentls/undo", {"sessionId": "nosuchsession"}),
            ]
            for call in calls:
                with pytest.raises(RequestError) as failure:
                    await call
                assert failure.value.code == -32002
                assert "unknown session 'nosuchsession'" in str(failure.value)
        assert llm.requests == []


async def test_a_cancelled_plan_writes_back_only_the_file_it_wrote(tmp_path: Path) -> None:
    """A plan of 3 files cancelled after its first: through the client's file system only
    that file is written (then restored); the two planned files not written yet get no
    fs/write_text_file at all (an unsaved buffer of theirs stays as it is)."""
    root = seed_project(tmp_path / "ws")
    before = tree(root)
    plan = fenced(
        action="start_multi_file",
        plan={"description": "Touch three files", "files_to_modify": list(SEED_FILES)},
        first_file={"action": "update_file", "file": {"path": "/src/app.py", "content": NEW_APP}},
        message="First app.py",
    )
    second = doc(
        action="continue_multi_file",
        next_file={"action": "update_file", "file": {"path": "/src/util.py", "content": "x\n"}},
        message="Then util.py",
    )
    stalled = {"content": second, "first_byte_delay_ms": 30000}
    client = RecordingClient()
    with FakeLLM({"replies": [plan, stalled]}) as llm:
        async with acp_agent(llm, client, fs=True) as conn:
            session = await conn.new_session(cwd=str(root))
            turn = asyncio.ensure_future(
                conn.prompt(session_id=session.session_id, prompt=[text_block("go")])
            )
            while not client.writes:
                await client.wait_for("tool_call")
                await asyncio.sleep(0.05)
            await conn.cancel(session_id=session.session_id)
            response = await asyncio.wait_for(turn, 20)
    assert response.stop_reason == "cancelled"
    assert tree(root) == before
    app = str(root / "src/app.py")
    assert client.writes == [app, app]  # the write, then its restore; nothing else
    assert "(1 file(s) restored)" in client.text()


async def test_undo_command_and_session_load_after_restart(tmp_path: Path) -> None:
    root = seed_project(tmp_path / "ws")
    before = tree(root)
    first = RecordingClient()
    script = {
        "replies": [*FULL_CONVERSATION, doc(action="text_response", text_response="Still here.")]
    }
    with FakeLLM(script) as llm:
        async with acp_agent(llm, first) as conn:
            session = await conn.new_session(cwd=str(root))
            await conn.prompt(session_id=session.session_id, prompt=[text_block("Add greeting")])
            undo = await conn.prompt(session_id=session.session_id, prompt=[text_block("/undo")])
            assert undo.stop_reason == "end_turn"
            assert tree(root) == before
            assert "Undid" in first.text()
            listed = await conn.ext_method("agentls/checkpoints", {"sessionId": session.session_id})
            assert "undone" in listed["text"]
        second = RecordingClient()
        async with acp_agent(llm, second) as conn:
            await conn.load_session(cwd=str(root), session_id=session.session_id)
            replayed = [u for u in second.updates if u.session_update == "user_message_chunk"]
            assert replayed[0].content.text == "Add greeting"
            await conn.prompt(session_id=session.session_id, prompt=[text_block("and now?")])
            with pytest.raises(RequestError):
                await conn.load_session(cwd=str(root), session_id="nosuchsession")
        history = llm.requests[-1].body["messages"]
    contents = [m.get("content") for m in history]
    assert any("Add greeting" in str(c) for c in contents)  # the old turn reached the model
    assert last_user_message(llm.requests[-1]) == "and now?"
    assert "Still here." in second.text()


async def test_files_the_cli_agent_writes_are_one_undoable_checkpoint(tmp_path: Path) -> None:
    """With the `cli` provider the external agent writes files itself; over ACP, as in the
    editor and the terminal, what it changed is one checkpoint that /undo reverts."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "hello.py").write_text("print('hello')\n")
    client = RecordingClient()
    cli = {
        "AGENT_LS_PROVIDER": "cli",
        "AGENT_LS_CLI_COMMAND": shlex.join(command("success")),
        "FAKECLI_EDIT": "hello.py",
    }
    with FakeLLM({"replies": []}) as llm:
        async with acp_agent(llm, client, **cli) as conn:
            session = await conn.new_session(cwd=str(root))
            response = await conn.prompt(
                session_id=session.session_id, prompt=[text_block("fix the bug")]
            )
            assert response.stop_reason == "end_turn"
            assert (root / "hello.py").read_text() == "edited by the agent\n"
            listed = await conn.ext_method("agentls/checkpoints", {"sessionId": session.session_id})
            undo = await conn.prompt(session_id=session.session_id, prompt=[text_block("/undo")])
    assert "Done: fix the bug" in client.text()
    assert "cli agent: fix the bug" in listed["text"]
    assert undo.stop_reason == "end_turn"
    assert (root / "hello.py").read_text() == "print('hello')\n"
    assert not (root / "fakecli.txt").exists()


async def test_bad_cwd_and_unknown_session_are_clear_errors(tmp_path: Path) -> None:
    client = RecordingClient()
    with FakeLLM({"replies": [tool("list_files")]}) as llm:
        async with acp_agent(llm, client) as conn:
            with pytest.raises(RequestError, match="not an absolute path"):
                await conn.new_session(cwd="relative/dir")
            with pytest.raises(RequestError, match="unknown session"):
                await conn.prompt(session_id="nope", prompt=[text_block("hi")])


async def test_review_mode_asks_permission_per_file(tmp_path: Path) -> None:
    root = seed_project(tmp_path / "ws")
    before = tree(root)
    client = RecordingClient()
    client.answers = ["allow", "reject", "reject"]
    with FakeLLM({"replies": FULL_CONVERSATION}) as llm:
        async with acp_agent(llm, client, AGENT_LS_REVIEW="on") as conn:
            session = await conn.new_session(cwd=str(root))
            response = await conn.prompt(
                session_id=session.session_id, prompt=[text_block("Add a greeting module")]
            )
    assert response.stop_reason == "end_turn"
    titles = [p.title for p in client.permissions]
    assert titles == ["Create src/new.py", "Edit src/app.py", "Delete old.txt"]
    assert client.permissions[1].content[0].old_text == SEED_FILES["src/app.py"]
    assert tree(root) == {**before, "src/new.py": NEW_MODULE}  # only the allowed file
    assert "rejected src/app.py, old.txt" in client.text()


async def test_review_mode_all_rejected_leaves_the_disk_untouched(tmp_path: Path) -> None:
    root = seed_project(tmp_path / "ws")
    before = tree(root)
    client = RecordingClient()
    with FakeLLM({"replies": [*FULL_CONVERSATION, "fine"]}) as llm:
        async with acp_agent(llm, client, AGENT_LS_REVIEW="on") as conn:
            session = await conn.new_session(cwd=str(root))
            await conn.prompt(session_id=session.session_id, prompt=[text_block("Add greeting")])
            assert tree(root) == before
            await conn.prompt(session_id=session.session_id, prompt=[text_block("why?")])
        sent = last_user_message(llm.requests[-1])
    assert "rejected your change to src/new.py, src/app.py, old.txt" in sent


@pytest.mark.parametrize("allowed", ["", ".env, certs/*.pem"], ids=["denied", "allowed"])
async def test_secret_files_follow_the_environment_allow_list(tmp_path: Path, allowed: str) -> None:
    """An ACP client has no settings of ours: AGENT_LS_ALLOW_SECRET_FILES is how its user
    lets agent-ls read a secret file (comma-separated globs); without it the file is refused."""
    root = seed_project(tmp_path / "ws")
    (root / ".env").write_text("API_KEY=sk-test-7\n")
    (root / "id_rsa").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\n")
    script = {
        "replies": [
            tool("read_file", path=".env"),
            tool("read_file", path="id_rsa"),
            doc(action="text_response", text_response="read"),
        ]
    }
    client = RecordingClient()
    env = {"AGENT_LS_ALLOW_SECRET_FILES": allowed} if allowed else {}
    with FakeLLM(script) as llm:
        async with acp_agent(llm, client, **env) as conn:
            session = await conn.new_session(cwd=str(root))
            await conn.prompt(session_id=session.session_id, prompt=[text_block("read .env")])
        env_result = last_user_message(llm.requests[1])
        key_result = last_user_message(llm.requests[2])
    assert ("sk-test-7" in env_result) is bool(allowed)
    assert ("secret deny list" in env_result) is not bool(allowed)
    assert "PRIVATE KEY" not in key_result  # not on the allow-list either way
    assert "secret deny list" in key_result


async def test_search_files_never_reads_through_a_symlink_to_a_secret(tmp_path: Path) -> None:
    """The ACP front end runs the same tools: a shipped symlink to a key outside the
    workspace is skipped by name, its text reaches neither the model nor the client."""
    root = seed_project(tmp_path / "ws")
    (tmp_path / "id_rsa").write_text("KEY TOKEN-private-5\n")
    (root / "src" / "notes.md").symlink_to(tmp_path / "id_rsa")
    (root / "src" / "token.py").write_text("TOKEN = 'public'\n")
    script = {
        "replies": [
            tool("search_files", pattern="TOKEN"),
            doc(action="text_response", text_response="searched"),
        ]
    }
    client = RecordingClient()
    with FakeLLM(script) as llm:
        async with acp_agent(llm, client) as conn:
            session = await conn.new_session(cwd=str(root))
            await conn.prompt(session_id=session.session_id, prompt=[text_block("find TOKEN")])
        result = last_user_message(llm.requests[1])
    assert "/src/token.py:1: TOKEN = 'public'" in result
    assert "(skipped /src/notes.md: symlink 'src/notes.md' points outside the workspace)" in result
    assert "TOKEN-private" not in result
    assert "TOKEN-private" not in repr(client.updates)


async def test_extension_methods_type_their_params(tmp_path: Path) -> None:
    """`_agentls/undo {sessionId, force?}`: "yes" is not a boolean, a number not a session
    id; each is InvalidParams naming the field, and nothing is undone."""
    root = seed_project(tmp_path / "ws")
    client = RecordingClient()
    with FakeLLM({"replies": FULL_CONVERSATION}) as llm:
        async with acp_agent(llm, client) as conn:
            session = await conn.new_session(cwd=str(root))
            await conn.prompt(session_id=session.session_id, prompt=[text_block("Add greeting")])
            after = tree(root)
            bad = [
                (
                    {"sessionId": session.session_id, "force": "yes"},
                    "expected true or false, got a string @ $.force",
                ),
                ({"sessionId": 5}, "expected a string @ $.sessionId"),
                ({}, "required field missing @ $.sessionId"),
            ]
            for params, says in bad:
                with pytest.raises(RequestError) as failure:
                    await conn.ext_method("agentls/undo", params)
                assert failure.value.code == -32602
                assert says in str(failure.value), failure.value
            assert tree(root) == after
