"""Which syntax nodes are definitions, per language, and the tree-sitter grammar of each.

The grammars are the tree-sitter project's own PyPI wheels (``tree-sitter-python``,
``-javascript``, ``-typescript``, ``-go``, ``-rust``, ``-java``, ``-c``, ``-cpp``, ``-ruby``,
``-bash``): prebuilt, nothing fetched at run time. A language is imported on first use only.

``DEFINITIONS[language]`` maps a node type to the kind of definition it is (``function``,
``class``, ...); ``WRAPPERS`` are nodes that only dress a definition (``export``, decorators,
``template<...>``): the definition's chunk starts where they start.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import tree_sitter


_JS = {
    "function_declaration": "function",
    "generator_function_declaration": "function",
    "class_declaration": "class",
    "method_definition": "method",
}
_TS = {
    **_JS,
    "abstract_class_declaration": "class",
    "interface_declaration": "interface",
    "type_alias_declaration": "type",
    "enum_declaration": "enum",
    "internal_module": "namespace",
    "module": "module",
}
_C = {
    "function_definition": "function",
    "struct_specifier": "struct",
    "union_specifier": "union",
    "enum_specifier": "enum",
}

DEFINITIONS: dict[str, dict[str, str]] = {
    "python": {"function_definition": "function", "class_definition": "class"},
    "javascript": _JS,
    "typescript": _TS,
    "tsx": _TS,
    "go": {
        "function_declaration": "function",
        "method_declaration": "method",
        "type_declaration": "type",
    },
    "rust": {
        "function_item": "function",
        "struct_item": "struct",
        "enum_item": "enum",
        "union_item": "union",
        "trait_item": "trait",
        "impl_item": "impl",
        "mod_item": "module",
        "macro_definition": "macro",
    },
    "java": {
        "class_declaration": "class",
        "interface_declaration": "interface",
        "enum_declaration": "enum",
        "record_declaration": "record",
        "annotation_type_declaration": "annotation",
        "method_declaration": "method",
        "constructor_declaration": "constructor",
    },
    "c": _C,
    "cpp": {
        **_C,
        "class_specifier": "class",
        "namespace_definition": "namespace",
    },
    "ruby": {
        "method": "method",
        "singleton_method": "method",
        "class": "class",
        "module": "module",
    },
    "shell": {"function_definition": "function"},
}

WRAPPERS = frozenset(
    {"export_statement", "decorated_definition", "template_declaration", "ambient_declaration"}
)
# a function defined inside one of these is a method
CLASS_KINDS = frozenset({"class", "struct", "impl", "trait", "interface", "record", "enum"})
# a variable bound to one of these is a function definition (``const f = () => ...``)
FUNCTION_VALUES = frozenset(
    {"arrow_function", "function_expression", "function", "generator_function"}
)


@functools.cache
def parser_for(language: str) -> tree_sitter.Parser | None:
    """A parser of ``language`` (a name of ``source_chunks.LANGUAGES``), None when no grammar
    is shipped for it."""
    grammar = _grammar(language)
    if grammar is None:
        return None
    from tree_sitter import Language, Parser  # here: a search parses nothing

    return Parser(Language(grammar))


def _grammar(language: str) -> object | None:
    """The grammar of ``language``, its wheel imported here, on first use."""
    match language:
        case "python":
            import tree_sitter_python

            return tree_sitter_python.language()
        case "javascript":
            import tree_sitter_javascript

            return tree_sitter_javascript.language()
        case "typescript" | "tsx":
            import tree_sitter_typescript

            if language == "tsx":
                return tree_sitter_typescript.language_tsx()
            return tree_sitter_typescript.language_typescript()
        case "go":
            import tree_sitter_go

            return tree_sitter_go.language()
        case "rust":
            import tree_sitter_rust

            return tree_sitter_rust.language()
        case "java":
            import tree_sitter_java

            return tree_sitter_java.language()
        case "c":
            import tree_sitter_c

            return tree_sitter_c.language()
        case "cpp":
            import tree_sitter_cpp

            return tree_sitter_cpp.language()
        case "ruby":
            import tree_sitter_ruby

            return tree_sitter_ruby.language()
        case "shell":
            import tree_sitter_bash

            return tree_sitter_bash.language()
    return None
