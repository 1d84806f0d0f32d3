"""Review mode over ACP, driven by the official SDK's client side against `agent-ls acp`: the
plan entries stay pending until the user decides and end applied or rejected, update by
update; every permission request refers to a tool call announced before it; the model's
closing answer is read after the decisions; the `review` session config option switches
review on and off within one session; `allow_always` applies the rest and turns review off;
a cancelled request rejects the undecided files; an allowed file the editor refuses to write
ends "not applied"."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from acp import RequestError, text_block
from acp.schema import (
    AllowedOutcome,
    DeniedOutcome,
    RequestPermissionResponse,
    ToolCallProgress,
    ToolCallStart,
    WriteTextFileResponse,
)

from tests.e2e.conversations import (
    FULL_CONVERSATION,
    NEW_MODULE,
    SEED_FILES,
    doc,
    fenced,
    seed_project,
    tree,
)
from tests.e2e.test_acp import RecordingClient, acp_agent
from tests.fakellm import FakeLLM, last_user_message

ANSWER = "Done: greet() lives in src/new.py."


class ReviewingClient(RecordingClient):
    """Answers each permission request with the option of the kind it is told (or cancels),
    and keeps one timeline of updates and permission requests, in the order they came."""

    def __init__(self, answers: list[str]) -> None:
        super().__init__()
        self.kinds_to_pick = answers  # "allow_once", "allow_always", "reject_once", "cancel"
        self.timeline: list[tuple[str, Any]] = []
        self.offered: list[list[str]] = []

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.timeline.append(("update", update))
        await super().session_update(session_id, update, **kwargs)

    async def request_permission(
        self, session_id: str, tool_call: Any, options: list[Any], **kwargs: Any
    ) -> RequestPermissionResponse:
        self.timeline.append(("permission", tool_call))
        self.permissions.append(tool_call)
        self.offered.append([o.kind for o in options])
        kind = self.kinds_to_pick.pop(0) if self.kinds_to_pick else "reject_once"
        if kind == "cancel":
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        option = next(o for o in options if o.kind == kind)
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=option.option_id)
        )

    def plans(self) -> list[list[tuple[str, str]]]:
        """Every plan update, as (content, status) pairs."""
        return [
            [(e.content, e.status) for e in u.entries]
            for u in self.updates
            if u.session_update == "plan"
        ]

    def first_permission(self) -> int:
        return next(i for i, (what, _) in enumerate(self.timeline) if what == "permission")

    def tool_statuses(self) -> dict[str, list[str | None]]:
        """Each tool call's statuses, by id, in the order they were sent."""
        statuses: dict[str, list[str | None]] = {}
        for update in self.updates:
            if isinstance(update, ToolCallStart | ToolCallProgress):
                statuses.setdefault(update.tool_call_id, []).append(update.status)
        return statuses


def review_option(response: Any) -> str:
    options = {o.id: o for o in response.config_options or []}
    assert options["review"].type == "select"
    assert [v.value for v in options["review"].options] == ["on", "off"]
    return str(options["review"].current_value)


def one_file_plan(path: str, content: str) -> list[str]:
    return [
        fenced(
            action="start_multi_file",
            plan={"description": f"Create {path}", "files_to_modify": [path]},
            first_file={"action": "create_file", "file": {"path": path, "content": content}},
        ),
        doc(action="text_response", text_response=f"Created {path}."),
    ]


