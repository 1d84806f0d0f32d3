"""actions/rules.py: which rules files are read, in what order, how the cap cuts them, and
what is refused (real files in a temp folder)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from actions.paths import Workspace
from actions.roots import Roots
from actions.rules import load_rules, user_rules_path


def write(path: Path, data: bytes | str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    return path


def test_a_cut_never_splits_a_character(tmp_path: Path) -> None:
    write(tmp_path / "AGENTS.md", "ab" + "é" * 10)  # é: 2 bytes
    rules = load_rules([Workspace(tmp_path)], limit=5)  # "ab" + 1.5 characters
    (file,) = rules.files
    assert (file.text, file.included, file.size, file.cut) == ("abé", 4, 22, True)
    assert "\ufffd" not in rules.prompt_section()
    assert "cut: /AGENTS.md after 4 of 22 bytes" in rules.prompt_section()


def test_files_past_the_cap_are_left_out_and_said(tmp_path: Path) -> None:
    write(tmp_path / "AGENTS.md", "x" * 10)
    write(tmp_path / "a/AGENTS.md", "y" * 3)
    rules = load_rules([Workspace(tmp_path)], tmp_path / "a", limit=10)
    assert [(f.shown, f.included, f.cut) for f in rules.files] == [
        ("/AGENTS.md", 10, False),
        ("/a/AGENTS.md", 0, True),
    ]
    assert "/a/AGENTS.md (3 bytes) left out" in rules.prompt_section()


@pytest.mark.parametrize("kind", ["fifo", "folder"])
def test_a_rules_name_that_is_not_a_file_is_refused_without_blocking(
    tmp_path: Path, kind: str
) -> None:
    target = tmp_path / "AGENTS.md"
    if kind == "fifo":
        os.mkfifo(target)
    else:
        target.mkdir()
    write(tmp_path / "CLAUDE.md", "not the fallback: AGENTS.md exists")
    (file,) = load_rules([Workspace(tmp_path)]).files
    assert file.refused
    assert load_rules([Workspace(tmp_path)]).prompt_section() == ""


def test_a_context_outside_the_workspace_reads_the_root_only(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    write(root / "AGENTS.md", "ROOT")
    write(tmp_path / "elsewhere/AGENTS.md", "ELSEWHERE")
    rules = load_rules([Workspace(root)], tmp_path / "elsewhere/x.py")
    assert [f.shown for f in rules.files] == ["/AGENTS.md"]


def test_each_folder_of_a_multi_root_workspace_is_named_by_its_folder(tmp_path: Path) -> None:
    front, back = tmp_path / "front", tmp_path / "back"
    write(front / "AGENTS.md", "FRONT")
    write(back / "AGENTS.md", "BACK")
    write(back / "api/AGENTS.md", "API")
    roots = Roots.of([Workspace(front), Workspace(back)])
    workspaces = [root.workspace for root in roots.roots]
    rules = load_rules(workspaces, back / "api/handler.py")
    assert [f.shown for f in rules.files] == [
        "/front/AGENTS.md",
        "/back/AGENTS.md",
        "/back/api/AGENTS.md",
    ]


def test_a_secret_named_folder_on_the_way_is_refused(tmp_path: Path) -> None:
    write(tmp_path / ".ssh/AGENTS.md", "SSH")
    rules = load_rules([Workspace(tmp_path)], tmp_path / ".ssh/config")
    (file,) = rules.files
    assert "secret" in file.refused
    assert rules.prompt_section() == ""


def test_the_user_file_follows_xdg_config_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))  # the environment, not a component
    assert user_rules_path() == tmp_path / "agent-ls/AGENTS.md"
    monkeypatch.delenv("XDG_CONFIG_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert user_rules_path() == tmp_path / "home/.config/agent-ls/AGENTS.md"


@pytest.mark.parametrize("folder", ["node_modules/dep", "build/gen", ".venv/lib"])
def test_the_way_down_stops_at_noise_and_ignored_folders(tmp_path: Path, folder: str) -> None:
    write(tmp_path / ".gitignore", "build/\n")
    write(tmp_path / "AGENTS.md", "ROOT")
    top = folder.split("/")[0]
    write(tmp_path / top / "AGENTS.md", "NOT OURS")
    write(tmp_path / folder / "AGENTS.md", "NOT OURS EITHER")
    rules = load_rules([Workspace(tmp_path)], tmp_path / folder / "index.js")
    assert [f.shown for f in rules.files] == ["/AGENTS.md"]


def test_the_users_file_is_named_from_the_home_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))  # the environment, not a component
    user = write(tmp_path / ".config/agent-ls/AGENTS.md", "MINE")
    rules = load_rules([], user_file=user)
    assert "## ~/.config/agent-ls/AGENTS.md\nMINE" in rules.prompt_section()
    assert rules.files[0].path == user  # agent/status and doctor give the full path
