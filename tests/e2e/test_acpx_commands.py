"""`run_command` driven by acpx (npm, a third-party ACP client) as its users run it (#25).

acpx 0.19.1 advertises `terminal: true`, so an approved command runs in acpx's own terminal
(terminal/create `/bin/sh -c LINE`, wait_for_exit, output, release) and its output reaches the
model from there. `--approve-all` answers session/request_permission with the allow option;
acpx's default mode (approve-reads, non-interactive: no TTY here) answers it with Deny, and
acpx then exits 5 (its PERMISSION_DENIED exit code) after a turn that ended normally."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.e2e.acpx import AcpxRun, acpx_client, git_workspace
from tests.e2e.conversations import doc, tool
from tests.fakellm import FakeLLM, last_user_message

LINE = "echo out-from-acpx; touch made.txt; exit 3"
SCRIPT = {
    "replies": [
        tool("run_command", command=LINE),
        doc(action="text_response", text_response="Checked."),
    ]
}
PERMISSION_DENIED = 5  # acpx's exit code when every permission request was denied


def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "app.py").write_text("print('hi')\n")
    return git_workspace(root)


def answer_to(run: AcpxRun, request: dict[str, Any]) -> dict[str, Any]:
    """The result of `request` (either side numbers its own requests: the first answer with
    its id after it)."""
    after = run.messages[run.messages.index(request) :]
    (answer, *_) = [m for m in after if "method" not in m and m.get("id") == request["id"]]
    return dict(answer["result"])


def chosen_option(run: AcpxRun) -> dict[str, Any]:
    """The option acpx picked for the (only) permission request of the run."""
    (request,) = run.requests("session/request_permission")
    picked = answer_to(run, request)["outcome"]["optionId"]
    (option,) = [o for o in request["params"]["options"] if o["optionId"] == picked]
    assert request["params"]["toolCall"]["kind"] == "execute"
    assert LINE in request["params"]["toolCall"]["title"]
    return dict(option)


def test_approve_all_runs_the_command_in_acpx_terminal(tmp_path: Path) -> None:
    """--approve-all: acpx allows once, runs the line in its terminal; the model reads the
    output and the exit code; the file the command made is there."""
    root = workspace(tmp_path)
    with FakeLLM(SCRIPT) as llm, acpx_client(root, tmp_path / "home", llm) as acpx:
        acpx.sessions_new()
        run = acpx.prompt("Run the check", permissions="approve-all")
        sent = last_user_message(llm.requests[-1])
    assert (run.returncode, run.stop_reason) == (0, "end_turn"), run.stderr
    assert chosen_option(run)["kind"] == "allow_once"
    (created,) = run.requests("terminal/create")
    assert (created["params"]["command"], created["params"]["args"]) == ("/bin/sh", ["-c", LINE])
    assert created["params"]["cwd"] == str(root)
    terminal = answer_to(run, created)["terminalId"]
    assert [r["params"]["terminalId"] for r in run.requests("terminal/release")] == [terminal]
    assert (root / "made.txt").exists()
    assert "out-from-acpx" in sent
    assert "exit code 3" in sent
    assert run.text() == "Checked."


def test_default_mode_denies_cleanly(tmp_path: Path) -> None:
    """acpx's default mode without a terminal to ask on: the request is answered Deny, nothing
    runs, the turn still ends end_turn and the model is told not to retry."""
    root = workspace(tmp_path)
    with FakeLLM(SCRIPT) as llm, acpx_client(root, tmp_path / "home", llm) as acpx:
        acpx.sessions_new()
        run = acpx.prompt("Run the check", permissions=None)
        sent = last_user_message(llm.requests[-1])
    assert run.stop_reason == "end_turn", run.stderr
    assert run.returncode == PERMISSION_DENIED
    assert chosen_option(run)["kind"] == "reject_once"
    assert not run.requests("terminal/create")
    assert not (root / "made.txt").exists()
    assert "denied" in sent
    assert "do not run the same command again" in sent
    (failed,) = [u for u in run.updates("tool_call_update") if u.get("status") == "failed"]
    assert "denied" in failed["content"][0]["content"]["text"]
    assert run.text() == "Checked."
