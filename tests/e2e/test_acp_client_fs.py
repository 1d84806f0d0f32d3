"""`agent-ls acp` with a client that owns the files (the official SDK's client side): a client
that refuses a write (acpx's default permission mode answers "Permission denied"), and a
client whose buffer differs from the disk (the model reads, edits and rolls back that)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from acp import RequestError, text_block
from acp.schema import ReadTextFileResponse, WriteTextFileResponse

from tests.e2e.acpx import acpx_client, git_workspace
from tests.e2e.conversations import FULL_CONVERSATION, SEED_FILES, doc, seed_project, tool, tree
from tests.e2e.test_acp import RecordingClient, acp_agent
from tests.fakellm import FakeLLM, last_user_message

UNSAVED_APP = "print('v1')\nprint('unsaved work')\n"
ANSWER = doc(action="text_response", text_response="The editor did not let me write app.py.")


class FileClient(RecordingClient):
    """A client with buffers: `buffers` (absolute path -> text) differ from the disk until
    written; writes to `refused` paths are answered with `refusal`; reads of `unreadable`
    paths with an error."""

    def __init__(self) -> None:
        super().__init__()
        self.buffers: dict[str, str] = {}
        self.refused: set[str] = set()
        self.refusal: Exception = RequestError(-32603, "Permission denied")
        self.unreadable: set[str] = set()
        self.reads: list[str] = []

    async def write_text_file(
        self, session_id: str, path: str, content: str, **kwargs: Any
    ) -> WriteTextFileResponse:
        if path in self.refused:
            raise self.refusal
        self.buffers.pop(path, None)
        return await super().write_text_file(session_id, path, content, **kwargs)

    async def read_text_file(
        self, session_id: str, path: str, **kwargs: Any
    ) -> ReadTextFileResponse:
        self.reads.append(path)
        if path in self.unreadable:
            raise RequestError(-32603, "the buffer is locked")
        if path in self.buffers:
            return ReadTextFileResponse(content=self.buffers[path])
        return ReadTextFileResponse(content=Path(path).read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    ("refusal", "reason"),
    [
        (RequestError(-32603, "Permission denied"), "Permission denied"),
        (PermissionError("writes are not allowed in this mode"), "writes are not allowed"),
    ],
    ids=["error-message", "client-exception"],
)
async def test_a_refused_write_rolls_back_and_ends_the_turn_normally(
    tmp_path: Path, refusal: Exception, reason: str
) -> None:
    """The plan's first file is written, the second refused: the first is restored, the
    turn ends with end_turn, the user sees the refused write and why (a failed edit and a
    message), the model is told and answers, and no checkpoint is recorded."""
    root = seed_project(tmp_path / "ws")
    before = tree(root)
    client = FileClient()
    client.refused.add(str(root / "src/app.py"))
    client.refusal = refusal
    with FakeLLM({"replies": [*FULL_CONVERSATION[2:4], ANSWER]}) as llm:
        async with acp_agent(llm, client, fs=True) as conn:
            session = await conn.new_session(cwd=str(root))
            response = await conn.prompt(
                session_id=session.session_id, prompt=[text_block("Add a greeting module")]
            )
            listed = await conn.ext_method("agentls/checkpoints", {"sessionId": session.session_id})
    assert response.stop_reason == "end_turn"
    assert tree(root) == before  # src/new.py was written, then restored (removed)
    refused = f"the editor refused to write src/app.py: {reason}"
    failed = [u for u in client.updates if getattr(u, "status", None) == "failed"]
    assert [u.title for u in failed] == ["Edit src/app.py"]
    assert refused in failed[0].content[0].content.text
    shown = client.text()
    assert refused in shown
    assert "the plan was rolled back (1 file(s) restored)" in shown
    assert "The editor did not let me write app.py." in shown
    told = last_user_message(llm.requests[-1])
    assert refused in told
    assert "nothing was changed" in told
    assert listed["text"] == "No checkpoints yet."


async def test_read_file_sees_the_clients_unsaved_buffer(tmp_path: Path) -> None:
    root = seed_project(tmp_path / "ws")
    client = FileClient()
    client.buffers[str(root / "src/app.py")] = UNSAVED_APP
    script = {"replies": [tool("read_file", paths=["/src/app.py", "/src/util.py"]), ANSWER]}
    with FakeLLM(script) as llm:
        async with acp_agent(llm, client, fs=True) as conn:
            session = await conn.new_session(cwd=str(root))
            await conn.prompt(session_id=session.session_id, prompt=[text_block("read app")])
    result = last_user_message(llm.requests[1])
    assert "print('unsaved work')" in result  # the buffer, not the disk
    assert SEED_FILES["src/util.py"] in result  # a file without a buffer: the client reads it
    assert tree(root)["src/app.py"] == SEED_FILES["src/app.py"]


async def test_a_client_read_error_falls_back_to_the_disk_with_a_note(tmp_path: Path) -> None:
    root = seed_project(tmp_path / "ws")
    client = FileClient()
    client.unreadable.add(str(root / "src/app.py"))
    script = {"replies": [tool("read_file", path="/src/app.py"), ANSWER]}
    with FakeLLM(script) as llm:
        async with acp_agent(llm, client, fs=True) as conn:
            session = await conn.new_session(cwd=str(root))
            response = await conn.prompt(
                session_id=session.session_id, prompt=[text_block("read app")]
            )
    assert response.stop_reason == "end_turn"
    result = last_user_message(llm.requests[1])
    assert SEED_FILES["src/app.py"] in result
    assert "the editor could not give its text (the buffer is locked)" in result


async def test_a_plan_edits_the_buffer_and_undo_gives_it_back(tmp_path: Path) -> None:
    """A search/replace block matching only the client's buffer applies to it; the plan's
    pre-image is that buffer, so an undo gives back the user's unsaved work, not the disk's
    older text."""
    root = seed_project(tmp_path / "ws")
    app = str(root / "src/app.py")
    client = FileClient()
    client.buffers[app] = UNSAVED_APP
    plan = doc(
        action="start_multi_file",
        plan={"description": "Finish the work", "files_to_modify": ["/src/app.py"]},
        first_file={
            "action": "update_file",
            "file": {
                "path": "/src/app.py",
                "edits": [{"search": "print('unsaved work')", "replace": "print('done')"}],
            },
        },
    )
    done = doc(action="text_response", text_response="Done.")
    with FakeLLM({"replies": [plan, done]}) as llm:
        async with acp_agent(llm, client, fs=True) as conn:
            session = await conn.new_session(cwd=str(root))
            response = await conn.prompt(session_id=session.session_id, prompt=[text_block("go")])
            written = tree(root)["src/app.py"]
            undone = await conn.ext_method("agentls/undo", {"sessionId": session.session_id})
    assert response.stop_reason == "end_turn"
    assert written == "print('v1')\nprint('done')\n"
    [edit] = [u for u in client.updates if getattr(u, "kind", None) == "edit"]
    assert edit.content[0].old_text == UNSAVED_APP  # the diff from what the user had
    assert undone["text"].startswith("Undid")
    assert tree(root)["src/app.py"] == UNSAVED_APP  # the buffer the user had, not the disk's


async def test_a_client_refusing_every_write_ends_the_turn_at_the_second_refusal(
    tmp_path: Path,
) -> None:
    """acpx's default permission mode refuses every write: a model that sends its plan again
    after being told is refused again and the turn ends there (end_turn), nothing changed."""
    root = seed_project(tmp_path / "ws")
    before = tree(root)
    client = FileClient()
    client.refused.update(str(root / path) for path in ("src/new.py", "src/app.py"))
    never = doc(action="text_response", text_response="never sent")
    script = {"replies": [FULL_CONVERSATION[2], FULL_CONVERSATION[2], never]}
    with FakeLLM(script) as llm:
        async with acp_agent(llm, client, fs=True) as conn:
            session = await conn.new_session(cwd=str(root))
            response = await conn.prompt(session_id=session.session_id, prompt=[text_block("go")])
    assert response.stop_reason == "end_turn"
    assert len(llm.requests) == 2
    assert tree(root) == before
    refused = "the editor refused to write src/new.py: Permission denied"
    assert client.text().count(refused) == 2
    assert "never sent" not in client.text()


async def test_review_mode_a_refused_write_of_an_allowed_file_ends_the_turn_normally(
    tmp_path: Path,
) -> None:
    """Review on: the user allows the files, the client then refuses a write: the allowed
    files are rolled back whole, the user is told which write and why, end_turn."""
    root = seed_project(tmp_path / "ws")
    before = tree(root)
    client = FileClient()
    client.answers = ["allow", "allow"]
    client.refused.add(str(root / "src/app.py"))
    script = {"replies": [*FULL_CONVERSATION[2:4], ANSWER]}
    with FakeLLM(script) as llm:
        async with acp_agent(llm, client, fs=True, AGENT_LS_REVIEW="on") as conn:
            session = await conn.new_session(cwd=str(root))
            response = await conn.prompt(session_id=session.session_id, prompt=[text_block("go")])
    assert response.stop_reason == "end_turn"
    assert tree(root) == before
    assert "the editor refused to write src/app.py: Permission denied" in client.text()


def test_acpx_default_permission_mode_refuses_the_write_and_the_turn_ends_cleanly(
    tmp_path: Path,
) -> None:
    """acpx (npm) in its default permission mode (approve-reads) answers fs/write_text_file
    with an error ("Permission denied for fs/write_text_file"): the prompt ends with end_turn
    (no JSON-RPC error; acpx exits 5, its own "permission denied" code, as every permission
    it was asked was denied), nothing changed on disk, the user reads which write was refused
    and why, and the model's answer."""
    root = git_workspace(seed_project(tmp_path / "ws"))
    before = tree(root)
    script = {"replies": [FULL_CONVERSATION[2], ANSWER]}
    with FakeLLM(script) as llm, acpx_client(root, tmp_path / "home", llm) as acpx:
        acpx.sessions_new()
        run = acpx.prompt("Add a greeting module", permissions=None)
        acpx.wait_idle()
    assert "result" in run.response("session/prompt"), run.stderr
    assert (run.returncode, run.stop_reason) == (5, "end_turn"), run.stderr
    assert tree(root) == before
    assert run.writes() == [str(root / "src/new.py")]  # asked once, refused
    shown = run.text()
    refused = "the editor refused to write src/new.py: Permission denied for fs/write_text_file"
    assert refused in shown
    assert "nothing was changed: the plan was rolled back (0 file(s) restored)" in shown
    assert "The editor did not let me write app.py." in shown
    [failed] = [u for u in run.updates("tool_call") if u.get("status") == "failed"]
    assert failed["title"] == "Edit src/new.py"
    assert refused in last_user_message(llm.requests[-1])
