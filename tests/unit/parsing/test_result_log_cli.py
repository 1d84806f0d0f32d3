"""`agent-ls parse-log`: the sub-command's parser and run(), on real files and stdin."""

from __future__ import annotations

import argparse
import io
import json
from pathlib import Path

import pytest

from server.commands import parse_log

LOGS = Path(__file__).resolve().parents[2] / "fixtures" / "logs"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="agent-ls")
    parse_log.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(argv)
    code: int = args.func(args)
    return code


def test_prints_the_result_record(capsys: pytest.CaptureFixture[str]) -> None:
    path = LOGS / "stream_json_success.log"
    assert main(["parse-log", str(path)]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out) == json.loads(path.read_text().splitlines()[-1])
    assert err == ""


def test_plan_mode_record(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["parse-log", str(LOGS / "plan_mode.log")]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["subtype"] == "plan_mode"
    assert record["result"].startswith("## Plan")


@pytest.mark.parametrize("argv", [["parse-log", "-"], ["parse-log"]])
def test_reads_stdin(
    argv: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    text = (LOGS / "prefixed_with_garbage.log").read_text()
    monkeypatch.setattr("sys.stdin", io.StringIO(text))
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out)["subtype"] == "success"


def test_failure_prints_the_code_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["parse-log", str(LOGS / "truncated_result.log")]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("agent-ls: parse_error: line 13:")


def test_strict_flag_and_lenient_warnings(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(LOGS / "missing_fields.log")
    assert main(["parse-log", path]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["subtype"] == "success"
    assert "warning: line 13: missing required field 'is_error'" in err
    assert main(["parse-log", path, "--strict"]) == 1
    assert capsys.readouterr().err.startswith("agent-ls: validation_failed:")


def test_strict_from_the_environment(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENT_LS_PARSER_STRICT", "true")
    assert main(["parse-log", str(LOGS / "missing_fields.log")]) == 1
    assert capsys.readouterr().err.startswith("agent-ls: validation_failed:")


def test_bad_environment_value_exits_2_naming_it(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENT_LS_PARSER_TIMEOUT", "forever")
    assert main(["parse-log", str(LOGS / "plan_mode.log")]) == 2
    assert "AGENT_LS_PARSER_TIMEOUT" in capsys.readouterr().err


def test_missing_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["parse-log", str(tmp_path / "nope.log")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_empty_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "empty.log"
    empty.write_text("")
    assert main(["parse-log", str(empty)]) == 1
    assert capsys.readouterr().err.startswith("agent-ls: empty_logs:")
