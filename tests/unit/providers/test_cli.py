"""`cli` against the scripted fake agent command (tests/fakecli): real processes."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from server.config import Config
from server.providers.base import ProviderError, StreamChunk
from server.providers.cli import CliProvider
from tests.fakecli import command
from tests.unit.providers.conftest import ask, collect


def provider(workspace: Path, argv: list[str], timeout: float = 60.0) -> CliProvider:
    config = Config(provider="cli", cliCommand=tuple(argv), cliTimeout=timeout)
    return CliProvider(config, workspace)


def alive(pid: int) -> bool:
    """True while the process exists and is not a zombie."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


async def gone(pid: int) -> bool:
    """Wait (up to 10 s: signals are delivered asynchronously) for the process to end."""
    for _ in range(1000):
        if not alive(pid):
            return True
        await asyncio.sleep(0.01)
    return False


async def wait_for_file(path: Path) -> str:
    while not path.exists():
        await asyncio.sleep(0.01)
    return path.read_text()


async def test_success_streams_assistant_text_and_runs_in_the_workspace(tmp_path: Path) -> None:
    reply = await collect(provider(tmp_path, command("success")), ask("add a docstring"))
    assert reply.text == "Let me look at the workspace.Done: add a docstring"
    assert reply.finish_reason == "stop"
    assert (tmp_path / "fakecli.txt").read_text() == "add a docstring"  # cwd + prompt on stdin


async def test_prompt_placeholder_goes_into_the_argv(tmp_path: Path) -> None:
    argv = command("garbage", "--prompt", "say {prompt} twice")
    reply = await collect(provider(tmp_path, argv), ask("hi"))
    assert reply.text == "Answer after noise: say hi twice"  # result after garbage lines


async def test_plan_mode_result_becomes_the_plan_shown_to_the_user(tmp_path: Path) -> None:
    reply = await collect(provider(tmp_path, command("plan")), ask("rename the module"))
    assert reply.text.startswith("I will plan first.")
    assert "Plan (proposed, nothing applied):\n1. Read the code\n2. rename the module" in reply.text
    assert "Plan ready for review." not in reply.text


async def test_no_result_is_an_error_with_its_code(tmp_path: Path) -> None:
    with pytest.raises(ProviderError) as failure:
        await collect(provider(tmp_path, command("no_result")), ask("think"))
    assert failure.value.provider == "cli"
    assert "no_valid_result_found" in str(failure.value)


async def test_an_error_result_names_its_subtype(tmp_path: Path) -> None:
    with pytest.raises(ProviderError) as failure:
        await collect(provider(tmp_path, command("error")), ask("loop"))
    assert "error_max_turns" in str(failure.value)
    assert "Reached the maximum number of turns" in str(failure.value)


async def test_a_crash_reports_the_exit_status_and_stderr(tmp_path: Path) -> None:
    with pytest.raises(ProviderError) as failure:
        await collect(provider(tmp_path, command("crash")), ask("hi"))
    message = str(failure.value)
    assert "empty_logs" in message
    assert "exit status 3" in message
    assert "fatal: not logged in" in message


async def test_a_missing_program_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ProviderError) as failure:
        await collect(provider(tmp_path, ["no-such-agent-cli-xyz", "-p"]), ask("hi"))
    assert "no-such-agent-cli-xyz" in str(failure.value)
    assert "cliCommand" in failure.value.hint


async def test_no_command_configured_says_how_to_set_one(tmp_path: Path) -> None:
    with pytest.raises(ProviderError) as failure:
        await collect(CliProvider(Config(provider="cli"), tmp_path), ask("hi"))
    assert "agentLs.cliCommand" in failure.value.hint


async def test_timeout_kills_the_whole_process_group(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pids = tmp_path / "pids"
    monkeypatch.setenv("FAKECLI_PIDS", str(pids))
    # The timeout is long enough for the command to start its child and write the pids.
    cli = provider(tmp_path, command("sleep"), timeout=1.5)
    chunks: list[StreamChunk] = []

    async def consume() -> None:
        async for chunk in cli.stream_chat(ask("forever")):
            chunks.append(chunk)

    with pytest.raises(ProviderError) as failure:
        await consume()
    assert "did not finish within 1.5s" in str(failure.value)
    assert "".join(c.text for c in chunks) == "Working on it..."
    agent, child = map(int, pids.read_text().split())
    assert not alive(agent)
    assert await gone(child), "the agent's child survived: the group was not killed"


async def test_cancellation_kills_the_whole_process_group(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pids = tmp_path / "pids"
    monkeypatch.setenv("FAKECLI_PIDS", str(pids))
    cli = provider(tmp_path, command("sleep"))

    async def consume() -> None:
        async for _ in cli.stream_chat(ask("forever")):
            pass

    task = asyncio.ensure_future(consume())
    agent, child = map(int, (await wait_for_file(pids)).split())
    assert alive(agent)
    assert alive(child)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not alive(agent)
    assert await gone(child), "the agent's child survived: the group was not killed"


async def test_text_streams_before_the_command_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    go = tmp_path / "go"
    monkeypatch.setenv("FAKECLI_GO", str(go))
    stream = provider(tmp_path, command("wait")).stream_chat(ask("two parts"))
    first = await anext(stream)
    assert first.text == "First part. "
    assert not go.exists()  # the command is still waiting for us
    go.touch()
    rest = [chunk async for chunk in stream]
    assert "".join(c.text for c in rest) == "Second part."  # the result was already streamed


def test_the_command_setting_takes_a_list_or_a_shell_like_string() -> None:
    from server.config import from_environment, merge

    config, problems = from_environment({"AGENT_LS_CLI_COMMAND": "my-agent -p 'two words'"})
    assert problems == []
    assert config.cliCommand == ("my-agent", "-p", "two words")
    config, problems = merge(config, {"cliCommand": ["other", "--json"]}, "settings")
    assert config.cliCommand == ("other", "--json")
    config, problems = merge(config, {"cliCommand": ["ok", 3]}, "settings")
    assert config.cliCommand == ("other", "--json")  # the bad value is reported, not used
    assert [p.key for p in problems] == ["cliCommand"]
