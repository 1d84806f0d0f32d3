"""Atomic writes and deletions on real temp folders."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from actions.diskio import delete_file, read_bytes_or_none, write_atomic


def test_write_creates_parents_and_exact_bytes(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b" / "new.txt"
    write_atomic(target, b"hello\r\nworld")
    assert target.read_bytes() == b"hello\r\nworld"
    assert os.listdir(target.parent) == ["new.txt"]


def test_new_file_gets_the_umask_default_mode(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        write_atomic(tmp_path / "f", b"x")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "f").stat().st_mode) == 0o644


def test_replacing_keeps_the_mode_and_replaces_the_inode(tmp_path: Path) -> None:
    target = tmp_path / "run.sh"
    target.write_bytes(b"old")
    target.chmod(0o750)
    before = target.stat().st_ino
    write_atomic(target, b"#!/bin/sh\n")
    assert target.read_bytes() == b"#!/bin/sh\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o750
    assert target.stat().st_ino != before


def test_a_symlink_is_written_through(tmp_path: Path) -> None:
    real = tmp_path / "real.txt"
    real.write_bytes(b"old")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    write_atomic(link, b"new")
    assert link.is_symlink()
    assert real.read_bytes() == b"new"


def test_failed_write_leaves_old_content_and_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "f.txt"
    target.write_bytes(b"old")
    with pytest.raises(TypeError):
        write_atomic(target, "not bytes")  # type: ignore[arg-type]
    assert target.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["f.txt"]


def test_delete_file_and_missing_file(tmp_path: Path) -> None:
    target = tmp_path / "f.txt"
    target.write_bytes(b"x")
    assert delete_file(target) is True
    assert not target.exists()
    assert delete_file(target) is False


def test_delete_removes_emptied_parents_up_to_stop(tmp_path: Path) -> None:
    (tmp_path / "a" / "b" / "c").mkdir(parents=True)
    (tmp_path / "a" / "keep.txt").write_bytes(b"k")
    target = tmp_path / "a" / "b" / "c" / "f.txt"
    target.write_bytes(b"x")
    assert delete_file(target, stop_at=tmp_path)
    assert not (tmp_path / "a" / "b").exists()
    assert (tmp_path / "a" / "keep.txt").exists()
    lone = tmp_path / "solo" / "f"
    lone.parent.mkdir()
    lone.write_bytes(b"")
    delete_file(lone, stop_at=tmp_path)
    assert tmp_path.exists()
    assert not lone.parent.exists()


def test_read_bytes_or_none(tmp_path: Path) -> None:
    assert read_bytes_or_none(tmp_path / "nope") is None
    (tmp_path / "f").write_bytes(b"\x00\x01")
    assert read_bytes_or_none(tmp_path / "f") == b"\x00\x01"
    with pytest.raises(IsADirectoryError):
        read_bytes_or_none(tmp_path)
