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

_EXAMPLES = """\
1. text_response — answer the user; touches nothing and ends your turn:
{"action": "text_response", "text_response": "Sure, I can refactor the Header component."}

2. tool_call — ask for context before editing; the result comes back as the next message:
{tool_calls}

3. start_multi_file — begin ANY change to files (even a single file):
{"action": "start_multi_file",
 "plan": {"description": "Short summary of the whole task.",
          "files_to_modify": ["/path/file1.js", "/path/file2.css"]},
 "first_file": {"action": "create_file", "file": {"path": "/path/file1.js", "content": "..."}},
 "message": "Starting the refactor..."}
first_file.action is create_file or update_file.

4. continue_multi_file — the next file of the plan in progress:
{"action": "continue_multi_file",
 "next_file": {"action": "update_file", "file": {"path": "/path/file2.css", "content": "..."}},
 "message": "Now updating the CSS..."}
next_file.action is create_file, update_file or delete_file (content may be omitted for
delete_file).""".replace(
    "{tool_calls}",
    "\n".join(
        json.dumps({"action": "tool_call", "tool_call": {"function_name": name, "args": args}})
        for name, args in [
            ("list_files", {}),
            ("read_file", {"path": "/src/App.jsx"}),
            ("read_file", {"paths": ["/src/App.jsx", "/src/stores/useFileStore.js"]}),
        ]
    ),
)

_RULES = """\
Rules:
- Put exactly one action document in each reply, as a ```json fenced block. Text outside it
  is shown to the user as is. A JSON example meant for the user (not to be executed) belongs
  inside a text_response string.
- "content" is the WHOLE new file, exactly as it must be saved: never abbreviate with "...",
  "rest unchanged" or similar. Escape it as a JSON string (\\n, \\", \\\\).
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
    tools: Sequence[Tool], *, workspace_name: str, instructions: str = ""
) -> str:
    """The system prompt of the JSON action protocol for ``tools`` in ``workspace_name``."""
    sections = [
        f'You are a coding assistant working in the workspace "{workspace_name}". '
        'You act only through JSON action documents with a top-level "action" field. '
        "There are four actions:",
        _EXAMPLES,
        _RULES,
        render_tools(tools),
    ]
    if instructions.strip():
        sections.append("Additional instructions from the user:\n" + instructions.strip())
    return "\n\n".join(sections)


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


def render_plan_progress(applied: Sequence[str], remaining: Sequence[str]) -> str:
    """After each applied file: what is done, what is left, what to send next."""
    done = ", ".join(applied) if applied else "none"
    if remaining:
        return (
            f"Applied: {done}.\nRemaining files of the plan: {', '.join(remaining)}.\n"
            "Reply with a continue_multi_file document for the next file "
            "(one file per reply)."
        )
    return (
        f"Applied: {done}.\nThe plan is complete: every planned file is done.\n"
        "Reply with a text_response summarising the change for the user."
    )


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