async def test_entries_stay_pending_until_decided_and_a_rejected_file_ends_rejected(
    tmp_path: Path,
) -> None:
    root = seed_project(tmp_path / "ws")
    before = tree(root)
    client = ReviewingClient(["allow_once", "reject_once", "reject_once"])
    with FakeLLM({"replies": FULL_CONVERSATION}) as llm:
        async with acp_agent(llm, client, AGENT_LS_REVIEW="on") as conn:
            session = await conn.new_session(cwd=str(root))
            assert review_option(session) == "on"
            response = await conn.prompt(
                session_id=session.session_id, prompt=[text_block("Add a greeting module")]
            )
    assert response.stop_reason == "end_turn"
    assert tree(root) == {**before, "src/new.py": NEW_MODULE}

    # Before the user decided anything, no entry was ever completed.
    asked_at = client.first_permission()
    early = [u for what, u in client.timeline[:asked_at] if what == "update"]
    early_plans = [[e.status for e in u.entries] for u in early if u.session_update == "plan"]
    assert early_plans[0] == ["pending", "pending", "pending"]  # the plan, before the questions
    assert "completed" not in {status for plan in early_plans for status in plan}, early_plans
    assert early_plans[-1] == ["in_progress", "pending", "pending"]  # asked about src/new.py

    # Update by update: each file in progress while asked, then decided.
    plans = client.plans()
    assert plans[-1] == [
        ("src/new.py", "completed"),
        ("src/app.py (rejected)", "completed"),
        ("old.txt (rejected)", "completed"),
    ]
    asked_app = [p for p in plans if ("src/app.py", "in_progress") in p]
    assert asked_app
    assert ("src/new.py", "in_progress") in asked_app[0]  # allowed, not written yet

    # Each permission request refers to a tool call announced before it.
    announced: set[str] = set()
    for what, item in client.timeline:
        if what == "update" and isinstance(item, ToolCallStart):
            announced.add(item.tool_call_id)
        elif what == "permission":
            assert item.tool_call_id in announced, item.tool_call_id
    calls = [p.tool_call_id for p in client.permissions]
    statuses = client.tool_statuses()
    assert [statuses[c] for c in calls] == [
        ["pending", "completed"],
        ["pending", "failed"],
        ["pending", "failed"],
    ]
    assert [p.title for p in client.permissions] == [
        "Create src/new.py",
        "Edit src/app.py",
        "Delete old.txt",
    ]
    assert client.permissions[1].content[0].old_text == SEED_FILES["src/app.py"]
    edits = [u for u in client.updates if isinstance(u, ToolCallStart) and u.kind == "edit"]
    assert len(edits) == 2  # the written file is not announced a second time

    # The model's closing answer comes after the decisions, then what was done.
    text_at = [
        i
        for i, (what, u) in enumerate(client.timeline)
        if what == "update" and u.session_update == "agent_message_chunk"
    ]
    answer_at = next(i for i in text_at if ANSWER in client.timeline[i][1].content.text)
    last_permission = max(i for i, (what, _) in enumerate(client.timeline) if what == "permission")
    assert answer_at > last_permission
    done = r"applied src/new\.py \(/undo reverts it\); rejected src/app\.py, old\.txt"
    ending = rf"agent-ls: {done} \[\w+\]\n$"
    assert re.search(ending, client.text()), client.text()


async def test_the_review_option_switches_review_on_and_off_within_one_session(
    tmp_path: Path,
) -> None:
    root = seed_project(tmp_path / "ws")
    before = tree(root)
    client = ReviewingClient(["reject_once"])
    script = [*one_file_plan("/a.txt", "A\n"), *one_file_plan("/b.txt", "B\n")]
    script += one_file_plan("/c.txt", "C\n")
    with FakeLLM({"replies": script}) as llm:
        async with acp_agent(llm, client) as conn:
            session = await conn.new_session(cwd=str(root))
            sid = session.session_id
            assert review_option(session) == "off"  # the setting's default
            await conn.prompt(session_id=sid, prompt=[text_block("a")])
            assert tree(root) == {**before, "a.txt": "A\n"}  # written, nobody asked
            assert client.permissions == []

            switched = await conn.set_config_option(config_id="review", session_id=sid, value="on")
            assert review_option(switched) == "on"
            await conn.prompt(session_id=sid, prompt=[text_block("b")])
            assert [p.title for p in client.permissions] == ["Create b.txt"]
            assert tree(root) == {**before, "a.txt": "A\n"}  # rejected: not written

            switched = await conn.set_config_option(config_id="review", session_id=sid, value="off")
            assert review_option(switched) == "off"
            await conn.prompt(session_id=sid, prompt=[text_block("c")])
            assert len(client.permissions) == 1  # not asked again
            assert tree(root) == {**before, "a.txt": "A\n", "c.txt": "C\n"}

            with pytest.raises(RequestError, match="unknown option 'model'"):
                await conn.set_config_option(config_id="model", session_id=sid, value="on")
            with pytest.raises(RequestError, match="'maybe' is not a value of review"):
                await conn.set_config_option(config_id="review", session_id=sid, value="maybe")
            with pytest.raises(RequestError, match="unknown session"):
                await conn.set_config_option(config_id="review", session_id="nope", value="on")
            loaded = await conn.load_session(cwd=str(root), session_id=sid)
            assert review_option(loaded) == "off"


