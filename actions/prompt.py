"""Messages of the JSON action protocol adapter: the system prompt and the feedback messages.

``render_system_prompt`` explains the four actions with the SPEC §2 examples, the plan
semantics, the path rules and the available tools with their argument schemas. The other
functions render what goes back to the model after a tool call, after each applied file of a
plan, and after an invalid document: short, precise, and ending with what to send next.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from actions.errors import ActionError, InvalidAction
from actions.schema import ToolCallSpec
from actions.tools.base import Tool, ToolResult

_TOOL_CALLS = "\n".join(
    json.dumps({"action": "tool_call", "tool_call": {"function_name": name, "args": args}})
    for name, args in [
        ("list_files", {}),
        ("read_file", {"path": "/src/App.jsx"}),
        ("read_file", {"paths": ["/src/App.jsx", "/src/stores/useFileStore.js"]}),
        ("read_file", {"path": "/src/big.py", "start_line": 200, "end_line": 320}),
    ]
)

_ANSWER = """\
1. text_response — answer the user; touches nothing and ends your turn:
{"action": "text_response", "text_response": "(your answer to the user, in Markdown)"}

2. tool_call — ask for context before editing; the result comes back as the next message.
Several tool calls may share one reply: they run in order and all results come back together.
"""

_FENCED_PLANS = """\
3. start_multi_file — begin ANY change to files (even a single file). Write each file body as
a fenced code block AFTER the document and refer to it as {"fence": N}: N numbers the fenced
code blocks of your reply 1, 2, 3... in order (the ```json block of the document does not
count). A body is copied byte for byte, so write code exactly as it must be saved:
```json
{"action": "start_multi_file",
 "plan": {"description": "Add a greeting helper and use it.",
          "files_to_modify": ["/src/greet.py", "/src/app.py"]},
 "first_file": {"action": "create_file",
                "file": {"path": "/src/greet.py", "content": {"fence": 1}}},
 "message": "Creating the helper..."}
```
```python
def greet(name: str) -> str:
    return f"Hello, {name}!"
```
first_file.action is create_file or update_file.

4. continue_multi_file — the next file of the plan in progress. update_file takes either
"content" (the whole new file) or "edits": search/replace blocks, the best way to change part
of an existing file:
```json
{"action": "continue_multi_file",
 "next_file": {"action": "update_file", "file": {"path": "/src/app.py", "edits": [
   {"search": {"fence": 1}, "replace": {"fence": 2}}]}},
 "message": "Using the helper in app.py..."}
```
```python
print("Hello, world!")
```
```python
from src.greet import greet

print(greet("world"))
```
next_file.action is create_file, update_file or delete_file (no content for delete_file)."""

_STRING_PLANS = """\
3. start_multi_file — begin ANY change to files (even a single file):
{"action": "start_multi_file",
 "plan": {"description": "Short summary of the whole task.",
          "files_to_modify": ["/path/file1.js", "/path/file2.css"]},
 "first_file": {"action": "create_file", "file": {"path": "/path/file1.js", "content": "..."}},
 "message": "Starting the refactor..."}
first_file.action is create_file or update_file.

4. continue_multi_file — the next file of the plan in progress. update_file takes either
"content" (the whole new file) or "edits" (search/replace blocks):
{"action": "continue_multi_file",
 "next_file": {"action": "update_file", "file": {"path": "/path/file2.css",
   "edits": [{"search": "color: red;", "replace": "color: blue;"}]}},
 "message": "Now updating the CSS..."}
next_file.action is create_file, update_file or delete_file (no content for delete_file)."""

_FENCED_BODIES_RULE = """\
- File bodies ("content", and "search" / "replace" of edits) go in fenced code blocks after
  the document, referenced as {"fence": N}. Put each fence on its own lines; if the code itself
  contains ```, use a longer fence (````). A plain JSON string also works (escape \\n, \\",
  \\\\). Never abbreviate a body with "...", "rest unchanged" or similar."""

_STRING_BODIES_RULE = """\
- "content" is the WHOLE new file, exactly as it must be saved: never abbreviate with "...",
  "rest unchanged" or similar. Escape it as a JSON string (\\n, \\", \\\\)."""

_RULES = """\
Rules:
- Put each action document in a ```json fenced block. Text outside documents is shown to the
  user as is. A JSON example meant for the user (not to be executed) belongs inside a
  text_response string.
{bodies}
- To change part of a file, prefer update_file "edits" over re-sending the whole file (a reply
  has an output limit: a large file does not fit). Each "search" is copied exactly from the
  file as it is now: a few complete lines, enough to match exactly one place, without
  read_file's line numbers; "replace" is what those lines become. Blocks are matched against
  the file before any of them applies, in any order, and all apply or none: a failed block
  comes back with the file's real lines, while the blocks that matched are kept for your
  corrected retry (do not re-send those).
- Plans: one file per reply. After each file you are told what was applied and which planned
  files remain; send continue_multi_file for the next one until every file in
  files_to_modify is done, then reply with a text_response summarising the change.
  A text_response earlier ends the plan (the remaining files are skipped). If the plan
  cannot be completed, everything it changed is rolled back.
- Read a file before updating it unless you created it in this conversation.
- Paths are relative to the workspace root; a leading "/" means the workspace root, never
  the filesystem root. Paths outside the workspace, inside .git, or to secret files (.env,
  keys...) are refused.
- An invalid document is not applied: you get the exact error and may send a corrected one."""


def render_system_prompt(
    tools: Sequence[Tool],
    *,
    workspace_name: str,
    instructions: str = "",
    fenced_bodies: bool = True,
    folders: Sequence[str] = (),
) -> str:
    """The system prompt of the JSON action protocol for ``tools`` in ``workspace_name``.

    ``fenced_bodies``: teach file bodies as fenced code blocks referenced from the document
    (the default); False for models whose output is constrained to one JSON document.
    ``folders``: the folder names of a multi-root workspace (paths are qualified by them).
    """
    plans = _FENCED_PLANS if fenced_bodies else _STRING_PLANS
    bodies = _FENCED_BODIES_RULE if fenced_bodies else _STRING_BODIES_RULE
    sections = [
        f"You are a coding assistant working in {_workspace_words(workspace_name, folders)}. "
        'You act only through JSON action documents with a top-level "action" field. '
        "There are four actions:",
        _ANSWER + _TOOL_CALLS + "\n\n" + plans,
        _RULES.replace("{bodies}", bodies),
        render_tools(tools),
    ]
    if instructions.strip():
        sections.append("Additional instructions from the user:\n" + instructions.strip())
    return "\n\n".join(sections)


def _workspace_words(workspace_name: str, folders: Sequence[str]) -> str:
    if len(folders) < 2:
        return f'the workspace "{workspace_name}"'
    listed = ", ".join(f'"{name}"' for name in folders)
    return (
        f"a workspace of {len(folders)} folders: {listed}. Every path you read or write "
        f"starts with its folder's name (/{folders[0]}/src/main.py; '/' alone is the list "
        "of folders); a path without a folder name is accepted only when it exists in "
        "exactly one folder"
    )


def render_tools(tools: Sequence[Tool]) -> str:
    """The tool list: name, description, and the JSON Schema of the arguments."""
    if not tools:
        return "No tools are available in this session."
    lines = ["Tools (call them with tool_call; args must match the schema):"]
    for tool in tools:
        schema = json.dumps(_without_titles(tool.parameters), separators=(", ", ": "))
        lines.append(f"- {tool.name}: {tool.description}\n  args schema: {schema}")
    return "\n".join(lines)


def render_tool_result(call: ToolCallSpec, result: ToolResult) -> str:
    """The message carrying a tool's output back to the model."""
    args = json.dumps(call.args, ensure_ascii=False)
    if result.ok:
        return f"Result of {call.function_name} {args}:\n{result.text}"
    return (
        f"Error from {call.function_name} {args}:\n{result.text}\n"
        "Fix the call and try again, or continue with what you have."
    )


def render_plan_progress(
    applied: Sequence[str], remaining: Sequence[str], staged: bool = False
) -> str:
    """After each applied file: what is done, what is left, what to send next. `staged`
    (review mode): the files wait for the user's review, so the summary is a proposal."""
    done = ", ".join(applied) if applied else "none"
    head = (
        f"Staged for the user's review (nothing is written until they accept it): {done}."
        if staged
        else f"Applied: {done}."
    )
    if remaining:
        return (
            f"{head}\nRemaining files of the plan: {', '.join(remaining)}.\n"
            "Reply with a continue_multi_file document for the next file "
            "(one file per reply)."
        )
    summary = (
        "Reply with a text_response presenting the proposed change to the user: it is not "
        "applied yet, the user accepts or rejects each file."
        if staged
        else "Reply with a text_response summarising the change for the user."
    )
    return f"{head}\nThe plan is complete: every planned file is done.\n{summary}"


def render_invalid_document(error: ActionError) -> str:
    """After a document failed validation: each problem on its own line, then the ask."""
    problems = error.errors if isinstance(error, InvalidAction) else (error.message,)
    listed = "\n".join(f"- {problem}" for problem in problems)
    return (
        "Your last action document is invalid; nothing was applied:\n"
        f"{listed}\n"
        "Send the corrected document in full (one action document per reply)."
    )


def _without_titles(schema: Mapping[str, Any]) -> dict[str, Any]:
    """Drop pydantic-style titles (noise); descriptions stay, they help the model."""
    return {
        key: _without_titles(value) if isinstance(value, Mapping) else value
        for key, value in schema.items()
        if key != "title"
    }
