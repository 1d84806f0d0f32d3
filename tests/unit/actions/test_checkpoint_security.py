"""The checkpoint store keeps copies of the user's files: it must be as private as they are.

Every folder of the store is 0700 and every file at most 0600 (packs 0400), from the
first plan on and for a store left readable by an older version; secret files never
enter it. Real files in temp folders; modes are read back with os.stat.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from actions.checkpoints import CheckpointRefused, CheckpointStore


def modes(store_dir: Path) -> dict[str, int]:
    """Permission bits of the store folder and of everything below it."""
    found = {".": stat.S_IMODE(store_dir.stat().st_mode)}
    for path in store_dir.rglob("*"):
        found[path.relative_to(store_dir).as_posix()] = stat.S_IMODE(path.lstat().st_mode)
    return found


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    private = ws / "private.txt"
    private.write_text("only mine\n")
    private.chmod(0o600)
    (ws / "open.txt").write_text("everyone\n")
    return ws


def test_store_files_are_private_even_with_a_permissive_umask(
    workspace: Path, tmp_path: Path
) -> None:
    old_umask = os.umask(0o000)
    try:
        store_dir = tmp_path / "cache" / "agent-ls" / "checkpoints" / "key"
        store = CheckpointStore(workspace, store_dir=store_dir)
        with store.begin_plan(description="p", session_id="s", paths=["private.txt"]) as plan:
            plan.write("private.txt", b"changed\n")
            plan.write("open.txt", b"changed too\n")
            running = modes(store_dir)  # while the plan runs: its pre-image files
        store.undo()
    finally:
        os.umask(old_umask)
    assert (workspace / "private.txt").read_text() == "only mine\n"
    assert stat.S_IMODE((workspace / "private.txt").stat().st_mode) == 0o600
    for found in (running, modes(store_dir)):
        assert any(name.endswith(".pack") for name in found)
        for name, mode in found.items():
            assert mode & 0o077 == 0, f"{name} is {oct(mode)}"
            is_dir = (store_dir / name).is_dir()
            assert mode == 0o700 if is_dir else mode in (0o600, 0o400), f"{name}: {oct(mode)}"
    # The folders agent-ls created above the store are private too.
    for created in ("cache", "cache/agent-ls", "cache/agent-ls/checkpoints"):
        assert stat.S_IMODE((tmp_path / created).stat().st_mode) == 0o700


def test_a_store_left_readable_by_an_older_version_is_tightened(
    workspace: Path, tmp_path: Path
) -> None:
    store_dir = tmp_path / "store"
    store = CheckpointStore(workspace, store_dir=store_dir)
    with store.begin_plan(description="p", session_id="s", paths=["private.txt"]) as plan:
        plan.write("private.txt", b"changed\n")
    for path in [store_dir, *store_dir.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    CheckpointStore(workspace, store_dir=store_dir)
    assert all(mode & 0o077 == 0 for mode in modes(store_dir).values())


@pytest.mark.parametrize(
    "secret", [".env", "id_rsa", ".ssh/id_ed25519", ".aws/config", "a/b.pem", "credentials.json"]
)
def test_secret_files_never_enter_the_store(workspace: Path, tmp_path: Path, secret: str) -> None:
    (workspace / secret).parent.mkdir(parents=True, exist_ok=True)
    (workspace / secret).write_text("TOKEN=s3cr3t\n")
    store_dir = tmp_path / "store"
    store = CheckpointStore(workspace, store_dir=store_dir)
    with pytest.raises(CheckpointRefused, match="secret file"):
        store.begin_plan(description="p", session_id="s", paths=["open.txt", secret])
    plan = store.begin_plan(description="p", session_id="s", paths=["open.txt"])
    with pytest.raises(CheckpointRefused, match="secret file"):
        plan.touch(secret)
    plan.rollback()
    assert not any(
        b"s3cr3t" in path.read_bytes() for path in store_dir.rglob("*") if path.is_file()
    )
    allowed = CheckpointStore(workspace, store_dir=store_dir, secret_allow=[secret])
    with allowed.begin_plan(description="p", session_id="s", paths=[secret]) as plan:
        plan.write(secret, b"TOKEN=new\n")
    allowed.undo()
    assert (workspace / secret).read_text() == "TOKEN=s3cr3t\n"
