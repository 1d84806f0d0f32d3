"""`agent-ls undo|redo|checkpoints` act on the store the server uses (server/commands)."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from actions.checkpoints import CheckpointStore
from server.commands import checkpoints as checkpoints_command


def cli(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="agent-ls")
    checkpoints_command.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(argv)
    code: int = args.func(args)
    return code


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("AGENT_LS_CHECKPOINT_DIR", str(tmp_path / "stores"))
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_text("before\n")
    store = CheckpointStore(root)  # what the server opens: default location for this folder
    with store.begin_plan(description="Rename header", session_id="s1", paths=["a.txt"]) as plan:
        plan.write("a.txt", b"after\n")
        plan.write("lib/new.js", b"x")
    return root


def test_undo_redo_and_listing_from_the_terminal(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli("undo", "--workspace", str(ws)) == 0
    out = capsys.readouterr().out
    assert "wrote a.txt" in out
    assert "deleted lib/new.js" in out
    assert (ws / "a.txt").read_text() == "before\n"
    assert cli("checkpoints", "--workspace", str(ws), "--json") == 0
    [listed] = json.loads(capsys.readouterr().out)
    assert listed["description"] == "Rename header"
    assert listed["state"] == "undone"
    assert listed["files"] == ["a.txt", "lib/new.js"]
    assert cli("redo", "--workspace", str(ws)) == 0
    assert (ws / "lib" / "new.js").read_text() == "x"
    assert cli("checkpoints", "--workspace", str(ws)) == 0
    out = capsys.readouterr().out
    assert "applied" in out
    assert "Rename header" in out


def test_conflict_names_the_file_and_force_overrides(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (ws / "a.txt").write_text("user typed\n")
    assert cli("undo", "--workspace", str(ws)) == 1
    err = capsys.readouterr().err
    assert "a.txt" in err
    assert "force" in err
    assert (ws / "a.txt").read_text() == "user typed\n"
    assert cli("undo", "--workspace", str(ws), "--force") == 0
    assert (ws / "a.txt").read_text() == "before\n"
    assert cli("undo", "--workspace", str(ws)) == 1
    assert "nothing to undo" in capsys.readouterr().err


def test_missing_workspace_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli("checkpoints", "--workspace", str(tmp_path / "nope")) == 2
    assert "workspace" in (err := capsys.readouterr().err)
    assert "does not exist" in err  # the same wording as chat and doctor


def test_a_separate_process_sees_and_moves_the_same_history(ws: Path) -> None:
    script = textwrap.dedent(
        """
        import argparse, sys
        from server.commands import checkpoints
        parser = argparse.ArgumentParser()
        checkpoints.register(parser.add_subparsers())
        args = parser.parse_args(sys.argv[1:])
        sys.exit(args.func(args))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script, "undo", "--workspace", str(ws)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert (ws / "a.txt").read_text() == "before\n"
    assert [i.state for i in CheckpointStore(ws).list()] == ["undone"]
