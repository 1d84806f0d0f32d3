"""Conversations that survive a restart: one JSON file per session, outside the workspace.

Sessions live under `$XDG_CACHE_HOME/agent-ls/sessions/<workspace key>/<id>.json` (the same
key as the checkpoint store), written atomically after every completed turn, readable by
the user only. The LSP server (`agent/chat` with an old `sessionId`, `agent/sessions`), the
ACP front end (`session/load`, `session/list`) and the CLI (`agent-ls sessions`) share them.
The LSP server does its store work on one thread (`in_store_order`, `save_in_background`):
a turn's answer does not wait for the disk, and the listings, deletions and restores that
follow run after every save queued before them.

`trim_history` keeps a conversation within the model's context budget: the oldest tool
results are shortened first, then the oldest whole exchanges are dropped; the messages of
the turn in progress (its plan included) are never touched.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import json
import logging
import os
import re
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from actions.private import data_root, make_private_dir
from server.conversation import derive
from server.protocol import CONVERTER, ShownEntry, ShownUser
from server.providers.base import ChatMessage, NativeToolCall

log = logging.getLogger(__name__)
T = TypeVar("T")
SESSIONS_ENV = "AGENT_LS_SESSIONS_DIR"
SESSION_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
ELIDED = "[older tool output removed to fit the context window]"
# actions.prompt.render_tool_result's openings, and actions.feedback.join_results'
TOOL_FEEDBACK = ("Result of ", "Error from ", "Results of the ")


class UnknownSession(LookupError):
    """No stored session has this id (in this workspace)."""

    def __init__(self, session_id: str) -> None:
        super().__init__(f"unknown session {session_id!r}: no such conversation in this workspace")
        self.session_id = session_id


class CorruptSession(UnknownSession):
    """The stored file of a session cannot be read back. It is left as it is (never
    deleted or overwritten): the message names it, so the user can inspect or remove it."""

    def __init__(self, session_id: str, path: Path, reason: str) -> None:
        LookupError.__init__(
            self,
            f"the stored conversation {session_id!r} is corrupt: {path} ({reason}); it was left "
            "as it is: move or delete that file to start that conversation over",
        )
        self.session_id = session_id
        self.path = path
        self.reason = reason


@dataclass(frozen=True)
class SessionInfo:
    id: str
    title: str
    updated: float
    turns: int
    corrupt: str | None = None  # why the stored file cannot be read back (it is kept)


def default_sessions_dir(workspace: Path | None) -> Path:
    """Where the sessions of `workspace` live (`None`: sessions without a folder)."""
    base = os.environ.get(SESSIONS_ENV)
    root = Path(base) if base else data_root() / "sessions"
    return root / _workspace_key(workspace)


@functools.lru_cache(maxsize=64)
def _workspace_key(workspace: Path | None) -> str:
    """The folder name of a workspace's sessions (its real path, hashed; the server asks
    for it at every turn, and resolving symlinks costs a system call per path part)."""
    target = os.path.realpath(workspace) if workspace is not None else "(no folder)"
    return hashlib.sha256(os.fsencode(target)).hexdigest()[:20]


def _message_json(message: ChatMessage) -> dict[str, Any]:
    record: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.tool_calls:
        record["toolCalls"] = [
            {"id": c.id, "name": c.name, "arguments": c.arguments} for c in message.tool_calls
        ]
    if message.tool_call_id is not None:
        record["toolCallId"] = message.tool_call_id
    return record


def _message(record: dict[str, Any]) -> ChatMessage:
    calls = tuple(
        NativeToolCall(str(c["id"]), str(c["name"]), dict(c["arguments"]))
        for c in record.get("toolCalls", [])
    )
    return ChatMessage(record["role"], str(record["content"]), calls, record.get("toolCallId"))


class SessionStore:
    """The stored conversations of one workspace."""

    def __init__(self, workspace: Path | None, directory: Path | None = None) -> None:
        self.workspace = workspace
        self.directory = directory or default_sessions_dir(workspace)

    def _path(self, session_id: str) -> Path:
        if not SESSION_ID.match(session_id):
            raise UnknownSession(session_id)
        return self.directory / f"{session_id}.json"

    def save(
        self, session_id: str, messages: list[ChatMessage], shown: Sequence[ShownEntry] = ()
    ) -> None:
        """Write the whole conversation: the model's transcript and what the user saw
        (atomic; the folder and file are private)."""
        make_private_dir(self.directory)
        first_user = next((e.text for e in shown if isinstance(e, ShownUser)), None)
        if first_user is None:
            first_user = next((m.content for m in messages if m.role == "user"), "")
        record = {
            "id": session_id,
            "workspace": str(self.workspace) if self.workspace else None,
            "title": first_user.strip().splitlines()[0][:80] if first_user.strip() else "",
            "updated": time.time(),
            "messages": [_message_json(m) for m in messages],
            "conversation": CONVERTER.unstructure(list(shown), list[ShownEntry]),
        }
        data = json.dumps(record, ensure_ascii=False).encode("utf-8")
        target = self._path(session_id)
        handle, temp = tempfile.mkstemp(dir=self.directory, prefix=".tmp-")  # mode 0600
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(data)
            os.replace(temp, target)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temp)
            raise

    def load(self, session_id: str) -> list[ChatMessage]:
        """The stored messages of `session_id` (UnknownSession when there are none,
        CorruptSession, naming the file, when it cannot be read back)."""
        return self.load_chat(session_id).messages

    def load_chat(self, session_id: str) -> StoredChat:
        """The stored transcript of `session_id` and what its user saw (derived from the
        transcript for a file stored without it); errors as `load`."""
        path = self._path(session_id)
        try:
            return _read(path)
        except FileNotFoundError:
            raise UnknownSession(session_id) from None
        except _Damaged as damage:
            raise CorruptSession(session_id, path, str(damage)) from None

    def exists(self, session_id: str) -> bool:
        try:
            return self._path(session_id).is_file()
        except UnknownSession:
            return False

    def list(self) -> list[SessionInfo]:
        """Stored sessions, most recently updated first."""
        infos = []
        for path in self.directory.glob("*.json"):
            try:
                stored = _read(path)
                turns = sum(1 for e in stored.shown if isinstance(e, ShownUser))
                infos.append(SessionInfo(path.stem, stored.title, stored.updated, turns))
            except FileNotFoundError:
                continue  # deleted meanwhile
            except (_Damaged, OSError) as damage:  # listed, named, left for the user
                reason = str(damage) if isinstance(damage, _Damaged) else _os_reason(damage)
                updated = _mtime(path)
                infos.append(SessionInfo(path.stem, "", updated, 0, f"{path} ({reason})"))
        return sorted(infos, key=lambda info: info.updated, reverse=True)

    def delete(self, session_id: str) -> None:
        try:
            self._path(session_id).unlink()
        except FileNotFoundError:
            raise UnknownSession(session_id) from None


class _Damaged(ValueError):
    """A stored session file that cannot be read back as a conversation; the message says
    how (never the content)."""


@dataclass(frozen=True)
class StoredChat:
    title: str
    updated: float
    messages: list[ChatMessage]  # the model's transcript
    shown: list[ShownEntry]  # what the user saw (server.conversation)


def _read(path: Path) -> StoredChat:
    """The conversation stored in `path` (_Damaged when it cannot be read back)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise
    except OSError as error:
        raise _Damaged(f"unreadable: {_os_reason(error)}") from None
    try:
        record = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise _Damaged("not UTF-8 text") from None
    except json.JSONDecodeError as error:
        where = f"line {error.lineno}, column {error.colno}"
        raise _Damaged(f"not valid JSON: {error.msg} ({where})") from None
    except RecursionError:
        raise _Damaged("not valid JSON: nested too deeply") from None
    try:
        messages = [_message(m) for m in record["messages"]]
        title, updated = str(record.get("title", "")), float(record.get("updated", 0))
    except (KeyError, TypeError, ValueError, AttributeError):
        raise _Damaged("not a stored conversation: its messages are missing or malformed") from None
    return StoredChat(title, updated, messages, _shown(path, record, messages))


