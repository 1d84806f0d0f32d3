"""The Neovim plugin (nvim-client/) driven in a real headless Neovim as a user would:
:AgentChat, a message typed at the prompt, the answer streamed into the chat buffer with the
tool calls and the plan, the files changed on disk and in the open buffer, :AgentUndo."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conversations import (
    FULL_CONVERSATION,
    NEW_APP,
    NEW_MODULE,
    SEED_FILES,
    doc,
    tree,
)
from tests.e2e.neovim import neovims, run_neovim
from tests.fakellm import FakeLLM

SCRIPT = Path(__file__).with_name("nvim_plugin.lua")
REVIEW_SCRIPT = Path(__file__).with_name("nvim_review.lua")
PLUGIN = Path(__file__).resolve().parents[2] / "nvim-client"


def git_repo(root: Path, files: dict[str, str]) -> Path:
    for relative, text in files.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    return root


@pytest.mark.parametrize("nvim", neovims())
def test_chat_plan_and_undo_through_the_plugin(fakellm: FakeLLM, tmp_path: Path, nvim: str) -> None:
    workspace = git_repo(tmp_path / "ws", SEED_FILES)  # .git: the workspace is ws, not ws/src
    before = tree(workspace)
    fakellm.set_script({"replies": FULL_CONVERSATION})

    seen = run_neovim(
        SCRIPT,
        tmp_path,
        workspace,
        fakellm,
        workspace / "src" / "app.py",
        nvim=nvim,
        MESSAGE="Add a greeting module",
        PLUGIN_DIR=str(PLUGIN),
    )

    assert seen["attached"], seen  # autostart attached the server to the file buffer
    assert seen["chat_is_current"]
    assert seen["busy_after_enter"], "Enter at the prompt did not send the message"
    assert seen["finished"], seen
    chat = "\n".join(seen["chat"])
    assert "you> Add a greeting module" in chat
    assert "⚙ list_files" in chat
    assert "⚙ read_file" in chat
    assert "▶ plan: Add a greeting module and use it" in chat
    assert "✎ create_file src/new.py" in chat
    assert "✎ delete_file old.txt" in chat
    assert "Done: greet() lives in src/new.py." in chat
    assert seen["new_module_on_disk"] == NEW_MODULE
    assert seen["file_buffer"] == NEW_APP
    assert any("applied" in line for line in seen["qflist"])
    assert any("Add a greeting module and use it" in line for line in seen["qflist"])
    # One folder: the checkpoint's plain paths name the workspace's files.
    assert sorted(seen["qffiles"]) == sorted(
        str(workspace / name) for name in ("src/new.py", "src/app.py", "old.txt")
    )
    assert any(note.startswith("agent-ls: undid") for note in seen["notes"]), seen["notes"]
    assert tree(workspace) == before
    assert seen["after_undo_buffer"] == SEED_FILES["src/app.py"]
    health = "\n".join(seen["health"])
    assert "server command:" in health, health
    assert "provider openai, model fake" in health, health


@pytest.mark.parametrize("nvim", neovims())
def test_review_mode_plan_accepted_through_the_code_action(
    fakellm: FakeLLM, tmp_path: Path, nvim: str
) -> None:
    workspace = git_repo(tmp_path / "ws", SEED_FILES)  # .git: the workspace is ws, not ws/src
    fakellm.set_script({"replies": FULL_CONVERSATION})

    seen = run_neovim(
        REVIEW_SCRIPT,
        tmp_path,
        workspace,
        fakellm,
        workspace / "src" / "app.py",
        nvim=nvim,
        MESSAGE="Add a greeting module",
        PLUGIN_DIR=str(PLUGIN),
    )

    assert seen["finished"], seen
    assert seen["plan_state"] == "pending"
    assert seen["disk_before_accept"] == SEED_FILES["src/app.py"]  # staged, not written
    assert seen["picked"] == "Accept all AI changes of the plan (3 files)"
    assert seen["new_module"] == NEW_MODULE
    assert seen["app_on_disk"] == NEW_APP
    assert seen["app_buffer"] == NEW_APP
    assert not (workspace / "old.txt").exists()


REVIEW_STATES_SCRIPT = Path(__file__).with_name("nvim_review_states.lua")


def added(before: str, after: str) -> str:
    """The chat lines `after` has beyond `before` (whose last line, the prompt, moved down)."""
    kept = before.split("\n")[:-1]
    lines = after.split("\n")
    assert lines[: len(kept)] == kept, (before, after)
    return "\n".join(lines[len(kept) :])


@pytest.mark.parametrize("nvim", neovims())
def test_review_states_and_decisions_are_confirmed_in_the_chat(
    fakellm: FakeLLM, tmp_path: Path, nvim: str
) -> None:
    workspace = git_repo(tmp_path / "ws", SEED_FILES)
    fakellm.set_script({"replies": FULL_CONVERSATION})

    seen = run_neovim(
        REVIEW_STATES_SCRIPT,
        tmp_path,
        workspace,
        fakellm,
        workspace / "src" / "app.py",
        nvim=nvim,
        MESSAGE="Add a greeting module",
        PLUGIN_DIR=str(PLUGIN),
    )

    assert seen["finished"], seen
    turn = seen["turn"]
    assert "◇ staged create_file src/new.py" in turn, turn
    assert "◇ staged delete_file old.txt" in turn
    assert "✎" not in turn  # nothing was written
    assert "⏸ plan pending review, nothing written yet" in turn

    assert seen["accepted"], seen
    confirmed = added(turn, seen["after_accept"])
    assert re.search(r"✓ applied src/new\.py as \w+ \(:AgentUndo reverts it\)", confirmed), (
        confirmed
    )
    assert "⏸ still pending: src/app.py, old.txt" in confirmed

    assert seen["rejected"], seen
    confirmed = added(seen["after_accept"], seen["after_reject"])
    assert "✗ rejected src/app.py, old.txt: keep print" in confirmed, confirmed
    assert "still pending" not in confirmed
    assert seen["plan_state"] == "partial"
    assert tree(workspace) == {**SEED_FILES, "src/new.py": NEW_MODULE}


MULTIROOT_SCRIPT = Path(__file__).with_name("nvim_multiroot.lua")


def bump(folder: str) -> dict[str, Any]:
    return {
        "action": "update_file",
        "file": {"path": f"/{folder}/src/app.py", "content": f"print('{folder} v2')\n"},
    }


@pytest.mark.parametrize("nvim", neovims())
def test_checkpoint_quickfix_points_into_each_workspace_folder(
    fakellm: FakeLLM, tmp_path: Path, nvim: str
) -> None:
    """Two folders with the same `src/app.py`: after add_workspace_folder() and a plan over
    both, every :AgentCheckpoints entry opens its own folder's file (not one relative to the
    current directory, which is the first folder). Neovim 0.7 announces the added folder with
    `removed: [{}]`, which the server tolerates (server/wire/quirks.py)."""
    front = git_repo(tmp_path / "front", {"src/app.py": "print('front')\n"})
    back = git_repo(tmp_path / "back", {"src/app.py": "print('back')\n"})
    fakellm.set_script(
        {
            "replies": [
                doc(
                    action="start_multi_file",
                    plan={
                        "description": "bump both",
                        "files_to_modify": ["/front/src/app.py", "/back/src/app.py"],
                    },
                    first_file=bump("front"),
                ),
                doc(action="continue_multi_file", next_file=bump("back")),
                doc(action="text_response", text_response="Both bumped."),
            ]
        }
    )

    seen = run_neovim(
        MULTIROOT_SCRIPT,
        tmp_path,
        front,
        fakellm,
        front / "src" / "app.py",
        nvim=nvim,
        MESSAGE="bump both",
        PLUGIN_DIR=str(PLUGIN),
        SECOND_FOLDER=str(back),
    )

    assert seen["attached"], seen
    assert seen["folders"] == [
        {"name": "front", "path": str(front)},
        {"name": "back", "path": str(back)},
    ], seen
    assert seen["finished"], seen
    chat = "\n".join(seen["chat"])
    assert "✎ update_file back/src/app.py" in chat, chat
    assert (back / "src/app.py").read_text() == "print('back v2')\n"
    assert sorted(item["file"] for item in seen["qf"]) == sorted(
        [str(front / "src/app.py"), str(back / "src/app.py")]
    ), seen["qf"]
    assert all("bump both" in item["text"] for item in seen["qf"])
    opened = {Path(buf["name"]): buf["text"] for buf in seen["opened"]}
    assert opened == {
        front / "src/app.py": "print('front v2')",
        back / "src/app.py": "print('back v2')",
    }


WORKSPACE_SCRIPT = Path(__file__).with_name("nvim_workspace.lua")
TRANSCRIPT_SCRIPT = Path(__file__).with_name("nvim_transcript.lua")
STOP_SCRIPT = Path(__file__).with_name("nvim_stop.lua")
MARKERS = (".git", "pyproject.toml", "package.json", "Cargo.toml", "go.mod")  # the defaults
GREETINGS = "print('hello')\n"
WRITE_GREETINGS = {
    "action": "start_multi_file",
    "plan": {"description": "Add greetings", "files_to_modify": ["/greetings.py"]},
    "first_file": {
        "action": "create_file",
        "file": {"path": "/greetings.py", "content": GREETINGS},
    },
}


def fenced_json(prose: str, document: dict[str, Any]) -> str:
    return f"{prose}```json\n{doc(**document)}\n```\n"


@pytest.mark.parametrize("nvim", neovims())
@pytest.mark.parametrize("layout", ["no-marker", "nested-markers", "no-file"])
def test_a_plan_writes_into_the_workspace_of_the_file(
    fakellm: FakeLLM, tmp_path: Path, nvim: str, layout: str
) -> None:
    """Neovim started in another folder: a chat opened from a file works in that file's
    workspace — the nearest folder holding a root marker, else the file's own folder — and its
    plan writes there, never into the current directory. With no file open the current
    directory is the workspace, and the chat's first line says so."""
    assert not [
        folder / marker
        for folder in (tmp_path, *tmp_path.parents)
        for marker in MARKERS
        if (folder / marker).exists()
    ], "the test's temporary folder must not be inside a project (pytest --basetemp)"
    cwd = tmp_path / "elsewhere"
    cwd.mkdir()
    open_file: Path | None
    if layout == "no-marker":
        workspace = tmp_path / "notes"
        workspace.mkdir()
        open_file = workspace / "todo.py"
        open_file.write_text("print('todo')\n")
        why = "the file's folder: no root marker (.git, pyproject.toml, package.json, "
    elif layout == "nested-markers":
        repo = git_repo(tmp_path / "repo", {"pkg/pyproject.toml": "", "pkg/src/mod.py": ""})
        workspace = repo / "pkg"
        open_file = workspace / "src" / "mod.py"
        why = "the nearest folder with pyproject.toml)"
    else:
        workspace, open_file = cwd, None
        why = "no file open: Neovim's current directory)"
    fakellm.set_script(
        {"replies": [doc(**WRITE_GREETINGS), doc(action="text_response", text_response="Done.")]}
    )

    seen = run_neovim(
        WORKSPACE_SCRIPT,
        tmp_path,
        workspace,
        fakellm,
        open_file,
        nvim=nvim,
        cwd=cwd,
        MESSAGE="Add greetings",
        PLUGIN_DIR=str(PLUGIN),
    )

    assert seen["cwd"] == str(cwd)
    assert seen["finished"], seen
    assert seen["greetings"] == GREETINGS, seen["chat"]
    assert seen["chat_is_current"]
    # :AgentUndo in the chat window undid the plan in the chat's workspace: no greetings.py
    # anywhere (neither left in the workspace nor written into the current directory).
    assert any(note.startswith("agent-ls: undid") for note in seen["notes"]), seen["notes"]
    assert list(tmp_path.rglob("greetings.py")) == []
    assert seen["roots"] == [str(workspace)]  # one server, in the workspace
    header, *rest = seen["chat"]
    assert header.startswith(f"workspace {workspace} ({why}"), header
    assert not any("workspace" in line for line in rest), rest  # said once
    assert "you> Add greetings" in rest


