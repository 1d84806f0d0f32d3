"""The definitions inside indexed code chunks, by name (``find_symbol``).

A chunk of a source file with a grammar is parsed again (its content is the exact source
lines, so the lines found are the file's): every definition in it, nested ones included, is a
``Symbol`` with its qualified name (the enclosing definitions of the chunk's heading path, then
those inside the chunk: ``Store.load_settings``). The pieces of a definition too big for one
chunk (its head, the code between its inner definitions, those definitions) are merged into
one symbol spanning all the pieces found.
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
    piece: bool = False  # only a part of the definition (it spans several chunks)


def normalized(name: str) -> str:
    """``Store::load``, ``Store#load``, ``Store->load()`` -> ``Store.load``."""
    return _SEPARATORS.sub(".", name.strip()).removesuffix("()").strip(".")


def chunk_symbols(chunk: Chunk) -> list[Symbol]:
    """The definitions in ``chunk`` and the pieces of those it is inside of (``merged``
    makes one symbol of each; none for a language without a grammar)."""
    if chunk.type != "code" or parser_for(chunk.language) is None:
        return []
    entries = [entry for heading in chunk.headings[:-1] if (entry := parse_entry(heading))]
    own = bool(chunk.headings and not chunk.is_atomic and entries)
    outer = entries if own else entries[:-1]
    found: list[Symbol] = []
    for depth in range(1, len(outer) + 1):  # a piece of each definition it is inside of
        kind = outer[depth - 1][0]
        qualified = ".".join(normalized(name) for _, name in outer[:depth])
        signature = chunk.headings[-1] if depth == len(entries) else ""
        found.append(
            Symbol(
                chunk.document,
                qualified.rpartition(".")[2],
                kind,
                qualified,
                chunk.start_line,
                chunk.end_line,
                signature,
                chunk.language,
                piece=True,
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
    return [*found, *walk.found]


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
    """Each definition once: the pieces of a definition cut into several chunks (``piece``)
    spanned by one symbol, the one parsed at their first line when there is one; distinct
    definitions of one name (overloads) kept apart."""
    parsed: dict[tuple[str, str, int], Symbol] = {}
    pieces: dict[tuple[str, str], Symbol] = {}
    for symbol in symbols:
        if not symbol.piece:
            parsed.setdefault((symbol.document, symbol.qualified, symbol.start_line), symbol)
            continue
        key = (symbol.document, symbol.qualified)
        seen = pieces.setdefault(key, symbol)
        first = min(seen, symbol, key=lambda piece: (piece.start_line, not piece.signature))
        start, end = min(seen.start_line, symbol.start_line), max(seen.end_line, symbol.end_line)
        pieces[key] = replace(first, start_line=start, end_line=end)
    for (document, qualified), span in pieces.items():
        head = parsed.get((document, qualified, span.start_line))
        whole = replace(head or span, end_line=max(span.end_line, head.end_line if head else 0))
        parsed[(document, qualified, span.start_line)] = replace(whole, piece=False)
    return list(parsed.values())


def matches(symbol: Symbol, wanted: str) -> bool:
    """Does ``wanted`` (a name or a qualified name's tail) name ``symbol``, whatever its case
    and underscores (``load_settings`` names ``loadSettings``)?"""
    qualified, wanted = _key(symbol.qualified), _key(wanted)
    return qualified == wanted or qualified.endswith(f".{wanted}")


def _key(name: str) -> str:
    return normalized(name).lower().replace("_", "")