def _shown(path: Path, record: Any, messages: list[ChatMessage]) -> list[ShownEntry]:
    """What the user saw: stored beside the transcript, else derived from it (a file from an
    older agent-ls, or one whose `conversation` cannot be read: the transcript still works)."""
    if "conversation" not in record:
        return derive(messages)
    try:
        return CONVERTER.structure(record["conversation"], list[ShownEntry])
    except Exception as error:  # cattrs' ClassValidationError and friends: any bad shape
        log.warning("%s: its conversation is unreadable (%s); shown from its messages", path, error)
        return derive(messages)


def _os_reason(error: OSError) -> str:
    return error.strerror or type(error).__name__


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


# One thread does every store operation of the process, in the order they were asked for.
# Its queued work is finished before the interpreter exits (concurrent.futures joins it).
_STORE_THREAD = ThreadPoolExecutor(max_workers=1, thread_name_prefix="agent-ls sessions")


async def in_store_order(work: Callable[..., T], *args: Any) -> T:
    """`work(*args)` on the store thread, after every store operation asked for before."""
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(_STORE_THREAD, functools.partial(work, *args))


def save_in_background(
    store: SessionStore,
    session_id: str,
    messages: list[ChatMessage],
    shown: Sequence[ShownEntry] = (),
) -> None:
    """Save the conversation on the store thread without waiting for it (a failure is
    logged). Later `in_store_order` operations see it saved."""
    future = _STORE_THREAD.submit(store.save, session_id, list(messages), list(shown))
    future.add_done_callback(functools.partial(_log_failed_save, session_id, store.directory))


