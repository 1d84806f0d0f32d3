"""`agent-ls parse [FILE|-] [--snippets]` prints one JSON object per block / snippet."""

from __future__ import annotations

import argparse
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from server.commands import parse as parse_command

REPLY = (
    "Reading first.\n"
    '<tool_call>{"name": "read_file", "arguments": {"path": "a.py"}}</tool_call>\n'
    '```json\n{"action": "text_response", "text_response": "done",}\n```\n'
    '{"action": "start_multi_file", "plan": {"description": "é'
)


def _cli(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="agent-ls")
    parse_command.register(parser.add_subparsers(dest="command"))
    return parser.parse_args(argv)


def _lines(capsys: pytest.CaptureFixture[str]) -> list[dict]:  # type: ignore[type-arg]
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def test_blocks_from_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "reply.txt"
    path.write_text(REPLY, encoding="utf-8")
    args = _cli(["parse", str(path)])
    assert args.func(args) == 0
    records = _lines(capsys)
    assert [r["type"] for r in records] == ["text", "tool_call", "text", "action", "text", "action"]
    assert "".join(REPLY[r["start"] : r["end"]] for r in records) == REPLY
    call = records[1]
    assert (call["name"], call["args"]) == ("read_file", {"path": "a.py"})
    assert records[3]["document"]["text_response"] == "done"
    assert records[3]["repaired"] is True
    assert records[3]["truncated"] is False
    assert records[5]["truncated"] is True
    assert records[5]["document"]["plan"]["description"] == "é"
    assert records[0]["text"] == "Reading first.\n"


def test_snippets_from_stdin(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_stdin = io.TextIOWrapper(io.BytesIO(REPLY.encode()), encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", fake_stdin)
    args = _cli(["parse", "--snippets", "-"])
    assert args.func(args) == 0
    records = _lines(capsys)
    assert [r["origin"] for r in records] == ["tool_call", "fenced_json", "bare_json"]
    assert [r["complete"] for r in records] == [True, True, False]
    assert "trailing_comma" in records[1]["fixes"]


def test_unreadable_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = _cli(["parse", str(tmp_path / "missing.txt")])
    assert args.func(args) == 2
    assert "cannot read" in capsys.readouterr().err


def test_runs_as_a_separate_process(tmp_path: Path) -> None:
    path = tmp_path / "reply.txt"
    path.write_text('Sure {"action": "text_response", "text_response": "x"}', encoding="utf-8")
    code = (
        "import argparse, sys; from server.commands import parse as p; "
        "a = argparse.ArgumentParser(); p.register(a.add_subparsers()); "
        "ns = a.parse_args(sys.argv[1:]); sys.exit(ns.func(ns))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, "parse", str(path)], capture_output=True, check=True, text=True
    )
    assert [json.loads(x)["type"] for x in out.stdout.splitlines()] == ["text", "action"]


FUZZ_CORPUS = sorted((Path(__file__).resolve().parents[2] / "fuzz" / "corpus").glob("*.txt"))


@pytest.mark.parametrize("path", FUZZ_CORPUS, ids=[p.stem for p in FUZZ_CORPUS])
@pytest.mark.parametrize("snippets", [False, True])
def test_every_input_that_ever_failed_prints_records(
    path: Path, snippets: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    args = _cli(["parse", str(path), *(["--snippets"] if snippets else [])])
    assert args.func(args) == 0
    records = _lines(capsys)
    if not snippets:  # the blocks tile the reply
        text = path.read_bytes().decode("utf-8")
        assert records[-1]["end"] == len(text)


def test_json_repair_assertion_input_exits_cleanly_through_the_installed_command() -> None:
    # json-repair's own AssertionError on this input used to print a traceback
    agent_ls = Path(sys.executable).with_name("agent-ls")
    out = subprocess.run(
        [str(agent_ls), "parse", "-"],
        input="<tool_call>{{'```json{```",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr
    [record] = [json.loads(line) for line in out.stdout.splitlines()]
    assert record["type"] == "text"
