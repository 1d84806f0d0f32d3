"""Cut a source file by its syntax tree (tree-sitter): one chunk per definition.

A definition (``grammars.DEFINITIONS``) of at most ``max_def_lines`` lines is one atomic chunk
whose ``headings`` are the enclosing definitions and its own, each ``"<kind> <name>"``, then its
signature: ``("class Parser", "method parse", "def parse(self, text: str) -> Tree")``. Its span
includes what dresses it (decorators, ``export``, ``template<...>``) and the comments right
above it (doc comments). A bigger definition is cut at its inner definitions; the code around
them, like the code between top-level definitions, is packed whole statement by whole
statement into chunks of at most ``window`` lines (a statement bigger than that is cut at its
own inner statements, and only a leaf bigger than that by lines). Never mid-statement.

``definition_entry`` / ``parse_entry`` write and read the ``"<kind> <name>"`` headings
(``find_symbol`` reads them back).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from actions.index.grammars import (
    CLASS_KINDS,
    DEFINITIONS,
    FUNCTION_VALUES,
    WRAPPERS,
    parser_for,
)
from actions.index.markdown_elements import Element, strip_last_eol

if TYPE_CHECKING:  # tree-sitter is imported with the first grammar (a search parses nothing)
    from tree_sitter import Node

SIGNATURE_CHARS = 200
COMMENTS = frozenset({"comment", "line_comment", "block_comment"})
CLOSING_LINES = 3
DOC_LINES = 40  # the comment right above a definition joins its chunk up to this long
LONGEST_STATEMENT = 600  # a longer one (a data literal) is cut by lines after all
# bodies of statements, by their names in the grammars (a statement holding one may be cut too)
BLOCKS = frozenset(
    {
        "block",
        "compound_statement",
        "statement_block",
        "statement_list",
        "declaration_list",
        "field_declaration_list",
        "class_body",
        "interface_body",
        "enum_body",
        "body_statement",
        "do_group",
        "switch_body",
        "switch_block",
        "constructor_body",
        "else_clause",
        "elif_clause",
        "except_clause",
        "finally_clause",
        "then",
        "else",
        "ERROR",
    }
)
_OPENERS = ("{", ":", "=")  # what opens the body (and ``=>``)
_NAME_TYPES = frozenset(
    {
        "identifier",
        "namespace_identifier",
        "field_identifier",
        "property_identifier",
        "private_property_identifier",
        "type_identifier",
        "qualified_identifier",
        "destructor_name",
        "operator_name",
        "constant",
        "scope_resolution",
        "word",
    }
)


@dataclass(frozen=True)
class Definition:
    """A definition node, the node its chunk starts with (a wrapper, a doc comment), its kind
    and name."""

    node: Node
    first: Node
    kind: str
    name: str


def definition_entry(kind: str, name: str) -> str:
    return f"{kind} {name}"


def parse_entry(heading: str) -> tuple[str, str] | None:
    """``(kind, name)`` of a ``"<kind> <name>"`` heading, None for anything else."""
    kind, space, name = heading.partition(" ")
    if not space or not name or not kind.isalpha() or not kind.islower():
        return None
    return kind, name


def syntax_chunks(
    text: str, lines: Sequence[str], language: str, window: int, max_def_lines: int
) -> list[Element] | None:
    """The chunks of ``text`` by its syntax; None when no grammar parses ``language``."""
    parser = parser_for(language)
    if parser is None:
        return None
    tree = parser.parse(text.encode("utf-8"))
    cutter = Cutter(lines, language, window, max_def_lines)
    cutter.flush(cutter.region(tree.root_node.named_children, (), ""), (), "")
    cutter.fill_gaps()
    return cutter.chunks


class Cutter:
    """Cuts one file (``region`` then ``flush``); ``definition`` / ``signature`` tell what a
    node defines."""

    def __init__(
        self, lines: Sequence[str], language: str, window: int = 60, max_def_lines: int = 150
    ) -> None:
        self.lines = lines
        self.language = language
        self.window = window
        self.max_def_lines = max_def_lines
        self.kinds = DEFINITIONS[language]
        self.chunks: list[Element] = []

    def region(
        self,
        nodes: Sequence[Node],
        path: tuple[str, ...],
        signature: str,
        carried: Sequence[Node] = (),
    ) -> list[Node]:
        """Chunks of a run of sibling nodes: definitions alone, the rest packed; returns the
        nodes still waiting to be packed (``carried`` are those of the code before)."""
        pending = list(carried)
        for node in nodes:
            found = self.definition(node, path)
            if found is not None:
                docs = _trailing_comments(pending, found.first)
                self.flush(pending[: len(pending) - len(docs)], path, signature)
                pending = []
                self._define(found, docs[0] if docs else found.first, path)
            elif _is_block(node) and (
                _lines(node) > self.window or (path and self._holds_definition(node))
            ):
                pending = self.region(node.named_children, path, signature, pending)
            else:
                if pending and _end(node) - _start(pending[0]) + 1 > self.window:
                    self.flush(pending, path, signature)
                    pending = []
                pending.append(node)
        return pending

    def _names(self, node: Node, qualified: tuple[str, ...]) -> tuple[str, ...]:
        """``Outer.name`` of the definition ``node`` and of the definitions of its body (the
        body's statements only: a definition nested in an expression is not named)."""
        names = [".".join(qualified)]
        body = node.child_by_field_name("body") or node
        for child in body.named_children:
            found = self.definition(child, ())
            if found is not None:
                names += self._names(found.node, (*qualified, found.name))
        return tuple(names)

    def _holds_definition(self, node: Node) -> bool:
        """Is ``node`` the body of a definition being cut (a definition among its children)?"""
        return any(self.definition(child, ()) is not None for child in node.named_children)

    def _define(self, found: Definition, start: Node, path: tuple[str, ...]) -> None:
        entry = definition_entry(found.kind, found.name)
        inner = (*path, entry)
        signature = self.signature(found.node)
        first, last = _start(start), _end(found.node)
        if last - first + 1 <= self.max_def_lines:
            outer = tuple(entry.partition(" ")[2] for entry in path)
            names = self._names(found.node, (*outer, found.name))
            self._emit(first, last, (*inner, signature), atomic=True, names=names)
            return
        mark = len(self.chunks)
        self.flush(self.region(found.node.named_children, inner, signature), inner, signature)
        if first < _start(found.node) and mark < len(self.chunks):  # decorators, doc comment
            piece = self.chunks.pop(mark)
            self._emit(first, piece.end_line, piece.headings)
            self.chunks.insert(mark, self.chunks.pop())

    def definition(self, node: Node, path: tuple[str, ...]) -> Definition | None:
        target = node
        while target.type in WRAPPERS:
            inner = target.child_by_field_name("definition") or target.child_by_field_name(
                "declaration"
            )
            if inner is None:
                named = [child for child in target.named_children if child.type != "decorator"]
                inner = named[-1] if named else None
            if inner is None:
                return None
            target = inner
        kind = self.kinds.get(target.type)
        name = ""
        if kind is not None:
            name = _name(target)
            receiver = target.child_by_field_name("receiver")  # Go: func (s *Store) Get
            if receiver is not None and (owner := _first(receiver, "type_identifier")):
                name = f"{owner}.{name}"
        elif target.type in ("lexical_declaration", "variable_declaration"):
            kind, name = _bound_function(target)
        if not kind or not name:
            return None
        if kind == "function" and path and (outer := parse_entry(path[-1])):
            kind = "method" if outer[0] in CLASS_KINDS else kind
        return Definition(target, node, kind, name)

    def signature(self, node: Node) -> str:
        body = node.child_by_field_name("body")
        if node.type in ("lexical_declaration", "variable_declaration"):
            value = node.named_children[0].child_by_field_name("value")
            body = value.child_by_field_name("body") if value is not None else None
        raw = node.text or b""
        if body is not None and body.start_byte > node.start_byte:
            raw = raw[: body.start_byte - node.start_byte]
        else:
            raw = raw.split(b"\n", 1)[0]
        return signature_text(raw.decode("utf-8", "replace"))

    def flush(self, nodes: Sequence[Node], path: tuple[str, ...], signature: str) -> None:
        if not nodes:
            return
        headings = (*path, signature) if path else ()
        first, last = _start(nodes[0]), max(_end(node) for node in nodes)
        size = last - first + 1
        if size <= self.window or (size <= LONGEST_STATEMENT and nodes[0].type != "ERROR"):
            self._emit(first, last, headings)  # a statement longer than a window stays whole
            return
        for start in range(first, last + 1, self.window):  # code that does not parse, data
            self._emit(start, min(last, start + self.window - 1), headings)

    def fill_gaps(self) -> None:
        """The lines no node covered (a block's closing ``}`` / ``end``) join the chunk before
        them when they are only that (at most ``CLOSING_LINES`` short lines), else make one."""
        chunks = sorted(self.chunks, key=lambda element: element.start_line)
        filled: list[Element] = []
        for index, element in enumerate(chunks):
            filled.append(element)
            last = chunks[index + 1].start_line - 1 if index + 1 < len(chunks) else len(self.lines)
            gap = [n for n in range(element.end_line + 1, last + 1) if self.lines[n - 1].strip()]
            if not gap:
                continue
            if len(gap) <= CLOSING_LINES and all(len(self.lines[n - 1].strip()) <= 4 for n in gap):
                self.chunks = []
                self._emit(element.start_line, gap[-1], element.headings, atomic=element.is_atomic)
                filled[-1] = replace(self.chunks[0], names=element.names)
            else:
                self.chunks = []
                self._emit(gap[0], gap[-1], () if element.is_atomic else element.headings)
                filled += self.chunks
        self.chunks = filled

    def _emit(
        self,
        first: int,
        last: int,
        headings: tuple[str, ...],
        *,
        atomic: bool = False,
        names: tuple[str, ...] = (),
    ) -> None:
        while first <= last and not self.lines[first - 1].strip():
            first += 1
        while last >= first and not self.lines[last - 1].strip():
            last -= 1
        if first > last:
            return
        text = strip_last_eol("".join(self.lines[first - 1 : last]))
        element = Element("code", text, first, last, headings, self.language, atomic, names)
        self.chunks.append(element)


def signature_text(raw: str) -> str:
    """``raw`` on one line (every run of spaces one space), without what opens the body
    (``{``, ``:``, ``=``, ``=>``), at most ``SIGNATURE_CHARS`` characters. String methods:
    the regular expression anchored at the end (``\\s*(?:=>|[{:=])?\\s*$``) was tried at
    every character of every signature."""
    text = " ".join(raw.split())
    if text.endswith("=>"):
        text = text[:-2].rstrip()
    elif text.endswith(_OPENERS):
        text = text[:-1].rstrip()
    return text[:SIGNATURE_CHARS]


def _name(node: Node) -> str:
    """The defined name: the ``name`` field, else the declarator's (C), else the type (Rust
    ``impl``), else the first ``type_spec`` (Go)."""
    for field in ("name", "declarator", "type"):
        child = node.child_by_field_name(field)
        while child is not None and child.type not in _NAME_TYPES:
            child = child.child_by_field_name("declarator") or child.child_by_field_name("name")
        if child is not None and child.text:
            return child.text.decode("utf-8", "replace")
    for child in node.named_children:
        if child.type == "type_spec":
            return _name(child)
    return ""


def _is_block(node: Node) -> bool:
    """A body of statements, or a statement holding one (``if``, ``for``, ``try``...): what a
    chunk may be cut inside of; never an expression (a long list stays whole)."""
    return node.type in BLOCKS or any(child.type in BLOCKS for child in node.named_children)


def _first(node: Node, node_type: str) -> str:
    """The text of the first node of ``node_type`` in ``node`` (depth first)."""
    for child in node.named_children:
        if child.type == node_type and child.text:
            return child.text.decode("utf-8", "replace")
        if found := _first(child, node_type):
            return found
    return ""


def _bound_function(node: Node) -> tuple[str, str]:
    """``("function", name)`` for ``const name = () => ...``, else empty."""
    declarators = [child for child in node.named_children if child.type == "variable_declarator"]
    if len(declarators) != 1:
        return "", ""
    value = declarators[0].child_by_field_name("value")
    if value is None or value.type not in FUNCTION_VALUES:
        return "", ""
    return "function", _name(declarators[0])


def _trailing_comments(pending: Sequence[Node], first: Node) -> list[Node]:
    """The comments at the end of ``pending`` that touch ``first`` (its doc comment: at most
    ``DOC_LINES`` lines of them)."""
    docs: list[Node] = []
    row = first.start_point.row
    for node in reversed(pending):
        if node.type not in COMMENTS or node.end_point.row < row - 1:
            break
        if first.start_point.row - node.start_point.row >= DOC_LINES:
            break
        docs.append(node)
        row = node.start_point.row
    return docs[::-1]


def _start(node: Node) -> int:
    return node.start_point.row + 1


def _end(node: Node) -> int:
    end = node.end_point
    return end.row if end.column == 0 and end.row > node.start_point.row else end.row + 1


def _lines(node: Node) -> int:
    return _end(node) - _start(node) + 1
