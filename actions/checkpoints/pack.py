"""Git pack files (version 2, no deltas) written and read in-process: one per checkpoint.

A checkpoint's blobs, trees and commit go into one self-contained `pack-<sum>.pack` with
its `.idx`, instead of ~15 loose objects: two file creations instead of fifteen (file
creation dominates the cost of a checkpoint), two 4 KB blocks of slack on disk instead of
fifteen, and dropping a checkpoint is deleting its two files. The files are what
`git index-pack` would produce for the same objects (undeltified), so `git fsck`,
`git verify-pack` and `git cat-file` read them.
"""

from __future__ import annotations

import hashlib
import struct
import zlib
from collections.abc import Sequence
from pathlib import Path

TYPE_CODES = {b"commit": 1, b"tree": 2, b"blob": 3}
TYPE_NAMES = {code: name for name, code in TYPE_CODES.items()}
IDX_MAGIC = b"\xfftOc"


def object_id(kind: bytes, body: bytes) -> str:
    digest = hashlib.sha1(b"%s %d\0" % (kind, len(body)), usedforsecurity=False)
    digest.update(body)
    return digest.hexdigest()


def _entry_header(code: int, size: int) -> bytes:
    first = (code << 4) | (size & 0x0F)
    size >>= 4
    out = bytearray()
    while size:
        out.append(first | 0x80)
        first = size & 0x7F
        size >>= 7
    out.append(first)
    return bytes(out)


def pack_bytes(objects: Sequence[tuple[bytes, bytes]]) -> tuple[bytes, dict[str, tuple[int, int]]]:
    """A pack holding `objects` (kind, body), deduplicated, and id -> (offset, crc32)."""
    unique: dict[str, tuple[bytes, bytes]] = {}
    for kind, body in objects:
        unique.setdefault(object_id(kind, body), (kind, body))
    pack = bytearray(b"PACK" + struct.pack(">II", 2, len(unique)))
    where: dict[str, tuple[int, int]] = {}
    for sha, (kind, body) in unique.items():
        entry = _entry_header(TYPE_CODES[kind], len(body)) + zlib.compress(body)
        where[sha] = (len(pack), zlib.crc32(entry))
        pack += entry
    pack += hashlib.sha1(pack, usedforsecurity=False).digest()
    return bytes(pack), where


def build_pack(objects: Sequence[tuple[bytes, bytes]]) -> tuple[bytes, bytes, str]:
    """(pack bytes, idx bytes, pack checksum hex) holding `objects` (kind, body), deduplicated."""
    pack, where = pack_bytes(objects)
    checksum = pack[-20:]
    located = sorted((bytes.fromhex(sha), crc, offset) for sha, (offset, crc) in where.items())
    fanout = [0] * 256
    for raw, _crc, _offset in located:
        fanout[raw[0]] += 1
    total = 0
    for byte in range(256):
        total += fanout[byte]
        fanout[byte] = total
    idx = bytearray(IDX_MAGIC + struct.pack(">I", 2))
    idx += struct.pack(">256I", *fanout)
    idx += b"".join(raw for raw, _crc, _offset in located)
    idx += b"".join(struct.pack(">I", crc) for _raw, crc, _offset in located)
    idx += b"".join(struct.pack(">I", offset) for _raw, _crc, offset in located)
    idx += checksum
    idx += hashlib.sha1(idx, usedforsecurity=False).digest()
    return bytes(pack), bytes(idx), checksum.hex()


def read_index(idx_path: Path) -> dict[str, int]:
    """Object id -> offset in the pack, from a version 2 `.idx` file."""
    data = idx_path.read_bytes()
    if data[:4] != IDX_MAGIC or struct.unpack(">I", data[4:8])[0] != 2:
        raise ValueError(f"{idx_path}: not a version 2 pack index")
    count = struct.unpack(">I", data[8 + 255 * 4 : 8 + 256 * 4])[0]
    names_at = 8 + 256 * 4
    offsets_at = names_at + count * 24  # 20-byte ids, then 4-byte crcs
    found: dict[str, int] = {}
    for number in range(count):
        raw = data[names_at + number * 20 : names_at + number * 20 + 20]
        (offset,) = struct.unpack(">I", data[offsets_at + number * 4 : offsets_at + number * 4 + 4])
        found[raw.hex()] = offset
    return found


def read_entry(pack: bytes, offset: int) -> tuple[bytes, bytes]:
    """(kind, body) of the undeltified object at `offset` of a pack."""
    byte = pack[offset]
    code = (byte >> 4) & 7
    size = byte & 0x0F
    shift = 4
    pos = offset + 1
    while byte & 0x80:
        byte = pack[pos]
        size |= (byte & 0x7F) << shift
        shift += 7
        pos += 1
    if code not in TYPE_NAMES:
        raise ValueError(f"pack object at {offset} has type {code} (deltas are not written here)")
    body = zlib.decompressobj().decompress(pack[pos:], size)
    if len(body) != size:
        raise ValueError(f"pack object at {offset} is truncated")
    return TYPE_NAMES[code], body
