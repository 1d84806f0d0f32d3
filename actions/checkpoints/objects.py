"""Git object database of the checkpoint store, written directly (no git process).

Each recorded checkpoint is one pack (`pack`) named by its checksum; objects
are named by the SHA-1 of `b"<type> <size>\\0" + body` exactly as git names them, so
`git cat-file`, `git fsck` and `git log` work on the store. Writing them in-process costs
microseconds where a `git` subprocess costs milliseconds, which is what keeps a
checkpoint O(files touched) and fast. Refs `refs/checkpoints/<id>` live in `packed-refs`.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from actions.checkpoints.pack import build_pack, object_id, read_entry, read_index

MODE_FILE = b"100644"
MODE_EXEC = b"100755"
MODE_TREE = b"40000"
_REF_PREFIX = "refs/checkpoints/"

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
    return object_id(b"blob", content)


@dataclass(frozen=True)
class TreeItem:
    """One file placed in a tree: path (posix, relative), blob id, executable bit."""

    path: str
    sha: str
    executable: bool = False


class ObjectStore:
    """The packs and refs of one bare git directory."""

    def __init__(self, git_dir: Path) -> None:
        self.git_dir = git_dir
        self.objects = git_dir / "objects"
        self.pack_dir = self.objects / "pack"
        self._indexes: dict[str, dict[str, int]] = {}

    # -- layout ---------------------------------------------------------------------------
    def init(self) -> None:
        """Create the bare repository layout if missing (what `git init --bare` makes)."""
        layout = ("", "objects", "objects/info", "objects/pack", "refs", "refs/heads", "refs/tags")
        for sub in (*layout, "refs/checkpoints"):
            (self.git_dir / sub).mkdir(mode=0o700, exist_ok=True)  # private: user file copies
        head = self.git_dir / "HEAD"
        if not head.exists():
            _write_file_atomic(head, b"ref: refs/heads/main\n")
        config = self.git_dir / "config"
        if not config.exists():
            _write_file_atomic(config, _BARE_CONFIG.encode())

    def has(self, sha: str, pack: str) -> bool:
        return sha in self._index(pack)

    # -- packs -------------------------------------------------------------------------------
    def write_pack(self, objects: Sequence[tuple[bytes, bytes]]) -> str:
        """Write one pack + index holding `objects` (kind, body); returns the pack's name."""
        pack, idx, checksum = build_pack(objects)
        name = f"pack-{checksum}"
        _write_file_atomic(self.pack_dir / f"{name}.pack", pack, mode=0o400)
        _write_file_atomic(self.pack_dir / f"{name}.idx", idx, mode=0o400)
        return name

    def pack_names(self) -> set[str]:
        return {path.stem for path in self.pack_dir.glob("pack-*.idx")}

    def delete_pack(self, name: str) -> None:
        self._indexes.pop(name, None)
        for suffix in (".idx", ".pack", ".keep", ".rev"):
            (self.pack_dir / f"{name}{suffix}").unlink(missing_ok=True)

    def _index(self, pack: str) -> dict[str, int]:
        if pack not in self._indexes:
            try:
                self._indexes[pack] = read_index(self.pack_dir / f"{pack}.idx")
            except FileNotFoundError:
                return {}
        return self._indexes[pack]

    # -- reading -------------------------------------------------------------------------------
    def read_blob(self, sha: str, pack: str) -> bytes:
        """The content of blob `sha` stored in `pack`."""
        offset = self._index(pack).get(sha)
        if offset is None:
            raise FileNotFoundError(f"blob {sha} is not in {pack}")
        kind, body = read_entry((self.pack_dir / f"{pack}.pack").read_bytes(), offset)
        if kind != b"blob":
            raise ValueError(f"object {sha} is a {kind.decode()}, not a blob")
        return body

    # -- refs (one packed-refs file: a ref costs a line, not a file) ---------------------------
    def refs(self) -> dict[str, str]:
        """Checkpoint refs: name -> commit id."""
        try:
            lines = (self.git_dir / "packed-refs").read_text().splitlines()
        except FileNotFoundError:
            return {}
        found: dict[str, str] = {}
        for line in lines:
            sha, _, ref = line.partition(" ")
            if ref.startswith(_REF_PREFIX):
                found[ref.removeprefix(_REF_PREFIX)] = sha
        return found

    def update_refs(self, *, set_to: Mapping[str, str] = {}, delete: Iterable[str] = ()) -> None:
        refs = self.refs()
        refs.update(set_to)
        for name in delete:
            refs.pop(name, None)
        lines = [f"{sha} {_REF_PREFIX}{name}\n" for name, sha in sorted(refs.items())]
        text = "# pack-refs with: peeled fully-peeled sorted \n" + "".join(lines)
        _write_file_atomic(self.git_dir / "packed-refs", text.encode())


def tree_objects(items: Iterable[TreeItem]) -> tuple[str, list[tuple[bytes, bytes]]]:
    """The nested trees holding `items`: (root id, [(b"tree", body), ...])."""
    root: dict[str, object] = {}
    for item in items:
        node = root
        *dirs, name = item.path.split("/")
        for part in dirs:
            child = node.setdefault(part, {})
            assert isinstance(child, dict)
            node = child
        node[name] = item
    built: list[tuple[bytes, bytes]] = []
    return _tree_node(root, built), built


def _tree_node(node: Mapping[str, object], built: list[tuple[bytes, bytes]]) -> str:
    entries: list[tuple[bytes, bytes, bytes]] = []
    for name, value in node.items():
        key = name.encode()
        if isinstance(value, TreeItem):
            mode = MODE_EXEC if value.executable else MODE_FILE
            entries.append((key, mode, bytes.fromhex(value.sha)))
        else:
            assert isinstance(value, dict)
            child = _tree_node(value, built)
            entries.append((key + b"/", MODE_TREE, bytes.fromhex(child)))
    # git orders entries by name, comparing a sub-tree's name as if it ended with "/".
    entries.sort(key=lambda entry: entry[0])
    body = b"".join(b"%s %s\0%s" % (mode, key.rstrip(b"/"), raw) for key, mode, raw in entries)
    built.append((b"tree", body))
    return object_id(b"tree", body)


def commit_object(tree: str, message: str, when: float) -> tuple[bytes, bytes]:
    """(b"commit", body) of a parentless commit of `tree`."""
    stamp = b"agent-ls <agent-ls@localhost> %d +0000" % int(when)
    body = b"tree %s\nauthor %s\ncommitter %s\n\n%s\n" % (
        tree.encode(),
        stamp,
        stamp,
        message.encode(),
    )
    return b"commit", body


def _write_file_atomic(path: Path, data: bytes, mode: int = 0o600) -> None:
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