@pytest.mark.parametrize("nvim", neovims())
def test_chat_window_prompt_echo_and_one_blank_line_between_segments(
    fakellm: FakeLLM, tmp_path: Path, nvim: str
) -> None:
    """The chat window as a user reads it: `you> ` is there as soon as it opens (before
    Insert mode), `:AgentChat message` shows the message as if typed, and a turn of text, a
    tool call, more text, a plan and a last answer has one blank line between its segments —
    the blank lines the model's prose ends or starts with are not shown as runs."""
    workspace = git_repo(tmp_path / "ws", {"app.py": "print('app')\n"})
    list_files = {"action": "tool_call", "tool_call": {"function_name": "list_files", "args": {}}}
    fakellm.set_script(
        {
            "replies": [
                fenced_json("Let me look first.\n\n\n", list_files),
                fenced_json("\n\nI will write the module.\n\n\n\n", WRITE_GREETINGS),
                doc(
                    action="text_response", text_response="\n\nDone: greetings.py says hello.\n\n\n"
                ),
                doc(action="text_response", text_response="You are welcome."),
            ]
        }
    )

    seen = run_neovim(
        TRANSCRIPT_SCRIPT,
        tmp_path,
        workspace,
        fakellm,
        workspace / "app.py",
        nvim=nvim,
        MESSAGE="Add greetings",
        SECOND="Thanks",
        PLUGIN_DIR=str(PLUGIN),
    )
    header = f"workspace {workspace} (the nearest folder with .git)"
    assert seen["opened"] == [header, "", "you> "]
    assert seen["opened_mode"] == "n"
    assert seen["first_finished"], seen
    assert seen["second_sent"], "Enter at the prompt did not send the message"
    assert seen["second_finished"], seen
    chat = [re.sub(r"applied as \w+ ", "applied as ID ", line) for line in seen["chat"]]
    assert chat == [
        header,
        "",
        "you> Add greetings",
        "",
        "agent-ls:",
        "Let me look first.",
        "",
        "  ⚙ list_files {}",
        "  ✓ list_files",
        "",
        "I will write the module.",
        "",
        "  ▶ plan: Add greetings",
        "      greetings.py",
        "  ✎ create_file greetings.py",
        "",
        "Done: greetings.py says hello.",
        "",
        "  ↺ applied as ID (:AgentUndo reverts it)",
        "",
        "you> Thanks",
        "",
        "agent-ls:",
        "You are welcome.",
        "",
        "you> ",
    ], "\n".join(seen["chat"])
    assert seen["after_first"] == [*seen["chat"][:20], "you> "]  # the prompt is back at once


