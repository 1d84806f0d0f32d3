"""Families of adversarial replies, each a function of a size ``n``: the shapes that were
exponential, quadratic or slow once (regex backtracking, retry loops, re-scans while
streaming). tests/unit/parsing/test_linear.py checks that their cost grows linearly;
bench/fuzz_parse.py prints their cost per 100 KB."""

from __future__ import annotations

from collections.abc import Callable

FAMILIES: dict[str, Callable[[int], str]] = {
    "slashes after a key": lambda n: '{"a"' + "/" * n,
    "empty comments after a key": lambda n: '{"a"' + " /**/" * n,
    "unclosed comment after a key": lambda n: '{"a" /*' + "*" * n,
    "line comments": lambda n: "{a" + " //x\n" * n,
    "key then comment opener": lambda n: '{"a" //' * n,
    "open brackets": lambda n: "[" * n,
    "open braces": lambda n: "{" * n,
    "brace-quote": lambda n: '{"' * n,
    "inner quotes": lambda n: '{"a": "' + '", "' * n,
    "keys without colon": lambda n: '{"a": "x"' + ' "b' * n,
    "json fence of braces": lambda n: "```json\n" + "{" * n,
    "json fence of brackets and quotes": lambda n: "```json\n" + '["' * n,
    "tool-call tags": lambda n: "<tool_call>{" * n,
    "prose mentions": lambda n: "say {x} and [1] " * n,
    "unquoted key before a think tag": lambda n: "{mode: <think>} " * n,
    "mismatched closers": lambda n: '{"a": [' + '"x"}, ' * n,
    "missing closing quotes": lambda n: '{"a": "b' + "}\n" * n,
    "foreign fence openers": lambda n: "```python\n" * n,
    "quotes": lambda n: '"' * n,
    "unquoted keys": lambda n: "{a:" * n,
    "unquoted values": lambda n: "{a: b, " * n,
    "single-quoted strings": lambda n: "{'a': '" + "', '" * n,
    "tool tag for json-repair": lambda n: "<tool_call>{" + "'a" * n + "</tool_call>",
    "json fence for json-repair": lambda n: "```json\n{" + "a'" * n + "\n```",
    "backslashes": lambda n: '{"a": "' + "\\" * n,
    "key lookahead": lambda n: '{"a": "x", ' + '"b, ' * n,
    "think tags with braces": lambda n: "<think>{" * n,
    "tilde json fences": lambda n: "~~~json\n{" * n,
    "json fences closed inline": lambda n: '```json {"a": 1}``` ' * n,
    "backticks inside code lines": lambda n: "```python\n" + 'x = "```" # {"a": 1}\n' * n,
    "bracket-heavy document with inner quotes": lambda n: (
        '{"action": "text_response", "text_response": "'
        + 'a "b" [1, {"c": 2}] x["k"] = {"d": [3]} ' * n
        + '"}'
    ),
    # issue 21 item 10: repeated document starts, each a candidate (a newline, a \n escape
    # or a rejection searched to the end of the text from each was O(n^2))
    "action documents opened": lambda n: '{"action": "tool_call", ' * n,
    "fences then an action key": lambda n: '```\n{"action":' * n,
    "text responses opened": lambda n: '{"action":"text_response","text_response":"' * n,
    "tilde fences then a brace": lambda n: "~~~\n{" * n,
    "flat string members": lambda n: '{"a":"b",' * n,
    "arrays of a brace": lambda n: "[{" * n,
}
