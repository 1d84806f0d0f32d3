"""What the user saw, read back from transcripts stored without it (server.conversation.derive),
and stored files whose `conversation` cannot be read (shown from their transcript)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from server.conversation import derive, typed_text
from server.history import SessionStore
from server.protocol import (
    ShownAnswer,
    ShownEntry,
    ShownFile,
    ShownPlan,
    ShownPlanEntry,
    ShownTool,
    ShownUser,
)
from server.providers.base import ChatMessage, NativeToolCall
from tests.e2e.conversations import doc, tool

PLAN = doc(
    action="start_multi_file",
    plan={"description": "Greet", "files_to_modify": ["a.py", "b.py"]},
    first_file={"action": "create_file", "file": {"path": "a.py", "content": "x = 1\n"}},
    message="Creating a.py",
)
PROGRESS = (
    "Applied: a.py.\nRemaining files of the plan: b.py.\n"
    "Reply with a continue_multi_file document for the next file (one file per reply)."
)


@pytest.mark.parametrize(
    ("messages", "shown"),
    [
        pytest.param(
            [ChatMessage("user", "hi"), ChatMessage("assistant", "Hello.")],
            [ShownUser(text="hi"), ShownAnswer(text="Hello.")],
            id="plain answer",
        ),
        pytest.param(
            [
                ChatMessage("user", "what is in it?"),
                ChatMessage("assistant", tool("read_file", path="a.py")),
                ChatMessage("user", 'Result of read_file {"path": "a.py"}:\nx = 1'),
                ChatMessage("assistant", doc(action="text_response", text_response="x is 1.")),
                ChatMessage("user", "thanks"),
                ChatMessage(
                    "assistant", doc(action="text_response", text_response="You're welcome.")
                ),
            ],
            [
                ShownUser(text="what is in it?"),
                ShownTool(
                    name="read_file", args={"path": "a.py"}, status="completed", output="x = 1"
                ),
                ShownAnswer(text="x is 1."),
                ShownUser(text="thanks"),
                ShownAnswer(text="You're welcome."),
            ],
            id="tool call and result",
        ),
        pytest.param(
            [
                ChatMessage("user", "greet"),
                ChatMessage("assistant", PLAN),
                ChatMessage("user", PROGRESS),  # agent-ls' instruction: not the user's
                ChatMessage(
                    "assistant",
                    doc(
                        action="continue_multi_file",
                        next_file={"action": "delete_file", "file": {"path": "b.py"}},
                    ),
                ),
                ChatMessage("user", "Applied: a.py, b.py.\nThe plan is complete."),
                ChatMessage("assistant", doc(action="text_response", text_response="Done.")),
            ],
            [
                ShownUser(text="greet"),
                ShownPlan(
                    description="Greet",
                    entries=[
                        ShownPlanEntry(path="a.py", status="completed"),
                        ShownPlanEntry(path="b.py", status="completed"),
                    ],
                ),
                ShownFile(path="a.py", action="create_file"),
                ShownFile(path="b.py", action="delete_file"),
                ShownAnswer(text="Done."),
            ],
            id="plan and its instructions",
        ),
        pytest.param(
            [
                ChatMessage("user", "list"),
                ChatMessage("assistant", "", (NativeToolCall("c1", "list_files", {}),)),
                ChatMessage("tool", "a.py", (), "c1"),
                ChatMessage("assistant", "One file."),
            ],
            [
                ShownUser(text="list"),
                ShownTool(name="list_files", args={}, status="completed", output="a.py"),
                ShownAnswer(text="One file."),
            ],
            id="native tool calls",
        ),
    ],
)
def test_derive(messages: list[ChatMessage], shown: list[ShownEntry]) -> None:
    assert derive(messages) == shown


@pytest.mark.parametrize(
    ("content", "typed"),
    [
        ("fix it", "fix it"),
        ("fix it\n\nContext: file:///a.py (lines 1-2)\nSelected text:\n```\nx\n```", "fix it"),
        ("The user rejected your change to a.py.\n\nnow b.py", "now b.py"),
        ("Your plan p1 (a.py) is still waiting for the user's review.\n\ngo on", "go on"),
        ("first\n\nsecond paragraph", "first\n\nsecond paragraph"),
    ],
)
def test_typed_text_leaves_out_what_agent_ls_added(content: str, typed: str) -> None:
    assert typed_text(content) == typed


def test_an_unreadable_conversation_is_shown_from_the_transcript(tmp_path: Path) -> None:
    """The transcript still works: the session loads, its view derived from the messages."""
    store = SessionStore(tmp_path, tmp_path / "sessions")
    messages = [ChatMessage("user", "hi"), ChatMessage("assistant", "Hello.")]
    store.save("s1", messages, [ShownUser(text="hi"), ShownAnswer(text="Hello.")])
    path = tmp_path / "sessions" / "s1.json"
    record = json.loads(path.read_text())
    assert record["conversation"] == [
        {"kind": "user", "text": "hi"},
        {"kind": "answer", "text": "Hello."},
    ]
    record["conversation"] = [{"kind": "nonsense"}]
    path.write_text(json.dumps(record))
    stored = store.load_chat("s1")
    assert stored.messages == messages
    assert stored.shown == [ShownUser(text="hi"), ShownAnswer(text="Hello.")]
