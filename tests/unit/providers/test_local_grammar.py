"""The embedded model's grammar admits only the documents valid in the turn's state.

Checked with llama.cpp's own grammar sampler over the real model's vocabulary: a document is
admitted when every one of its tokens survives the grammar and the grammar then allows the
end of generation — exactly what constrained decoding lets the model write.
"""

from __future__ import annotations

import ctypes
import json
import math
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from actions.paths import Workspace
from actions.schema import ContinueMultiFile, StartMultiFile, ToolCallAction, validate_action
from actions.tools import Tool, default_registry
from server.providers.constraints import TurnState
from server.providers.local import bundled_model, llama_installed, load_model, state_grammar

pytestmark = pytest.mark.skipif(not llama_installed(), reason="llama_cpp is not importable")

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "hello"
TOOLS: tuple[Tool, ...] = tuple(default_registry(Workspace(EXAMPLE)).manifests())
FILES = ("README.md", "hello.py", "src/app.py")
NO_PLAN = TurnState(TOOLS, FILES, None)
IN_PLAN = TurnState(TOOLS, FILES, ("notes.txt", "hello.py"))
PLAN_DONE = TurnState(TOOLS, FILES, ())
UNKNOWN_FILES = TurnState(TOOLS, None, None)
READ_ONCE = TurnState(TOOLS, FILES, None, tools_called=("read_file",))
LOOKED = TurnState(TOOLS, FILES, None, tools_called=("list_files",))  # after the first step
UNKNOWN_LOOKED = TurnState(TOOLS, None, None, tools_called=("list_files",))
EMPTY = TurnState(TOOLS, (), None)  # a workspace with no file: nothing to look at


@pytest.fixture(scope="module")
def llama() -> Any:
    path = bundled_model()
    assert path is not None
    return load_model(path, 2048).llama


def admits(llama: Any, grammar: str, text: str) -> bool:
    import llama_cpp

    vocab = llama_cpp.llama_model_get_vocab(llama.model)
    sampler = llama_cpp.llama_sampler_init_grammar(vocab, grammar.encode(), b"root")
    assert sampler, "llama.cpp refused the grammar"
    try:
        for token in [*llama.tokenize(text.encode(), add_bos=False), llama.token_eos()]:
            data = (llama_cpp.llama_token_data * 1)(llama_cpp.llama_token_data(token, 0.0, 0.0))
            candidates = llama_cpp.llama_token_data_array(data, 1, -1, False)
            llama_cpp.llama_sampler_apply(sampler, ctypes.byref(candidates))
            if math.isinf(data[0].logit):
                return False
            if token != llama.token_eos():
                llama_cpp.llama_sampler_accept(sampler, token)
        return True
    finally:
        llama_cpp.llama_sampler_free(sampler)


def text(answer: str) -> dict[str, Any]:
    return {"action": "text_response", "text_response": answer}


def call(name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"action": "tool_call", "tool_call": {"function_name": name, "args": args}}


def op(action: str, path: str, content: str | None = "x = 1\n") -> dict[str, Any]:
    file = {"path": path} if content is None else {"path": path, "content": content}
    return {"action": action, "file": file}


def start(first: dict[str, Any], files: list[str] | None = None) -> dict[str, Any]:
    plan = {"description": "a change", "files_to_modify": files or [first["file"]["path"]]}
    return {"action": "start_multi_file", "plan": plan, "first_file": first}


def following(next_file: dict[str, Any]) -> dict[str, Any]:
    return {"action": "continue_multi_file", "next_file": next_file}


VALID = [
    (LOOKED, text("hello.py defines greet(name).")),
    (NO_PLAN, call("list_files", {})),
    (NO_PLAN, call("list_files", {"path": "/src"})),
    (LOOKED, call("read_file", {"path": "/hello.py"})),
    (LOOKED, call("read_file", {"paths": ["README.md", "src/app.py"]})),
    (LOOKED, start(op("create_file", "notes.txt", "buy milk\n"))),
    (LOOKED, start(op("create_file", "hello.py.bak"))),
    (LOOKED, start(op("update_file", "/hello.py", "def sub(a, b):\n    return a - b\n"))),
    (IN_PLAN, following(op("create_file", "notes.txt"))),
    (IN_PLAN, following(op("update_file", "hello.py"))),
    (IN_PLAN, following(op("delete_file", "/hello.py", None))),
    (PLAN_DONE, text("Done.")),
    (UNKNOWN_LOOKED, start(op("update_file", "any/path.py"))),
    (READ_ONCE, call("list_files", {})),
    (READ_ONCE, text("hello.py defines greet(name).")),
    (EMPTY, text("The workspace is empty.")),
    (EMPTY, start(op("create_file", "notes.txt"))),
]

