"""The fake agent: reads the prompt (``--prompt P`` or stdin) and writes a stream-json log.

Modes:
- success: init, assistant text, a tool round trip, writes ``fakecli.txt`` (the prompt) in
  its working directory (and rewrites the files listed in FAKECLI_EDIT, deletes those in
  FAKECLI_DELETE, comma-separated), then a ``[HH:MM:SS] INFO:``-prefixed result line; exit 0.
- plan: an assistant ExitPlanMode tool_use whose ``input.plan`` names the prompt.
- garbage: non-JSON noise and a broken object around a timestamped result.
- no_result: assistant lines only; exit 0.
- error: a result with ``is_error: true`` (subtype error_max_turns); exit 1.
- crash: nothing on stdout, "fatal: not logged in" on stderr; exit 3.
- sleep: one assistant line, starts a child process, writes "PID CHILD_PID" to the file
  named by FAKECLI_PIDS, then sleeps (for timeout and cancellation tests).
- wait: one assistant line, then waits until the file named by FAKECLI_GO exists before
  the result (lets a test see streamed text before the end without timing).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

SESSION = "0f6c2b1e-7d4a-4c55-8e21-3b9a6d0c4f17"


def emit(obj: dict[str, Any], prefix: str = "") -> None:
    sys.stdout.write(prefix + json.dumps(obj, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def assistant(*content: dict[str, Any]) -> dict[str, Any]:
    message: dict[str, Any] = {"id": "msg_fake", "type": "message", "role": "assistant"}
    message |= {"model": "fake-agent", "content": list(content), "stop_reason": None}
    return {"type": "assistant", "message": message, "session_id": SESSION}


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def result(value: str, *, is_error: bool = False, subtype: str = "success") -> dict[str, Any]:
    return {
        "type": "result",
        "subtype": subtype,
        "is_error": is_error,
        "duration_ms": 1234,
        "duration_api_ms": 1100,
        "num_turns": 3,
        "result": value,
        "session_id": SESSION,
        "total_cost_usd": 0.0123,
        "usage": {"input_tokens": 10, "output_tokens": 20},
    }


def init() -> None:
    emit({"type": "system", "subtype": "init", "cwd": os.getcwd(), "session_id": SESSION})


def success(prompt: str) -> int:
    init()
    emit(assistant(text("Let me look at the workspace.")))
    call = {"type": "tool_use", "id": "toolu_1", "name": "Glob", "input": {"pattern": "*"}}
    emit(assistant(call))
    tool_result = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "hello.py"}
    emit({"type": "user", "message": {"role": "user", "content": [tool_result]}})
    Path("fakecli.txt").write_text(prompt)
    for name in filter(None, os.environ.get("FAKECLI_EDIT", "").split(",")):
        Path(name).write_text("edited by the agent\n")  # changes files it was not asked to
    for name in filter(None, os.environ.get("FAKECLI_DELETE", "").split(",")):
        Path(name).unlink()
    emit(assistant(text(f"Done: {prompt}")))
    emit(result(f"Done: {prompt}"), prefix=time.strftime("[%H:%M:%S] ") + "INFO: ")
    return 0


def plan(prompt: str) -> int:
    init()
    emit(assistant(text("I will plan first.")))
    steps = f"1. Read the code\n2. {prompt}\n3. Run the tests"
    call = {"type": "tool_use", "id": "toolu_p", "name": "ExitPlanMode", "input": {"plan": steps}}
    emit(assistant(call))
    emit(result("Plan ready for review."))
    return 0


def garbage(prompt: str) -> int:
    print("Starting fake agent v0.0 (not JSON)")
    print('{"type": "assistant", "message": {"content": [')
    print("\x1b[33mwarning: colour codes\x1b[0m")
    emit(result(f"Answer after noise: {prompt}"), prefix="[09:15:02] ")
    print("debug: shutting down")
    return 0


def no_result(prompt: str) -> int:
    init()
    emit(assistant(text("Thinking about " + prompt)))
    return 0


def error(prompt: str) -> int:
    init()
    emit(result("Reached the maximum number of turns", is_error=True, subtype="error_max_turns"))
    return 1


def crash(prompt: str) -> int:
    sys.stderr.write("fatal: not logged in\n")
    return 3


def sleep(prompt: str) -> int:
    init()
    emit(assistant(text("Working on it...")))
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    pids = Path(os.environ["FAKECLI_PIDS"])
    pids.with_suffix(".tmp").write_text(f"{os.getpid()} {child.pid}")
    pids.with_suffix(".tmp").replace(pids)
    time.sleep(120)
    return 0


def wait(prompt: str) -> int:
    init()
    emit(assistant(text("First part. ")))
    go = Path(os.environ["FAKECLI_GO"])
    deadline = time.monotonic() + 30
    while not go.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    emit(assistant(text("Second part.")))
    emit(result("Second part."))
    return 0


def main(argv: list[str]) -> int:
    mode = argv[0] if argv else "success"
    prompt = argv[argv.index("--prompt") + 1] if "--prompt" in argv else sys.stdin.read().strip()
    modes = {f.__name__: f for f in (success, plan, garbage, no_result, error, crash, sleep, wait)}
    return modes[mode](prompt)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
