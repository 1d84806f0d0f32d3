"""Definitions found by name in indexed chunks (``find_symbol``'s core): exact lines for
nested definitions, one symbol spanning a definition cut into several chunks, overloads kept
apart, names matched whatever their spelling."""

from __future__ import annotations

from actions.index.chunking import chunk_document
from actions.index.symbols import Symbol, chunk_symbols, matches, merged


def symbols_of(path: str, text: str) -> list[Symbol]:
    return merged(symbol for chunk in chunk_document(path, text) for symbol in chunk_symbols(chunk))


def test_a_class_cut_into_chunks_is_one_symbol_spanning_all_of_them() -> None:
    methods = "".join(
        f"    def method_{i}(self):\n" + "".join(f"        x = {j}\n" for j in range(20)) + "\n"
        for i in range(10)
    )
    text = "import os\n\n\nclass Big:\n    '''Big.'''\n\n" + methods.rstrip("\n") + "\n"
    last = text.count("\n")
    found = {
        symbol.qualified: (symbol.start_line, symbol.end_line)
        for symbol in symbols_of("big.py", text)
    }
    assert found["Big"] == (4, last)
    assert found["Big.method_0"] == (7, 27)
    assert found["Big.method_9"] == (last - 20, last)


def test_nested_definitions_have_their_own_lines_and_qualified_names() -> None:
    text = "module Shop\n  class Cart\n    def total(items)\n      items.sum\n    end\n  end\nend\n"
    found = {(s.qualified, s.kind): (s.start_line, s.end_line) for s in symbols_of("cart.rb", text)}
    assert found[("Shop.Cart.total", "method")] == (3, 5)
    assert found[("Shop.Cart", "class")] == (2, 6)


def test_overloads_and_their_implementation_stay_apart() -> None:
    text = (
        "from typing import overload\n\n\n"
        "@overload\ndef load(x: int) -> int: ...\n\n\n"
        "@overload\ndef load(x: str) -> str: ...\n\n\n"
        "def load(x):\n    return x\n"
    )
    spans = sorted((s.start_line, s.end_line) for s in symbols_of("o.py", text) if s.name == "load")
    assert spans == [(4, 5), (8, 9), (12, 13)]


def test_any_spelling_of_a_name_matches() -> None:
    (symbol,) = [s for s in symbols_of("s.go", "package s\n\nfunc (s *Store) LoadAll() {}\n")]
    assert symbol.qualified == "Store.LoadAll"
    for spelling in ("LoadAll", "load_all", "Store.LoadAll", "Store::loadAll", "store#load_all"):
        assert matches(symbol, spelling), spelling
    assert not matches(symbol, "Load")
