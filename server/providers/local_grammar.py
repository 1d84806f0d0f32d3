"""The embedded model's grammar: only the action documents valid in the turn's state.

A small model under a loose grammar sends documents the turn then refuses
(`continue_multi_file` without a plan, an update of a file that does not exist, a read of a
made-up path) or loops inside an unbounded string until max_tokens. So each reply's grammar
is built from a `TurnState`:

- no plan in progress: text_response | tool_call | start_multi_file — except the turn's first
  reply in a workspace with files, which is list_files: a small model otherwise answers a
  question about the files without looking (with the system prompt's example, or after a
  search for a pattern copied from a tool's description), and the listing gives it the
  names to answer with;
- a plan with files left: continue_multi_file with one of them (a small model otherwise
  wanders off: re-reads files, starts over);
- a plan complete: text_response (the turn's answer);
- update/delete/read paths are files that exist, create paths are paths that do not;
- tool_call names are the offered tools not called yet in this turn (a small model calls
  list_files again and again otherwise), their args the tool's own parameters;
- every string, array and object is bounded, and strings admit only JSON's escaped forms
  (no raw newline or control character), so every reply decodes strictly.

The JSON Schema built here is turned into GBNF by llama-cpp-python's converter; two things
it cannot say are added to the GBNF text: JSON-valid string characters, and "a path not in
this set" (a trie over the existing paths, a bounded tail of path characters after it).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from actions.tools import Tool
from server.providers.constraints import TurnState

# llama.cpp refuses (and then crashes on) grammars with bounded repetitions much over 1000:
# 1000 characters per string passes, 1500 does not (llama-cpp-python 0.3.x).
CONTENT_MAX = 1000
TEXT_MAX = 1000
DESCRIPTION_MAX = 200
MESSAGE_MAX = 120
ARG_MAX = 256
PATH_MAX = 128
ITEMS_MAX = 8
ABSENT_TAIL_MAX = 64
FIRST_LOOK = "list_files"  # the tool of the turn's first reply, when the workspace has files
# The tools a 135M model uses to some purpose: given search_files / search_docs it searches for
# text copied from the previous tool result and answers with the search's own words.
SMALL_MODEL_TOOLS = ("list_files", "read_file")
# Paths a small model may write: no spaces, quotes or trailing commas ("buy.txt," would never
# match its plan and the model would retry it until the turn limit).
PATH_CHARS = "A-Za-z0-9_./-"
PATH_PATTERN = f"^[{PATH_CHARS}]{{1,{PATH_MAX}}}$"
_PATH_RE = re.compile(PATH_PATTERN)
_ALPHABET = sorted(
    {chr(c) for c in range(128) if re.fullmatch(f"[{PATH_CHARS}]", chr(c))},
)
ABSENT = "@absent-path@"  # placeholder the GBNF pass replaces by the absent-path rule
# JSON string characters: anything but the quote, the backslash and control characters.
JSON_CHAR = (
    r'char ::= [^"\\\x7F\x00-\x1F] | "\\" (["\\/bfnrt] | "u" [0-9a-fA-F] [0-9a-fA-F] '
    r"[0-9a-fA-F] [0-9a-fA-F])"
)


def string(max_length: int, min_length: int = 0) -> dict[str, Any]:
    return {"type": "string", "minLength": min_length, "maxLength": max_length}


def closed(properties: Mapping[str, Any], required: Iterable[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": dict(properties),
        "required": list(required),
        "additionalProperties": False,
    }


@dataclass(frozen=True)
class Paths:
    """The path schemas of one state: files that exist, folders, and paths that do not."""

    files: tuple[str, ...] | None

    def _known(self, paths: Iterable[str]) -> dict[str, Any]:
        names = sorted({p for p in paths if _PATH_RE.match(p)})
        if not names:
            return {}
        return {"enum": [form for p in names for form in (p, "/" + p)]}

    def existing(self, among: Iterable[str] | None = None) -> dict[str, Any]:
        """A file that exists (one of `among` when given); {} when there is none."""
        if self.files is None:
            return {"type": "string", "pattern": PATH_PATTERN} if among is None else {}
        files = set(self.files) if among is None else set(self.files) & set(among)
        return self._known(files)

    def folders(self) -> dict[str, Any]:
        if self.files is None:
            return {"type": "string", "pattern": PATH_PATTERN}
        folders = {f.rsplit("/", 1)[0] for f in self.files if "/" in f}
        return {"enum": ["/", *self._known(folders).get("enum", [])]}

    def absent(self, among: Iterable[str] | None = None) -> dict[str, Any]:
        """A path that does not exist (one of `among` when given); {} when there is none."""
        if among is not None:
            return self._known(set(among) - set(self.files or ()))
        if self.files is None:
            return {"type": "string", "pattern": PATH_PATTERN}
        return {"enum": [ABSENT]}


def file_op(action: str, path: Mapping[str, Any], content: bool) -> dict[str, Any] | None:
    if not path:
        return None
    body = {"path": path, **({"content": string(CONTENT_MAX)} if content else {})}
    return closed({"action": {"const": action}, "file": closed(body, body)}, ["action", "file"])


def one_of(branches: Iterable[dict[str, Any] | None]) -> dict[str, Any] | None:
    kept = [b for b in branches if b is not None]
    return {"anyOf": kept} if kept else None


def document_schema(state: TurnState) -> dict[str, Any]:
    """The JSON Schema of the documents valid in `state` (a union of closed objects)."""
    paths = Paths(state.files)
    remaining = state.plan_remaining
    answer = closed(
        {"action": {"const": "text_response"}, "text_response": string(TEXT_MAX, 1)},
        ["action", "text_response"],
    )
    if remaining is None or not state.can_edit:
        fresh = [
            tool
            for tool in state.tools
            if tool.name in SMALL_MODEL_TOOLS and tool.name not in state.tools_called
        ]
        first = [tool for tool in fresh if tool.name == FIRST_LOOK]
        if first and not state.tools_called and state.files != ():
            look = tool_call_branch(first, paths)  # the first step looks at the workspace
            if look is not None:
                return look
        branches = [answer, tool_call_branch(fresh, paths)]
        branches.append(start_branch(paths) if state.can_edit else None)
    elif remaining:
        branches = [continue_branch(paths, remaining)]
    else:
        branches = []  # the plan is complete: what is left is the answer
    return one_of(branches) or answer


def start_branch(paths: Paths) -> dict[str, Any] | None:
    first = one_of(
        [
            file_op("create_file", paths.absent(), content=True),
            file_op("update_file", paths.existing(), content=True),
        ]
    )
    if first is None:
        return None
    plan = closed(
        {
            "description": string(DESCRIPTION_MAX, 1),
            "files_to_modify": {
                "type": "array",
                "items": {"type": "string", "pattern": PATH_PATTERN},
                "minItems": 1,
                "maxItems": ITEMS_MAX,
            },
        },
        ["description", "files_to_modify"],
    )
    properties = {
        "action": {"const": "start_multi_file"},
        "plan": plan,
        "first_file": first,
        "message": string(MESSAGE_MAX),
    }
    return closed(properties, ["action", "plan", "first_file"])


def continue_branch(paths: Paths, remaining: Iterable[str]) -> dict[str, Any] | None:
    left = list(remaining)
    following = one_of(
        [
            file_op("create_file", paths.absent(left), content=True),
            file_op("update_file", paths.existing(left), content=True),
            file_op("delete_file", paths.existing(left), content=False),
        ]
    )
    if following is None:
        return None
    properties = {
        "action": {"const": "continue_multi_file"},
        "next_file": following,
        "message": string(MESSAGE_MAX),
    }
    return closed(properties, ["action", "next_file"])


def tool_call_branch(tools: Iterable[Tool], paths: Paths) -> dict[str, Any] | None:
    calls = []
    for tool in tools:
        args = ToolArgs(tool.name, paths).schema(tool.parameters)
        if args is None:
            continue
        body = {"function_name": {"const": tool.name}, "args": args}
        calls.append(closed(body, body))
    call = one_of(calls)
    if call is None:
        return None
    return closed({"action": {"const": "tool_call"}, "tool_call": call}, ["action", "tool_call"])


@dataclass
class ToolArgs:
    """A tool's parameter schema, bounded and closed, with its paths from the state."""

    tool: str
    paths: Paths
    depth: int = field(default=0)

    def path(self) -> dict[str, Any]:
        return self.paths.folders() if self.tool == "list_files" else self.paths.existing()

    def schema(self, node: Mapping[str, Any], name: str = "") -> dict[str, Any] | None:
        """None: a value this grammar cannot offer (the property is left out)."""
        if "const" in node or "enum" in node:
            return {key: node[key] for key in ("const", "enum") if key in node}
        kind = node.get("type")
        if isinstance(kind, list):  # e.g. read_file's paths: strings or {path, lines}
            for one in kind:  # the first type the grammar can offer (the simplest first)
                converted = self.schema({**node, "type": one}, name)
                if converted is not None:
                    return converted
            return None
        if kind == "string":
            if name == "path":
                return self.path() or None
            return string(min(int(node.get("maxLength", ARG_MAX)), ARG_MAX))
        if kind in ("integer", "number", "boolean"):
            return {"type": kind}
        if kind == "array":
            items = self.schema(node.get("items", {}), "path" if name == "paths" else name)
            if items is None:
                return None
            limit = min(int(node.get("maxItems", ITEMS_MAX)), ITEMS_MAX)
            return {
                "type": "array",
                "items": items,
                "minItems": min(int(node.get("minItems", 0)), limit),
                "maxItems": limit,
            }
        if kind == "object" and self.depth < 3:
            return self.object(node)
        return None

    def object(self, node: Mapping[str, Any]) -> dict[str, Any] | None:
        inner = ToolArgs(self.tool, self.paths, self.depth + 1)
        properties = {}
        for key, sub in dict(node.get("properties", {})).items():
            converted = inner.schema(sub, key)
            if converted is not None:
                properties[key] = converted
        required = [k for k in node.get("required", []) if k in properties]
        if len(required) < len(node.get("required", [])):
            return None  # a required argument cannot be written
        alternatives = node.get("oneOf") or node.get("anyOf")
        if not alternatives:
            return closed(properties, required)
        # {"oneOf": [{"required": ["path"]}, {"required": ["paths"]}]}: one object per way.
        named = {k for alt in alternatives for k in alt.get("required", [])}
        variants = []
        for alt in alternatives:
            needed = [k for k in alt.get("required", []) if k in properties]
            if len(needed) < len(alt.get("required", [])):
                continue
            keep = {k: v for k, v in properties.items() if k in needed or k not in named}
            variants.append(closed(keep, list(dict.fromkeys([*required, *needed]))))
        return one_of(variants)


