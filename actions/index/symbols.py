"""The definitions inside indexed code chunks, by name (``find_symbol``).

A chunk of a source file with a grammar is parsed again (its content is the exact source
lines, so the lines found are the file's): every definition in it, nested ones included, is a
``Symbol`` with its qualified name (the enclosing definitions of the chunk's heading path, then
those inside the chunk: ``Store.load_settings``). The pieces of a definition too big for one
chunk are merged into one symbol spanning them all.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from tree_sitter import Node

from actions.index.grammars import parser_for
from actions.index.markdown_elements import split_lines
from actions.index.model import Chunk
from actions.index.syntax_chunks import Cutter, definition_entry, parse_entry

_SEPARATORS = re.compile(r"::|->|#|/|\\")


@dataclass(frozen=True)
class Symbol:
    """A definition: where it is (1-based inclusive lines) and what it is."""

    document: str
    name: str
    kind: str
    qualified: str
    start_line: int
    end_line: int
    signature: str
    language: str


def normalized(name: str) -> str:
    """``Store::load``, ``Store#load``, ``Store->load()`` -> ``Store.load``."""
    return _SEPARATORS.sub(".", name.strip()).removesuffix("()").strip(".")


def chunk_symbols(chunk: Chunk) -> list[Symbol]:
    """The definitions in ``chunk`` (none for a language without a grammar)."""
    if chunk.type != "code" or parser_for(chunk.language) is None:
        return []
    entries = [entry for heading in chunk.headings[:-1] if (entry := parse_entry(heading))]
    own = bool(chunk.headings and not chunk.is_atomic and entries)
    outer = entries if own else entries[:-1]
    found: list[Symbol] = []
    if own:  # a piece of a definition cut at its inner definitions
        kind, name = entries[-1]
        name = normalized(name).rpartition(".")[2]
        qualified = ".".join(normalized(name) for _, name in entries)
        found.append(
            Symbol(
                chunk.document,
                name,
                kind,
                qualified,
                chunk.start_line,
                chunk.end_line,
                chunk.headings[-1],
                chunk.language,
            )
        )
    parser = parser_for(chunk.language)
    assert parser is not None
    cutter = Cutter(split_lines(chunk.content), chunk.language)
    tree = parser.parse(chunk.content.encode("utf-8"))
    path = [definition_entry(kind, name) for kind, name in outer]
    walk = _Walk(chunk, cutter, chunk.start_line - 1)
    names = tuple(normalized(name) for _, name in outer)
    walk.nodes(tree.root_node.named_children, tuple(path), names)
    return merged([*found, *walk.found])


class _Walk:
    def __init__(self, chunk: Chunk, cutter: Cutter, offset: int) -> None:
        self.chunk = chunk
        self.cutter = cutter
        self.offset = offset
        self.found: list[Symbol] = []

    def nodes(self, nodes: Sequence[Node], path: tuple[str, ...], names: tuple[str, ...]) -> None:
        for node in nodes:
            found = self.cutter.definition(node, path)
            if found is None:
                self.nodes(node.named_children, path, names)
                continue
            start = found.first.start_point.row + 1 + self.offset
            end = found.node.end_point.row + 1 + self.offset
            name = normalized(found.name)
            own = names[-1:] == (name,) and start == self.chunk.start_line
            qualified = names if own else (*names, name)
            self.found.append(
                Symbol(
                    self.chunk.document,
                    name.rpartition(".")[2],
                    found.kind,
                    ".".join(qualified),
                    start,
                    end,
                    self.cutter.signature(found.node),
                    self.chunk.language,
                )
            )
            entry = definition_entry(found.kind, found.name)
            self.nodes(found.node.named_children, (*path, entry), qualified)


def merged(symbols: Iterable[Symbol]) -> list[Symbol]:
    """One symbol per (document, qualified name), spanning all its pieces."""
    by_key: dict[tuple[str, str], Symbol] = {}
    for symbol in symbols:
        key = (symbol.document, symbol.qualified)
        seen = by_key.get(key)
        if seen is None:
            by_key[key] = symbol
            continue
        first = symbol if symbol.start_line < seen.start_line else seen
        by_key[key] = replace(
            first,
            start_line=min(seen.start_line, symbol.start_line),
            end_line=max(seen.end_line, symbol.end_line),
        )
    return list(by_key.values())


def matches(symbol: Symbol, wanted: str) -> bool:
    """Does ``wanted`` (a name or a qualified name's tail) name ``symbol``, whatever its case
    and underscores (``load_settings`` names ``loadSettings``)?"""
    qualified, wanted = _key(symbol.qualified), _key(wanted)
    return qualified == wanted or qualified.endswith(f".{wanted}")


def _key(name: str) -> str:
    return normalized(name).lower().replace("_", "")