async def test_allow_always_applies_the_rest_and_turns_review_off(tmp_path: Path) -> None:
    root = seed_project(tmp_path / "ws")
    client = ReviewingClient(["allow_always"])
    script = [*FULL_CONVERSATION, *one_file_plan("/later.txt", "later\n")]
    with FakeLLM({"replies": script}) as llm:
        async with acp_agent(llm, client, AGENT_LS_REVIEW="on") as conn:
            session = await conn.new_session(cwd=str(root))
            sid = session.session_id
            await conn.prompt(session_id=sid, prompt=[text_block("Add a greeting module")])
            assert "allow_always" in client.offered[0]
            assert len(client.permissions) == 1  # the rest of the plan was not asked about
            assert (root / "src/new.py").read_text() == NEW_MODULE
            assert not (root / "old.txt").exists()
            updates = [u for u in client.updates if u.session_update == "config_option_update"]
            assert [review_option(u) for u in updates] == ["off"]
            assert "review is off for this session" in client.text()
            assert client.plans()[-1] == [
                ("src/new.py", "completed"),
                ("src/app.py", "completed"),
                ("old.txt", "completed"),
            ]

            await conn.prompt(session_id=sid, prompt=[text_block("one more")])
    assert len(client.permissions) == 1  # the later plan was written without asking
    assert (root / "later.txt").read_text() == "later\n"


async def test_a_cancelled_request_rejects_the_undecided_files(tmp_path: Path) -> None:
    root = seed_project(tmp_path / "ws")
    before = tree(root)
    client = ReviewingClient(["allow_once", "cancel"])
    with FakeLLM({"replies": [*FULL_CONVERSATION, "ok"]}) as llm:
        async with acp_agent(llm, client, AGENT_LS_REVIEW="on") as conn:
            session = await conn.new_session(cwd=str(root))
            sid = session.session_id
            await conn.prompt(session_id=sid, prompt=[text_block("Add a greeting module")])
            assert len(client.permissions) == 2  # old.txt was never asked about
            assert client.plans()[-1] == [
                ("src/new.py", "completed"),
                ("src/app.py (cancelled)", "completed"),
                ("old.txt (cancelled)", "completed"),
            ]
            await conn.prompt(session_id=sid, prompt=[text_block("why?")])
        sent = last_user_message(llm.requests[-1])
    assert tree(root) == {**before, "src/new.py": NEW_MODULE}
    assert "rejected your change to src/app.py, old.txt" in sent


class RefusingClient(ReviewingClient):
    """Allows every file, then refuses to write it (fs/write_text_file fails)."""

    async def write_text_file(
        self, session_id: str, path: str, content: str, **kwargs: Any
    ) -> WriteTextFileResponse:
        raise RequestError(-32000, "Permission denied")


async def test_an_allowed_file_the_editor_refuses_ends_not_applied(tmp_path: Path) -> None:
    root = seed_project(tmp_path / "ws")
    before = tree(root)
    client = RefusingClient(["allow_once", "allow_once", "allow_once"])
    with FakeLLM({"replies": FULL_CONVERSATION}) as llm:
        async with acp_agent(llm, client, fs=True, AGENT_LS_REVIEW="on") as conn:
            session = await conn.new_session(cwd=str(root))
            response = await conn.prompt(
                session_id=session.session_id, prompt=[text_block("Add a greeting module")]
            )
    assert response.stop_reason == "end_turn"
    assert tree(root) == before  # rolled back whole: one checkpoint or nothing
    assert client.plans()[-1] == [
        ("src/new.py (not applied)", "completed"),
        ("src/app.py (not applied)", "completed"),
        ("old.txt (not applied)", "completed"),
    ]
    statuses = client.tool_statuses()
    assert [statuses[p.tool_call_id][-1] for p in client.permissions] == ["failed"] * 3
    assert "agent-ls: nothing was applied:" in client.text()
    assert "Permission denied" in client.text()