@pytest.mark.parametrize("nvim", neovims())
def test_agent_stop_ends_the_turn_once_and_the_chat_goes_on(
    fakellm: FakeLLM, tmp_path: Path, nvim: str
) -> None:
    """:AgentStop while the model stalls: the turn ends with one "cancelled" line and the
    prompt, the server's late answer to the cancelled request adds nothing, and the next
    message is answered in a turn of its own."""
    workspace = git_repo(tmp_path / "ws", {"app.py": "print('app')\n"})
    list_files = {"action": "tool_call", "tool_call": {"function_name": "list_files", "args": {}}}
    fakellm.set_script(
        {
            "replies": [
                fenced_json("Let me look.\n", list_files),
                {"content": "never sent", "hold": "stall"},
                doc(action="text_response", text_response="Back again."),
            ]
        }
    )

    seen = run_neovim(
        STOP_SCRIPT,
        tmp_path,
        workspace,
        fakellm,
        workspace / "app.py",
        nvim=nvim,
        MESSAGE="Look around",
        SECOND="Again",
        PLUGIN_DIR=str(PLUGIN),
    )

    assert seen["stalled"], seen
    assert not seen["busy_after_stop"]
    assert seen["second_finished"], seen
    assert seen["chat"] == [
        f"workspace {workspace} (the nearest folder with .git)",
        "",
        "you> Look around",
        "",
        "agent-ls:",
        "Let me look.",
        "",
        "  ⚙ list_files {}",
        "  ✓ list_files",
        "",
        "  ! cancelled",
        "",
        "you> Again",
        "",
        "agent-ls:",
        "Back again.",
        "",
        "you> ",
    ], "\n".join(seen["chat"])
