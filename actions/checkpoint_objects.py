"""Git object database of the checkpoint store, written directly (no git process).

Loose objects are `zlib(b"<type> <size>\\0" + body)` stored at `objects/xx/<38 hex>`
named by the SHA-1 of the uncompressed bytes: exactly what `git hash-object -w` writes,
so `git cat-file`, `git fsck` and `git prune` work on the store. Writing them in-process
costs microseconds where a `git` subprocess costs milliseconds, which is what keeps a
checkpoint O(files touched) and fast. Refs are plain files (`refs/checkpoints/<id>`).
"""

from __future__ import annotations

import hashlib
import os
import secrets
import zlib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

MODE_FILE = b"100644"
MODE_EXEC = b"100755"
MODE_TREE = b"40000"

_BARE_CONFIG = (
    "[core]\n"
    "\trepositoryformatversion = 0\n"
    "\tfilemode = true\n"
    "\tbare = true\n"
    "\thooksPath = /dev/null\n"
    "[gc]\n"
    "\tauto = 0\n"
)


def blob_sha(content: bytes) -> str:
    """The git blob id of `content` (what `git hash-object` prints)."""
    digest = hashlib.sha1(b"blob %d\0" % len(content), usedforsecurity=False)
    digest.update(content)
    return digest.hexdigest()


@dataclass(frozen=True)
class TreeItem:
    """One file placed in a tree: path (posix, relative), blob id, executable bit."""

    path: str
    sha: str
    executable: bool = False


class ObjectStore:
    """The `objects/` and `refs/` of one bare git directory."""

    def __init__(self, git_dir: Path) -> None:
        self.git_dir = git_dir
        self.objects = git_dir / "objects"

    # -- layout ---------------------------------------------------------------------------
    def init(self) -> None:
        """Create the bare repository layout if missing (what `git init --bare` makes)."""
        for sub in ("objects/info", "objects/pack", "refs/heads", "refs/tags", "refs/checkpoints"):
            (self.git_dir / sub).mkdir(parents=True, exist_ok=True)
        head = self.git_dir / "HEAD"
        if not head.exists():
            _write_file_atomic(head, b"ref: refs/heads/main\n")
        config = self.git_dir / "config"
        if not config.exists():
            _write_file_atomic(config, _BARE_CONFIG.encode())

    def path_of(self, sha: str) -> Path:
        return self.objects / sha[:2] / sha[2:]

    def has(self, sha: str) -> bool:
        return self.path_of(sha).is_file()

    # -- writing ----------------------------------------------------------------------------
    def write(self, kind: bytes, body: bytes) -> str:
        """Store one object; returns its id. Idempotent (content addressed)."""
        raw = b"%s %d\0%s" % (kind, len(body), body)
        sha = hashlib.sha1(raw, usedforsecurity=False).hexdigest()
        target = self.path_of(sha)
        if not target.is_file():
            target.parent.mkdir(exist_ok=True)
            _write_file_atomic(target, zlib.compress(raw), mode=0o444)
        return sha

    def write_blob(self, content: bytes) -> str:
        return self.write(b"blob", content)

    def write_tree(self, items: Iterable[TreeItem]) -> tuple[str, list[str]]:
        """Write the nested trees holding `items`; returns (root id, ids of every tree)."""
        root: dict[str, object] = {}
        for item in items:
            node = root
            *dirs, name = item.path.split("/")
            for part in dirs:
                child = node.setdefault(part, {})
                assert isinstance(child, dict)
                node = child
            node[name] = item
        written: list[str] = []
        sha = self._write_node(root, written)
        return sha, written

    def _write_node(self, node: Mapping[str, object], written: list[str]) -> str:
        entries: list[tuple[bytes, bytes, bytes]] = []
        for name, value in node.items():
            key = name.encode()
            if isinstance(value, TreeItem):
                mode = MODE_EXEC if value.executable else MODE_FILE
                entries.append((key, mode, bytes.fromhex(value.sha)))
            else:
                assert isinstance(value, dict)
                child = self._write_node(value, written)
                entries.append((key + b"/", MODE_TREE, bytes.fromhex(child)))
        # git orders entries by name, comparing a sub-tree's name as if it ended with "/".
        entries.sort(key=lambda entry: entry[0])
        body = b"".join(b"%s %s\0%s" % (mode, key.rstrip(b"/"), raw) for key, mode, raw in entries)
        sha = self.write(b"tree", body)
        written.append(sha)
        return sha

    def write_commit(self, tree: str, message: str, when: float) -> str:
        stamp = b"agent-ls <agent-ls@localhost> %d +0000" % int(when)
        body = b"tree %s\nauthor %s\ncommitter %s\n\n%s\n" % (
            tree.encode(),
            stamp,
            stamp,
            message.encode(),
        )
        return self.write(b"commit", body)

    # -- reading ----------------------------------------------------------------------------
    def read(self, sha: str) -> tuple[bytes, bytes]:
        """(type, body) of a loose object; raises FileNotFoundError when absent."""
        raw = zlib.decompress(self.path_of(sha).read_bytes())
        header, _, body = raw.partition(b"\0")
        kind, _, _size = header.partition(b" ")
        return kind, body

    def read_blob(self, sha: str) -> bytes:
        kind, body = self.read(sha)
        if kind != b"blob":
            raise ValueError(f"object {sha} is a {kind.decode()}, not a blob")
        return body

    def reachable_from_commit(self, sha: str) -> set[str]:
        """Every object id reachable from commit `sha` (its trees and blobs), itself included."""
        found = {sha}
        if not self.has(sha):
            return found
        _kind, body = self.read(sha)
        tree = body.split(b"\n", 1)[0].removeprefix(b"tree ").decode()
        found.update(self._walk_tree(tree))
        return found

    def _walk_tree(self, sha: str) -> Iterator[str]:
        yield sha
        if not self.has(sha):
            return
        _kind, body = self.read(sha)
        pos = 0
        while pos < len(body):
            nul = body.index(b"\0", pos)
            mode = body[pos:nul].split(b" ", 1)[0]
            child = body[nul + 1 : nul + 21].hex()
            pos = nul + 21
            if mode == MODE_TREE:
                yield from self._walk_tree(child)
            else:
                yield child

    # -- deleting and refs ------------------------------------------------------------------
    def delete(self, shas: Iterable[str]) -> int:
        """Unlink these loose objects; returns how many existed."""
        count = 0
        for sha in shas:
            try:
                self.path_of(sha).unlink()
                count += 1
            except FileNotFoundError:
                continue
        return count

    def ref_path(self, name: str) -> Path:
        return self.git_dir / "refs" / "checkpoints" / name

    def set_ref(self, name: str, sha: str) -> None:
        _write_file_atomic(self.ref_path(name), sha.encode() + b"\n")

    def delete_ref(self, name: str) -> None:
        self.ref_path(name).unlink(missing_ok=True)

    def refs(self) -> dict[str, str]:
        """Checkpoint refs: name -> commit id."""
        folder = self.git_dir / "refs" / "checkpoints"
        found: dict[str, str] = {}
        if folder.is_dir():
            for entry in folder.iterdir():
                if not entry.name.startswith("."):
                    found[entry.name] = entry.read_text().strip()
        return found


def _write_file_atomic(path: Path, data: bytes, mode: int = 0o644) -> None:
    """Write `data` to a temp file beside `path`, then rename it into place."""
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
