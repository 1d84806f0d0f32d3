"""The `mcpServers` setting (server/mcp_config.py) and the names and results of MCP tools
(server/mcp/tools.py), as plain functions over values."""

from __future__ import annotations

import base64
from typing import Any

import mcp_types
import pytest

from server.config import Config, from_environment, merge
from server.mcp.tools import MAX_NAME, render, tool_name
from server.mcp_config import parse_servers
from server.redact import redact


def test_stdio_and_http_entries_are_typed_in_order() -> None:
    git, docs = parse_servers(
        {
            "git": {"command": "uvx", "args": ["mcp-server-git"], "cwd": "~/src", "allow": "*"},
            "docs": {"url": "https://h.example/mcp", "headers": {"X": "1"}, "allow": ["a"]},
        }
    )
    assert (git.transport, git.command, git.args, git.cwd) == (
        "stdio",
        "uvx",
        ("mcp-server-git",),
        "~/src",
    )
    assert git.allows("anything")
    assert (docs.transport, docs.url, docs.headers) == (
        "http",
        "https://h.example/mcp",
        (("X", "1"),),
    )
    assert docs.allows("a")
    assert not docs.allows("b")
    hash(Config(mcpServers=(git, docs)))  # part of the (hashable) configuration


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ([], 'an object {"<name>"'),
        ({"x": "uvx"}, 'server "x": an object with "command" or "url"'),
        ({"x": {}}, 'server "x": exactly one of "command" (stdio) or "url" (HTTP)'),
        ({"x": {"command": "a", "url": "http://h/"}}, "exactly one of"),
        ({"x": {"command": ""}}, 'server "x": "command" must be a non-empty string'),
        ({"x": {"command": "a", "args": "b c"}}, '"args" must be a list of strings'),
        ({"x": {"command": "a", "env": {"K": 1}}}, '"env" must be an object of strings'),
        ({"x": {"command": "a", "headers": {}}}, "unknown key(s) headers"),
        ({"x": {"url": "ftp://h/"}}, '"url" must be an http:// or https:// URL'),
        ({"x": {"command": "a", "allow": "all"}}, '"allow" must be a list of tool names or "*"'),
        ({"a b": {"command": "a"}}, "server names of letters"),
    ],
)
def test_a_bad_entry_names_the_server_and_the_problem(value: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_servers(value)


def test_a_bad_setting_keeps_the_previous_servers_and_never_shows_a_secret() -> None:
    good, _ = merge(Config(), {"mcpServers": {"git": {"command": "git-mcp"}}}, "settings")
    secret = "tok-9f8e7d6c5b4a3921"
    bad = {"mcpServers": {"t": {"command": "x", "env": {"TOKEN": secret}, "oops": 1}}}
    config, (problem,) = merge(good, bad, "workspace/configuration")
    assert config.mcpServers == good.mcpServers
    assert 'server "t": unknown key(s) oops' in problem.message()
    assert secret not in problem.message()


def test_variables_are_expanded_at_start_and_masked_from_then_on() -> None:
    (spec,) = parse_servers(
        {"h": {"url": "https://h.example/mcp", "headers": {"Authorization": "Bearer ${T}"}}}
    )
    assert spec.headers == (("Authorization", "Bearer ${T}"),)
    headers = spec.expanded_headers({"T": "s3cr3t-value-123456"})
    assert headers == {"Authorization": "Bearer s3cr3t-value-123456"}
    assert "s3cr3t-value-123456" not in redact("sent Bearer s3cr3t-value-123456 to h")
    assert spec.expanded_env({}) == {}
    (unset,) = parse_servers({"s": {"command": "x", "env": {"A": "${NOT_SET_ANYWHERE}"}}})
    assert unset.expanded_env({}) == {"A": ""}


def test_the_environment_names_a_config_file(tmp_path: Any) -> None:
    path = tmp_path / "mcp.json"
    path.write_text('{"mcpServers": {"git": {"command": "git-mcp"}}}')
    config, problems = from_environment({"AGENT_LS_MCP_CONFIG": str(path)})
    assert problems == []
    assert [s.name for s in config.mcpServers] == ["git"]
    path.write_text('{"servers": {}}')
    config, (problem,) = from_environment({"AGENT_LS_MCP_CONFIG": str(path)})
    assert config.mcpServers == ()
    assert '{"mcpServers": {...}}' in problem.message()
    config, (missing,) = from_environment({"AGENT_LS_MCP_CONFIG": str(tmp_path / "none.json")})
    assert "a readable JSON file" in missing.message()


@pytest.mark.parametrize(
    ("server", "tool", "expected"),
    [
        ("git", "git_status", "mcp__git__git_status"),
        ("everything", "get-sum", "mcp__everything__get-sum"),
        ("my.server", "do it/now", "mcp__my_server__do_it_now"),
        ("s", "工具", "mcp__s____"),
    ],
)
def test_names_are_valid_for_native_tool_calling(server: str, tool: str, expected: str) -> None:
    assert tool_name(server, tool, set()) == expected


def test_names_are_cut_to_64_and_unique() -> None:
    taken: set[str] = set()
    long = "t" * 100
    first = tool_name("server", long, taken)
    second = tool_name("server", long, taken)
    third = tool_name("server", long + "x", taken)
    assert len(first) == MAX_NAME
    assert len({first, second, third}) == 3
    assert all(len(name) <= MAX_NAME for name in (second, third))
    assert second.endswith("_2")
    assert third.endswith("_3")


def test_results_text_in_order_structured_as_json_blobs_as_one_line() -> None:
    png = base64.b64encode(b"\x89PNG" + b"\0" * 96).decode()
    result = mcp_types.CallToolResult(
        content=[
            mcp_types.TextContent(type="text", text="first"),
            mcp_types.ImageContent(type="image", data=png, mime_type="image/png"),
            mcp_types.TextContent(type="text", text="second"),
        ],
        structured_content={"sum": 42},
    )
    text = render(result)
    assert text.index("first") < text.index("[image image/png, 100 bytes]") < text.index("second")
    assert '"sum": 42' in text
    assert png not in text


def test_long_results_are_cut_like_command_output() -> None:
    lines = "\n".join(f"line {n}" for n in range(20_000))
    text = render(
        mcp_types.CallToolResult(content=[mcp_types.TextContent(type="text", text=lines)])
    )
    assert text.startswith("line 0\n")
    assert text.rstrip().endswith("line 19999")
    assert "left out" in text
    assert len(text) < 20_000