def _log_failed_save(session_id: str, directory: Path, future: Future[None]) -> None:
    error = None if future.cancelled() else future.exception()
    if error is not None:
        log.warning(
            "the conversation %s could not be saved in %s: %s", session_id, directory, error
        )


def message_size(message: ChatMessage) -> int:
    """A message's cost in characters (a token is about 4 of them)."""
    calls = sum(len(json.dumps(c.arguments)) + len(c.name) for c in message.tool_calls)
    return len(message.content) + calls + 8


def is_tool_output(message: ChatMessage) -> bool:
    """Tool results: native `tool` messages and the JSON protocol's feedback messages."""
    return message.role == "tool" or (
        message.role == "user" and message.content.startswith(TOOL_FEEDBACK)
    )


def trim_history(history: list[ChatMessage], budget_chars: int) -> list[ChatMessage]:
    """Earlier turns cut to fit `budget_chars`: oldest tool outputs elided first, then the
    oldest exchanges dropped whole (a turn starts at a user message that is not tool output).
    The caller appends the current turn after this; it is never trimmed."""
    messages = list(history)
    total = sum(message_size(m) for m in messages)
    for index, message in enumerate(messages):
        if total <= budget_chars:
            return messages
        if is_tool_output(message) and message.content != ELIDED:
            total -= message_size(message) - message_size(
                ChatMessage(message.role, ELIDED, (), message.tool_call_id)
            )
            messages[index] = ChatMessage(message.role, ELIDED, (), message.tool_call_id)
    while total > budget_chars and messages:
        cut = _next_turn_start(messages)
        total -= sum(message_size(m) for m in messages[:cut])
        messages = messages[cut:]
    return messages


def _next_turn_start(messages: list[ChatMessage]) -> int:
    """Length of the oldest exchange: up to the next user message that starts a turn."""
    for index in range(1, len(messages)):
        message = messages[index]
        if message.role == "user" and not is_tool_output(message):
            return index
    return len(messages)
