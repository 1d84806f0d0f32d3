"""Source files cut by their syntax tree, per language: one chunk per definition headed by
its enclosing definitions, its own kind and name and its signature; big definitions cut at
their inner definitions, never mid-statement (the closing `}` / `end` of a cut definition
joins its last chunk); languages without a grammar keep line windows."""

from __future__ import annotations

import pytest

from actions.index.chunking import chunk_document
from actions.index.source_chunks import chunk_source

TS = """import { x } from "y";

/** Parses the config. */
export function parseConfig(text: string): Config {
  return JSON.parse(text);
}

export const loadSettings = async (path: string): Promise<Settings> => {
  return read(path);
};

export class ConfigStore extends Base {
  private items = new Map<string, Config>();

  get(name: string): Config | undefined {
    return this.items.get(name);
  }
}
"""
GO = """package store

// Store keeps values.
type Store struct {
\tvalues map[string]int
}

// Get returns a value.
func (s *Store) Get(key string) (int, bool) {
\tv, ok := s.values[key]
\treturn v, ok
}
"""
RUST = """use std::fmt;

impl Point {
    /// Distance to the origin.
    pub fn norm(&self) -> f64 {
        (self.x as f64).abs()
    }
}
"""
JAVA = """package a;

public class Parser {
    private int depth;

    /** Parses. */
    public Tree parse(String text) throws ParseError {
        return new Tree(text);
    }
}
"""
C = """#include <stdio.h>

/* Frees the buffer. */
static void buffer_free(struct buffer *b)
{
    free(b->data);
}
"""
CPP = """namespace net {
class Socket {
 public:
  int send(const char* data) { return 0; }
};
}
"""
RUBY = """module Shop
  class Cart
    def total(items)
      items.sum
    end
  end
end
"""
SHELL = """#!/bin/sh
set -e

build_release() {
  make release
}
"""
PYTHON = """import os


class Loader(Base):
    \"\"\"Loads.\"\"\"

    @cached
    def load_settings(self, path: str) -> dict:
        return read(path)
"""
JS = """const fs = require("fs");

function readConfig(path) {
  return fs.readFileSync(path);
}
"""
TSX = """import React from "react";

export function Button({ label }: Props) {
  return <button>{label}</button>;
}
"""

# (file, text, max_def_lines) -> the chunks as (first, last, headings)
CASES = [
    (
        "a.ts",
        TS,
        5,
        [
            (1, 1, ()),
            (3, 6, ("function parseConfig", "function parseConfig(text: string): Config")),
            (
                8,
                10,
                (
                    "function loadSettings",
                    "const loadSettings = async (path: string): Promise<Settings>",
                ),
            ),
            (12, 13, ("class ConfigStore", "class ConfigStore extends Base")),
            (
                15,
                18,
                ("class ConfigStore", "method get", "get(name: string): Config | undefined"),
            ),
        ],
    ),
    (
        "store.go",
        GO,
        150,
        [
            (1, 1, ()),
            (3, 6, ("type Store", "type Store struct")),
            (8, 12, ("method Store.Get", "func (s *Store) Get(key string) (int, bool)")),
        ],
    ),
    (
        "point.rs",
        RUST,
        3,
        [
            (1, 1, ()),
            (3, 3, ("impl Point", "impl Point")),
            (4, 8, ("impl Point", "method norm", "pub fn norm(&self) -> f64")),
        ],
    ),
    (
        "Parser.java",
        JAVA,
        5,
        [
            (1, 1, ()),
            (3, 4, ("class Parser", "public class Parser")),
            (
                6,
                10,
                (
                    "class Parser",
                    "method parse",
                    "public Tree parse(String text) throws ParseError",
                ),
            ),
        ],
    ),
    (
        "buffer.c",
        C,
        150,
        [
            (1, 1, ()),
            (3, 7, ("function buffer_free", "static void buffer_free(struct buffer *b)")),
        ],
    ),
    (
        "net.cpp",
        CPP,
        3,
        [
            (1, 1, ("namespace net", "namespace net")),
            (2, 3, ("namespace net", "class Socket", "class Socket")),
            (
                4,
                6,
                ("namespace net", "class Socket", "method send", "int send(const char* data)"),
            ),
        ],
    ),
    (
        "cart.rb",
        RUBY,
        3,
        [
            (1, 1, ("module Shop", "module Shop")),
            (2, 2, ("module Shop", "class Cart", "class Cart")),
            (3, 7, ("module Shop", "class Cart", "method total", "def total(items)")),
        ],
    ),
    (
        "build.sh",
        SHELL,
        150,
        [(1, 2, ()), (4, 6, ("function build_release", "build_release()"))],
    ),
    (
        "loader.py",
        PYTHON,
        4,
        [
            (1, 1, ()),
            (4, 5, ("class Loader", "class Loader(Base)")),
            (
                7,
                9,
                (
                    "class Loader",
                    "method load_settings",
                    "def load_settings(self, path: str) -> dict",
                ),
            ),
        ],
    ),
    (
        "button.tsx",
        TSX,
        150,
        [(1, 1, ()), (3, 5, ("function Button", "function Button({ label }: Props)"))],
    ),
    (
        "read.js",
        JS,
        150,
        [(1, 1, ()), (3, 5, ("function readConfig", "function readConfig(path)"))],
    ),
]


@pytest.mark.parametrize(("name", "text", "max_def_lines", "expected"), CASES)
def test_definitions_are_chunks_headed_by_kind_name_and_signature(
    name: str, text: str, max_def_lines: int, expected: list[tuple[int, int, tuple[str, ...]]]
) -> None:
    language = chunk_document(name, text)[0].language
    elements = chunk_source(text, language, max_def_lines=max_def_lines)
    assert [(e.start_line, e.end_line, e.headings) for e in elements] == expected
    lines = text.splitlines()
    for element in elements:  # the exact source lines
        assert element.content == "\n".join(lines[element.start_line - 1 : element.end_line])


def test_a_long_function_is_cut_between_statements_never_inside_one() -> None:
    statements = [f"    if x == {i}:\n        y = {i}\n        z = {i}\n" for i in range(40)]
    text = "def long_one(x):\n" + "".join(statements)
    elements = chunk_source(text, "python", window=20, max_def_lines=30)
    assert len(elements) > 1
    assert all(e.headings == ("function long_one", "def long_one(x)") for e in elements)
    assert elements[0].start_line == 1
    for element in elements:  # every cut falls before an `if`, never inside its body
        assert element.content.splitlines()[0].lstrip().startswith(("def ", "if "))
        assert element.end_line - element.start_line < 20
    assert [e.end_line + 1 for e in elements[:-1]] == [e.start_line for e in elements[1:]]


def test_a_language_without_a_grammar_keeps_line_windows() -> None:
    text = "".join(f"local v{i} = {i}\n" for i in range(100))
    elements = chunk_source(text, "lua", window=60, overlap=10)
    assert [(e.start_line, e.end_line, e.headings) for e in elements] == [
        (1, 60, ()),
        (51, 100, ()),
    ]


def test_code_that_does_not_parse_is_still_indexed_whole() -> None:
    text = "def broken(:\n    return 1\n\nclass Fine:\n    pass\n"
    elements = chunk_source(text, "python")
    covered = {line for e in elements for line in range(e.start_line, e.end_line + 1)}
    assert covered >= {1, 2, 4, 5}