INVALID = [
    (LOOKED, following(op("create_file", "notes.txt")), "continue without a plan"),
    (LOOKED, start(op("update_file", "calc.py")), "update of a missing file"),
    (LOOKED, start(op("create_file", "hello.py")), "create over an existing file"),
    (LOOKED, start(op("create_file", "/src/app.py")), "create over an existing file"),
    (LOOKED, start(op("delete_file", "hello.py", None)), "delete as a first file"),
    (LOOKED, call("read_file", {"path": "/src/App.jsx"}), "read of a missing file"),
    (NO_PLAN, call("list_files", {"path": "/nowhere"}), "list of a missing folder"),
    (NO_PLAN, call("write_file", {"path": "hello.py"}), "a tool that does not exist"),
    (LOOKED, call("read_file", {"path": "hello.py", "paths": ["README.md"]}), "both args"),
    (NO_PLAN, call("list_files", {"recursive": "yes"}), "an argument name not declared"),
    (NO_PLAN, call("list_files", {"p" * 300: "x"}), "a long argument name"),
    (LOOKED, text(""), "an empty answer"),
    (LOOKED, text("x" * 1001), "an answer over its bound"),
    (LOOKED, start(op("create_file", "a.py", "x" * 1001)), "content over its bound"),
    (LOOKED, start(op("create_file", "my notes.txt")), "a path with a space"),
    (LOOKED, {**text("hi"), "extra": "field"}, "an undeclared field"),
    (IN_PLAN, following(op("create_file", "other.txt")), "a file outside the plan"),
    (IN_PLAN, following(op("update_file", "notes.txt")), "update of a planned new file"),
    (IN_PLAN, following(op("delete_file", "notes.txt", None)), "delete of a missing file"),
    (IN_PLAN, text("stopping halfway"), "an answer with planned files left"),
    (IN_PLAN, start(op("create_file", "b.py")), "a new plan with files left"),
    (PLAN_DONE, following(op("create_file", "more.txt")), "continue after the plan"),
    (READ_ONCE, call("read_file", {"path": "hello.py"}), "the same tool again"),
    (NO_PLAN, text("Sure, I can refactor the Header component."), "an answer before looking"),
    (NO_PLAN, start(op("create_file", "notes.txt")), "a plan before looking"),
    (NO_PLAN, call("read_file", {"path": "hello.py"}), "another tool before the listing"),
    (NO_PLAN, call("search_files", {"pattern": "path:line:"}), "a search before the listing"),
    (LOOKED, call("search_files", {"pattern": "greet"}), "a search: not a small model's tool"),
    (UNKNOWN_FILES, text("hello.py defines greet(name)."), "an answer before looking"),
]


@pytest.mark.parametrize(("state", "document"), VALID)
def test_the_grammar_admits_the_documents_valid_in_the_state(
    llama: Any, state: TurnState, document: dict[str, Any]
) -> None:
    assert admits(llama, state_grammar(state), json.dumps(document))
    validate_action(document)


@pytest.mark.parametrize(("state", "document", "why"), INVALID)
def test_the_grammar_refuses_documents_invalid_in_the_state(
    llama: Any, state: TurnState, document: dict[str, Any], why: str
) -> None:
    assert not admits(llama, state_grammar(state), json.dumps(document)), why


def test_strings_admit_only_json_escapes(llama: Any) -> None:
    grammar = state_grammar(LOOKED)
    assert admits(llama, grammar, '{"action": "text_response", "text_response": "a\\nb"}')
    assert not admits(llama, grammar, '{"action": "text_response", "text_response": "a\nb"}')
    assert not admits(llama, grammar, '{"action": "text_response", "text_response": "a\tb"}')


@pytest.mark.parametrize(
    "state", [NO_PLAN, LOOKED, IN_PLAN, PLAN_DONE, UNKNOWN_FILES, READ_ONCE, EMPTY]
)
def test_every_repetition_in_the_grammar_is_bounded(state: TurnState) -> None:
    grammar = state_grammar(state)
    outside_literals = re.sub(r'"(?:[^"\\]|\\.)*"|\[(?:[^\]\\]|\\.)*\]', "", grammar)
    assert "*" not in outside_literals
    assert "+" not in outside_literals
    rules = {line.split(" ::= ")[0] for line in grammar.splitlines()}
    assert not rules & {"string", "object", "value", "array"}  # the unbounded primitives


paths = st.text(alphabet="abhelo.py/", min_size=1, max_size=12)
documents = st.one_of(
    st.builds(lambda p: call("read_file", {"path": p}), paths),
    st.builds(lambda a, p: start(op(a, p)), st.sampled_from(["create_file", "update_file"]), paths),
    st.builds(
        lambda a, p: following(op(a, p, None if a == "delete_file" else "x")),
        st.sampled_from(["create_file", "update_file", "delete_file"]),
        paths,
    ),
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(document=documents, in_plan=st.booleans())
def test_any_admitted_document_is_usable_in_its_state(
    llama: Any, document: dict[str, Any], in_plan: bool
) -> None:
    state = IN_PLAN if in_plan else LOOKED
    if not admits(llama, state_grammar(state), json.dumps(document)):
        return
    action = validate_action(document)
    existing = set(FILES)
    if isinstance(action, ToolCallAction):
        assert action.tool_call.args["path"].lstrip("/") in existing
    if isinstance(action, StartMultiFile):
        assert not in_plan
        path = action.first_file.path.lstrip("/")
        assert (path in existing) == (action.first_file.action == "update_file")
    if isinstance(action, ContinueMultiFile):
        assert in_plan
        path = action.next_file.path.lstrip("/")
        assert path in (state.plan_remaining or ())
        assert (path in existing) == (action.next_file.action != "create_file")
