"""`local`: the embedded model (llama-cpp-python + the SmolLM2 GGUF of the `local` extra).

Runs the real model; skipped only where llama_cpp is not importable.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from actions.apply import DiskApplier, FileWrite
from actions.paths import Workspace
from actions.prompt import render_system_prompt
from actions.schema import (
    ContinueMultiFile,
    StartMultiFile,
    TextResponse,
    ToolCallAction,
    validate_action,
)
from actions.tools import default_registry
from parsing import ActionBlock, parse_reply
from server.config import Config
from server.providers.base import ChatMessage, ProviderError
from server.providers.constraints import TurnState
from server.providers.local import LocalProvider, bundled_model, llama_installed
from tests.unit.providers.conftest import collect

pytestmark = pytest.mark.skipif(not llama_installed(), reason="llama_cpp is not importable")

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "hello"
EDIT_PROMPT = "start_multi_file: create notes.txt containing buy milk"


def provider(**settings: object) -> LocalProvider:
    values: dict[str, object] = {"provider": "local", "maxTokens": 600, "contextSize": 4096}
    return LocalProvider(Config(**{**values, **settings}))  # type: ignore[arg-type]


def conversation(user: str, root: Path = EXAMPLE) -> list[ChatMessage]:
    workspace = Workspace(root)
    manifests = default_registry(workspace).manifests()
    system = render_system_prompt(manifests, workspace_name=workspace.name)
    return [ChatMessage("system", system), ChatMessage("user", user)]


def the_document(reply: str) -> dict[str, object]:
    blocks = [b for b in parse_reply(reply) if isinstance(b, ActionBlock)]
    assert len(blocks) == 1, f"expected one action document in {reply!r}"
    assert not blocks[0].repaired
    assert not blocks[0].suspect
    return dict(blocks[0].document)


def test_the_bundled_model_is_found_through_the_installed_package() -> None:
    model = bundled_model()
    assert model is not None
    assert model.name == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert model.stat().st_size > 50_000_000


@pytest.mark.parametrize(
    "question", ["What does hello.py do?", "Write a haiku about the sea", EDIT_PROMPT]
)
async def test_every_reply_is_one_valid_action_document(question: str) -> None:
    reply = await collect(provider(), conversation(question))
    assert reply.finish_reason == "stop"
    validate_action(the_document(reply.text))  # raises InvalidAction if not


async def test_a_reply_cut_at_max_tokens_finishes_with_length() -> None:
    reply = await collect(provider(maxTokens=8), conversation("Write a haiku about the sea"))
    assert reply.finish_reason == "length"
    assert 0 < len(reply.text) < 80


def example_state(**fields: object) -> TurnState:
    tools = tuple(default_registry(Workspace(EXAMPLE)).manifests())
    files = tuple(sorted(p.name for p in EXAMPLE.iterdir() if p.is_file()))
    return TurnState(tools, files, **fields)  # type: ignore[arg-type]


STATES = {
    "no plan": example_state(),
    "planned files left": example_state(plan_remaining=("notes.txt", "hello.py")),
    "plan complete": example_state(plan_remaining=()),
    "tools used": example_state(tools_called=("list_files", "read_file")),
}


@pytest.mark.parametrize("name", list(STATES))
async def test_what_the_model_writes_is_valid_in_the_turn_state(name: str) -> None:
    state = STATES[name]
    local = provider(maxTokens=400)
    chunks = [c async for c in local.stream_constrained(conversation(EDIT_PROMPT), state=state)]
    reply = "".join(c.text for c in chunks)
    assert chunks[-1].finish_reason == "stop", reply
    action = validate_action(the_document(reply))
    files = set(state.files or ())
    if state.plan_remaining is None:
        if isinstance(action, ToolCallAction):
            assert action.tool_call.function_name not in state.tools_called
        if isinstance(action, StartMultiFile):
            path = action.first_file.path.lstrip("/")
            assert (path in files) == (action.first_file.action == "update_file")
    elif state.plan_remaining:
        assert isinstance(action, ContinueMultiFile), reply
        path = action.next_file.path.lstrip("/")
        assert path in state.plan_remaining
        assert (path in files) == (action.next_file.action != "create_file")
    else:
        assert isinstance(action, TextResponse), reply
        assert action.text_response.strip()


async def test_a_plan_from_the_model_applies_to_a_workspace(tmp_path: Path) -> None:
    root = tmp_path / EXAMPLE.name  # same name, same prompt: the model's prompt cache applies
    root.mkdir()
    (root / "hello.py").write_text((EXAMPLE / "hello.py").read_text())
    reply = await collect(provider(), conversation(EDIT_PROMPT, root))
    action = validate_action(the_document(reply.text))
    assert isinstance(action, StartMultiFile), f"the model answered {reply.text!r}"
    workspace = Workspace(root)
    target = workspace.resolve(action.first_file.path, for_write=True)
    await DiskApplier(root).apply([FileWrite(target, action.first_file.content)])
    assert target.absolute.read_text() == action.first_file.content


async def test_cancelling_stops_generation_and_frees_the_model() -> None:
    local = provider(maxTokens=500)
    model = await asyncio.to_thread(local.load)
    before = model.tokens_generated
    first = asyncio.Event()

    async def consume() -> None:
        async for chunk in local.stream_chat(
            conversation("Write a very long story about a dragon")
        ):
            if chunk.text:
                first.set()

    task = asyncio.ensure_future(consume())
    await first.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await asyncio.to_thread(model.lock.acquire)  # the worker thread let go of the model
    model.lock.release()
    assert model.tokens_generated - before < 20, "generation went on after the cancellation"
    assert (await collect(local, conversation("Say hi"))).text  # and it answers again


async def test_the_event_loop_keeps_running_during_inference() -> None:
    ticks = 0
    done = False

    async def ticker() -> None:
        nonlocal ticks
        while not done:
            ticks += 1
            await asyncio.sleep(0.01)

    tick_task = asyncio.ensure_future(ticker())
    local = provider()
    await asyncio.to_thread(local.load)
    await collect(local, conversation("Write a haiku about the sea"))
    done = True
    await tick_task
    assert ticks > 3


async def test_a_missing_model_file_is_a_clear_error(tmp_path: Path) -> None:
    missing = tmp_path / "nope.gguf"
    with pytest.raises(ProviderError) as failure:
        await collect(provider(modelPath=str(missing)), conversation("hi"))
    assert str(missing) in str(failure.value)
    assert "agentLs.modelPath" in failure.value.hint


async def test_a_file_that_is_not_a_model_is_a_clear_error(tmp_path: Path) -> None:
    bogus = tmp_path / "bogus.gguf"
    bogus.write_bytes(b"not a gguf file at all")
    with pytest.raises(ProviderError) as failure:
        await collect(provider(modelPath=str(bogus)), conversation("hi"))
    assert "cannot load" in str(failure.value)