def absent_rules(files: Iterable[str]) -> list[str]:
    """GBNF rules for `absent-path`: a path of PATH_CHARS that is none of `files` (with or
    without a leading slash). A trie: at each node, leave the set with a character no file
    continues with (then any tail), follow a file's next character, or stop if no file ends
    there."""
    trie: dict[str, Any] = {}
    for path in files:
        if _PATH_RE.match(path):
            node = trie
            for char in path:
                node = node.setdefault(char, {})
            node[""] = {}
    rules = [
        'absent-path ::= "/"? absent-0',
        f"absent-char ::= [{PATH_CHARS}]",
        f"absent-tail ::= absent-char{{0,{ABSENT_TAIL_MAX}}}",
    ]
    counter = [0]

    def visit(node: dict[str, Any], number: int, root: bool) -> None:
        children = sorted(c for c in node if c)
        others = [c for c in _ALPHABET if c not in node and not (root and c == "/")]
        alternatives = []
        if others:
            alternatives.append(f"[{_char_class(others)}] absent-tail")
        for char in children:
            counter[0] += 1
            child = counter[0]
            alternatives.append(f"{json.dumps(char)} absent-{child}")
            visit(node[char], child, root=False)
        body = " | ".join(alternatives)
        may_stop = not root and "" not in node
        rules.append(f"absent-{number} ::= ({body})" + ("?" if may_stop else ""))

    visit(trie, 0, root=True)
    return rules


def _char_class(chars: list[str]) -> str:
    """GBNF class body: "-" last, where llama.cpp reads it literally (PATH_CHARS has no
    other character that needs escaping in a class)."""
    return "".join(c for c in chars if c != "-") + ("-" if "-" in chars else "")


def to_gbnf(schema: Mapping[str, Any], files: tuple[str, ...] | None) -> str:
    """The GBNF of `schema`: llama-cpp-python's conversion, JSON-valid string characters and
    the absent-path rules in place of the ABSENT placeholder."""
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    grammar = json_schema_to_gbnf(json.dumps(schema))
    lines = [JSON_CHAR if line.startswith("char ::= ") else line for line in grammar.split("\n")]
    grammar = "\n".join(lines)
    placeholder = json.dumps(json.dumps(ABSENT))  # "\"@absent-path@\"" as a GBNF literal
    if placeholder in grammar:
        grammar = grammar.replace(placeholder, r'"\"" absent-path "\""')
        grammar += "\n" + "\n".join(absent_rules(files or ()))
    return grammar
