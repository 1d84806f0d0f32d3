"""agent-ls driven by acpx (npm), a real third-party ACP client, as its users run it:
`sessions new` then prompts (each in a new agent process), `cancel` mid-plan, a one-shot `exec`
(issue #24). The fake LLM is a real HTTP server on 127.0.0.1; real git, real files."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.acpx import TIMEOUT, acpx_client, git_workspace
from tests.e2e.conversations import (
    FULL_CONVERSATION,
    NEW_APP,
    NEW_MODULE,
    SEED_FILES,
    doc,
    seed_project,
    tree,
)
from tests.fakellm import FakeLLM

# A planned file the cancel happens before: odd bytes (CRLF, no final newline) a rewrite with
# "the same" text would change.
UNTOUCHED = b"print('v1')\r\n# keep\r\n\tno final newline"


def workspace(tmp_path: Path) -> Path:
    return git_workspace(seed_project(tmp_path / "ws"))


def test_sessions_new_then_two_prompts_keep_the_history(tmp_path: Path) -> None:
    """acpx's daily workflow: `sessions new`, then a prompt, then another, each in a new
    agent process that loads the session; the second prompt's request to the model carries
    the first exchange."""
    root = workspace(tmp_path)
    replies = [
        doc(action="text_response", text_response="Paris is the capital."),
        doc(action="text_response", text_response="About 2.1 million people."),
    ]
    with FakeLLM({"replies": replies}) as llm, acpx_client(root, tmp_path / "home", llm) as acpx:
        session = acpx.sessions_new()
        first = acpx.prompt("What is the capital of France?")
        first_agent = acpx.agent_pid()
        acpx.wait_idle()
        second = acpx.prompt("How many people live there?")
        second_agent = acpx.agent_pid()
        acpx.wait_idle()
        assert not acpx.leftover_pids()
    assert (first.returncode, first.stop_reason) == (0, "end_turn")
    assert (second.returncode, second.stop_reason) == (0, "end_turn")
    assert first.text() == "Paris is the capital."
    assert second.text() == "About 2.1 million people."
    # Each prompt's new agent process loads the session `sessions new` created (acpx silently
    # replaces a session that fails to load by a new one: the user's id would be lost).
    assert first_agent != second_agent
    for run in (first, second):
        assert "result" in run.response("session/load")
        assert not run.requests("session/new")
        assert [r["params"]["sessionId"] for r in run.requests("session/prompt")] == [session]
    history = [(m["role"], m["content"]) for m in llm.requests[-1].body["messages"][1:]]
    assert history[0] == ("user", "What is the capital of France?")
    assert "Paris is the capital." in history[1][1]
    assert history[-1] == ("user", "How many people live there?")


def test_cancel_mid_plan_restores_only_what_was_written(tmp_path: Path) -> None:
    """`acpx cancel` from a second command while a three-file plan waits on the model after its
    first file: the prompt ends cancelled, the written file is rolled back, and the planned
    file never written is left byte for byte (not rewritten with its old content)."""
    root = seed_project(tmp_path / "ws")
    (root / "src/app.py").write_bytes(UNTOUCHED)
    git_workspace(root)
    before = tree(root)
    untouched = (root / "src/app.py").stat().st_mtime_ns
    stalled = {"content": FULL_CONVERSATION[3], "hold": "never"}
    script = {"replies": [*FULL_CONVERSATION[:3], stalled]}
    with FakeLLM(script) as llm, acpx_client(root, tmp_path / "home", llm) as acpx:
        acpx.sessions_new()
        turn = acpx.start("prompt", "Add a greeting module")
        llm.wait_for_requests(4, timeout=TIMEOUT)  # src/new.py is written, the model stalls
        assert (root / "src/new.py").read_text() == NEW_MODULE
        cancel = acpx.cancel()
        prompt = acpx.finish(turn)
        acpx.wait_idle()
    assert cancel.returncode == 0, cancel.stderr
    assert [m["cancelled"] for m in cancel.messages if m.get("action") == "cancel_result"] == [True]
    assert prompt.stop_reason == "cancelled"
    assert prompt.returncode == 0, prompt.stderr
    assert tree(root) == before
    assert (root / "src/app.py").stat().st_mtime_ns == untouched
    # The client is asked to write the planned file and its rollback, never the untouched one.
    assert str(root / "src/app.py") not in prompt.writes()
    assert "1 file(s) restored" in prompt.text()


def test_exec_runs_tools_and_a_plan_through_the_clients_files(tmp_path: Path) -> None:
    """`acpx exec` (one-shot, no saved session): the model lists and reads files, then a plan
    creates, edits and deletes; acpx writes the files (ACP fs/write_text_file) and they change
    on disk; the user sees the tool calls, the plan and the answer."""
    root = workspace(tmp_path)
    with (
        FakeLLM({"replies": FULL_CONVERSATION}) as llm,
        acpx_client(root, tmp_path / "home", llm) as acpx,
    ):
        run = acpx.exec("Add a greeting module")
        acpx.wait_idle()
    assert (run.returncode, run.stop_reason) == (0, "end_turn"), run.stderr
    assert tree(root) == {
        "src/new.py": NEW_MODULE,
        "src/app.py": NEW_APP,
        "src/util.py": SEED_FILES["src/util.py"],
    }
    assert run.writes() == [str(root / "src/new.py"), str(root / "src/app.py")]
    titles = [u["title"] for u in run.updates("tool_call")]
    assert titles[0].startswith("list_files")
    assert titles[1].startswith("read_file")
    assert titles[2:] == ["Create src/new.py", "Edit src/app.py", "Delete old.txt"]
    plan = run.updates("plan")[-1]
    assert [e["status"] for e in plan["entries"]] == ["completed"] * 3
    assert "Done: greet() lives in src/new.py." in run.text()
