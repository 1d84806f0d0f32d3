"""A resumed chat over the LSP shows what the user saw: `agent/sessions {show: id}` carries
the conversation (their message, tool calls and results, the plan and its files, the
answer), never an action document or agent-ls' instructions to the model — also for a
session stored by an older agent-ls (a transcript only); the Neovim plugin's :AgentResume
shows it in the chat buffer and continues it. `agent-ls sessions` counts the turns the user
typed, not the model's tool results and plan steps."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from pygls.exceptions import JsonRpcInvalidParams

from server.history import SessionStore
from tests.e2e.conversations import FULL_CONVERSATION, SEED_FILES, doc, seed_project, tree
from tests.e2e.neovim import neovims, run_neovim
from tests.e2e.test_nvim_plugin import PLUGIN, git_repo
from tests.e2e.test_sessions import AGENT_LS, request, server
from tests.fakellm import FakeLLM, last_user_message

PROMPT = "Add a greeting module"
INTERNAL = ('"action"', "continue_multi_file", "Reply with", "Applied:", "Result of ", "```json")


def outline(conversation: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """Each entry as the user sees it (tool output and diffs checked apart)."""
    shown: list[tuple[Any, ...]] = []
    for entry in conversation:
        kind = entry["kind"]
        if kind in ("user", "answer"):
            shown.append((kind, entry["text"]))
        elif kind == "tool":
            shown.append((kind, entry["name"], entry["status"]))
        elif kind == "plan":
            shown.append((kind, tuple((e["path"], e["status"]) for e in entry["entries"])))
        elif kind == "file":
            shown.append((kind, entry["action"], entry["path"]))
        else:
            shown.append((kind, entry["message"]))
    return shown


def assert_nothing_internal(conversation: list[dict[str, Any]]) -> None:
    for entry in conversation:
        for text in (entry.get("text"), entry.get("output")):
            if text is not None:
                assert not any(mark in text for mark in INTERNAL), (entry, text)


def strip_conversation(path: Path) -> None:
    """The stored file as an older agent-ls wrote it: the model's transcript only."""
    record = json.loads(path.read_text())
    record.pop("conversation", None)
    path.write_text(json.dumps(record))


async def chat_then_show(root: Path, strip: bool = False) -> tuple[str, list[dict[str, Any]]]:
    """A plan turn in one server, the conversation shown by a second one (`strip`: the stored
    file first loses its conversation, as an older agent-ls wrote it)."""
    with FakeLLM({"replies": FULL_CONVERSATION}) as llm:
        async with server(root, llm) as client:
            result = await request(client, "agent/chat", {"message": PROMPT})
        if strip:
            strip_conversation(SessionStore(root).directory / f"{result.sessionId}.json")
        async with server(root, llm) as client:
            listed = await request(client, "agent/sessions", {"show": result.sessionId})
            with pytest.raises(JsonRpcInvalidParams, match="nosuchsession"):
                await request(client, "agent/sessions", {"show": "nosuchsession"})
    (entry,) = listed
    assert entry["turns"] == 1
    assert entry["title"] == PROMPT
    return result.sessionId, entry["conversation"]


async def test_sessions_show_the_conversation_the_user_saw(tmp_path: Path) -> None:
    root = seed_project(tmp_path / "ws")
    _, conversation = await chat_then_show(root)
    assert "src/new.py" in tree(root)
    assert outline(conversation) == [
        ("user", PROMPT),
        ("tool", "list_files", "completed"),
        ("tool", "read_file", "completed"),
        ("answer", "Here is my next step.\n\n"),
        (
            "plan",
            (("src/new.py", "completed"), ("src/app.py", "completed"), ("old.txt", "completed")),
        ),
        ("file", "create_file", "src/new.py"),
        ("file", "update_file", "src/app.py"),
        ("file", "delete_file", "old.txt"),
        ("answer", "Done: greet() lives in src/new.py."),
    ]
    assert SEED_FILES["src/app.py"] in conversation[2]["output"]
    assert_nothing_internal(conversation)


async def test_an_older_session_is_shown_from_its_transcript(tmp_path: Path) -> None:
    root = seed_project(tmp_path / "ws")
    _, conversation = await chat_then_show(root, strip=True)
    assert outline(conversation) == [
        ("user", PROMPT),
        ("tool", "list_files", "completed"),
        ("tool", "read_file", "completed"),
        ("answer", "Here is my next step.\n"),
        (
            "plan",
            (("/src/new.py", "completed"), ("/src/app.py", "completed"), ("/old.txt", "completed")),
        ),
        ("file", "create_file", "/src/new.py"),
        ("file", "update_file", "/src/app.py"),
        ("file", "delete_file", "/old.txt"),
        ("answer", "Done: greet() lives in src/new.py."),
    ]
    assert SEED_FILES["src/app.py"] in conversation[2]["output"]
    assert_nothing_internal(conversation)


@pytest.mark.parametrize("strip", [False, True], ids=["stored", "older-file"])
async def test_the_cli_counts_the_turns_the_user_typed(tmp_path: Path, strip: bool) -> None:
    root = seed_project(tmp_path / "ws")
    with FakeLLM({"replies": FULL_CONVERSATION}) as llm:
        async with server(root, llm) as client:
            session_id = (await request(client, "agent/chat", {"message": PROMPT})).sessionId
    if strip:
        strip_conversation(SessionStore(root).directory / f"{session_id}.json")
    listed = subprocess.run(
        [AGENT_LS, "sessions", "--workspace", str(root)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert listed.stdout.split("\n")[0].split("  ")[::2] == [session_id, "1 turn(s)"]
    assert listed.stdout.rstrip().endswith(PROMPT)


@pytest.mark.parametrize("nvim", neovims())
async def test_a_chat_resumed_in_neovim_shows_what_the_user_saw(tmp_path: Path, nvim: str) -> None:
    root = git_repo(tmp_path / "ws", SEED_FILES)  # .git: the plugin's workspace is ws
    still = doc(action="text_response", text_response="Still here.")
    with FakeLLM({"replies": [*FULL_CONVERSATION, still]}) as llm:
        async with server(root, llm) as client:
            result = await request(client, "agent/chat", {"message": PROMPT})
        seen = run_neovim(
            Path(__file__).with_name("nvim_resume.lua"),
            tmp_path,
            root,
            llm,
            root / "src" / "app.py",
            nvim=nvim,
            PLUGIN_DIR=str(PLUGIN),
            LAST_ANSWER="Done: greet() lives in src/new.py.",
            MESSAGE="and now?",
            NEXT_ANSWER="Still here.",
        )
        history = [m.get("content") for m in llm.requests[-1].body["messages"]]
    assert seen["shown"], seen
    assert seen["session_id"] == result.sessionId
    resumed = "\n".join(seen["resumed"])
    for line in [
        f"you> {PROMPT}",
        "⚙ list_files",
        "✓ read_file",
        "Here is my next step.",
        "▶ plan: Add a greeting module and use it",
        "✎ create_file src/new.py",
        "✎ delete_file old.txt",
        "Done: greet() lives in src/new.py.",
    ]:
        assert line in resumed, (line, resumed)
    assert resumed.count("you> ") == 2  # the user's message, then the prompt
    assert not any(mark in resumed for mark in INTERNAL), resumed
    assert seen["finished"], seen
    assert "Still here." in "\n".join(seen["chat"])
    assert last_user_message(llm.requests[-1]) == "and now?"
    assert PROMPT in history  # the resumed session continued
