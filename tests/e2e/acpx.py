"""Driving acpx (npm, a headless ACP client nobody on the team wrote) against `agent-ls acp`,
for the end-to-end tests: the way its users run it, one `acpx` command line at a time.

acpx is pinned in tests/clients/package.json and installed by `make clients` (part of
`make test`) into tests/clients/node_modules. Missing, a test fails under CI=true and is skipped
otherwise.

Each `Acpx` has its own temp HOME (acpx keeps its sessions in ~/.acpx, agent-ls its own under
the XDG dirs) and a workspace with real git; the agent talks to the fake LLM on 127.0.0.1.
acpx starts a detached "queue owner" per session that owns the agent process; `--ttl` makes it
exit as soon as it is idle, so every prompt runs in a new agent process (which loads the
session), and `Acpx.close()` stops any owner and agent left by process group.

Usage (the other #24 tests can build on it)::

    with FakeLLM(script) as llm, acpx_client(root, tmp_path / "home", llm) as acpx:
        session = acpx.sessions_new()
        run = acpx.prompt("Add a greeting module", permissions=None)  # acpx's default mode
        run.returncode, run.stop_reason, run.response("session/prompt"), run.writes()
        acpx.wait_idle()  # the agent exited: the next prompt starts one that loads the session
        again = acpx.prompt("and now?")  # loads the session (acpx 0.19 asks session/load with
        # its replay suppressed: the replayed updates never reach its output; the official SDK
        # client checks the replay, tests/e2e/test_acp_replay.py)
"""

from __future__ import annotations

import json
import os
import select
import shlex
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pytest

from tests.fakellm import FakeLLM

REPO = Path(__file__).resolve().parents[2]
ACPX = REPO / "tests/clients/node_modules/.bin/acpx"
TIMEOUT = 60  # seconds an acpx command may take before the test fails (not a timed assertion)

# acpx's permission modes (its flags --approve-all, --approve-reads, --deny-all); None is
# acpx's default (approve-reads: a write through fs/write_text_file is refused).
Permissions = Literal["approve-all", "approve-reads", "deny-all"] | None


def require_acpx() -> Path:
    """The acpx binary; without it the test fails under CI=true and is skipped otherwise."""
    if ACPX.exists():
        return ACPX
    reason = f"acpx is not installed at {ACPX} (run `make clients`: npm, from tests/clients)"
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(reason)
    pytest.skip(reason)


@dataclass(frozen=True)
class AcpxRun:
    """One finished acpx command: exit code, the JSON lines it printed (--format json: the ACP
    messages it exchanged with the agent), and its stderr."""

    returncode: int
    messages: list[dict[str, Any]]
    stderr: str

    def updates(self, kind: str | None = None) -> list[dict[str, Any]]:
        """The session/update payloads ("sessionUpdate" == kind, or all)."""
        found = [
            m["params"]["update"] for m in self.messages if m.get("method") == "session/update"
        ]
        return [u for u in found if kind is None or u.get("sessionUpdate") == kind]

    def requests(self, method: str) -> list[dict[str, Any]]:
        """The JSON-RPC requests/notifications with this method (either direction)."""
        return [m for m in self.messages if m.get("method") == method]

    def response(self, method: str) -> dict[str, Any]:
        """The response to the (last) request `method`: its message with "result" or "error"."""
        ids = {m.get("id") for m in self.requests(method)}
        answers = [m for m in self.messages if "method" not in m and m.get("id") in ids]
        assert answers, f"no response to {method} in {self.messages!r}\n{self.stderr}"
        return answers[-1]

    def writes(self) -> list[str]:
        """The paths the agent asked acpx to write (fs/write_text_file), in order."""
        return [m["params"]["path"] for m in self.requests("fs/write_text_file")]

    @property
    def stop_reason(self) -> str | None:
        result = self.response("session/prompt").get("result")
        return None if result is None else result.get("stopReason")

    def text(self) -> str:
        """The agent's answer text, as the user reads it."""
        return "".join(u["content"].get("text", "") for u in self.updates("agent_message_chunk"))


def parse_output(stdout: str) -> list[dict[str, Any]]:
    """acpx --format json prints one JSON object a line."""
    return [json.loads(line) for line in stdout.splitlines() if line.strip().startswith("{")]


class Acpx:
    """acpx against `agent-ls acp` in `workspace`, with a private HOME under `home`."""

    def __init__(self, workspace: Path, home: Path, llm: FakeLLM, **agent_env: str) -> None:
        self.binary = require_acpx()
        self.workspace = workspace
        self.home = home
        self.llm = llm
        self.agent = shlex.join([sys.executable, "-m", "server", "acp"])
        self.env = self._environment(agent_env)
        self._running: list[subprocess.Popen[str]] = []

    def _environment(self, agent_env: dict[str, str]) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("AGENT_LS_", "XDG_"))}
        env.update(
            HOME=str(self.home),
            XDG_CONFIG_HOME=str(self.home / ".config"),
            XDG_DATA_HOME=str(self.home / ".local/share"),
            XDG_STATE_HOME=str(self.home / ".local/state"),
            XDG_CACHE_HOME=str(self.home / ".cache"),
            PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")])),
            AGENT_LS_BASE_URL=self.llm.base_url_openai,
            AGENT_LS_MODEL="fake",
            **agent_env,
        )
        return env

    def command(self, *args: str, permissions: Permissions = "approve-all") -> list[str]:
        flags = ["--agent", self.agent, "--cwd", str(self.workspace), "--format", "json"]
        flags += ["--ttl", "0.001"]  # the queue owner (and its agent) exits once idle
        if permissions is not None:
            flags.append(f"--{permissions}")
        return [str(self.binary), *flags, *args]

    def start(self, *args: str, permissions: Permissions = "approve-all") -> subprocess.Popen[str]:
        """Start an acpx command (e.g. a prompt to cancel); `finish` collects it."""
        process = subprocess.Popen(
            self.command(*args, permissions=permissions),
            cwd=self.workspace,
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        self._running.append(process)
        return process

    def finish(self, process: subprocess.Popen[str]) -> AcpxRun:
        stdout, stderr = process.communicate(timeout=TIMEOUT)
        self._running.remove(process)
        return AcpxRun(process.returncode, parse_output(stdout), stderr)

    def run(self, *args: str, permissions: Permissions = "approve-all") -> AcpxRun:
        return self.finish(self.start(*args, permissions=permissions))

    def sessions_new(self) -> str:
        """`acpx sessions new`: the new session's id."""
        run = self.run("sessions", "new")
        assert run.returncode == 0, run.stderr
        (ensured,) = [m for m in run.messages if m.get("action") == "session_ensured"]
        return str(ensured["acpxSessionId"])

    def prompt(self, text: str, *, permissions: Permissions = "approve-all") -> AcpxRun:
        """`acpx prompt TEXT` in the current session, under a permission mode (None: acpx's
        default); the ACP messages it exchanged."""
        return self.run("prompt", text, permissions=permissions)

    def exec(self, text: str, *, permissions: Permissions = "approve-all") -> AcpxRun:
        """`acpx exec TEXT`: one-shot, in a session of its own."""
        return self.run("exec", text, permissions=permissions)

    def cancel(self) -> AcpxRun:
        return self.run("cancel")

    def close(self) -> None:
        """Stop what acpx left running: our commands, its queue owners, their agents."""
        for process in self._running:
            _kill_group(process.pid)
            process.communicate(timeout=TIMEOUT)
        self._running.clear()
        for pid in self.leftover_pids():
            _kill_group(pid)

    def wait_idle(self) -> None:
        """Wait until the queue owners (and so their agents) exited after their TTL: the next
        command starts a new agent process."""
        for pid in self.leftover_pids():
            _wait_exit(pid)

    def agent_pid(self) -> int | None:
        """The agent process acpx last recorded for the session (~/.acpx/sessions/*.json)."""
        records = [_read_json(p) for p in (self.home / ".acpx").glob("sessions/*.json")]
        pids = [r.get("pid") for r in records if isinstance(r.get("pid"), int)]
        return pids[-1] if pids else None

    def leftover_pids(self) -> set[int]:
        """Live queue owners (~/.acpx/queues/*.lock) and agents (~/.acpx/sessions/*.json)."""
        pids: set[int] = set()
        for pattern in ("queues/*.lock", "sessions/*.json"):
            for path in (self.home / ".acpx").glob(pattern):
                pid = _read_json(path).get("pid")
                if isinstance(pid, int) and _ours(pid, self.home):
                    pids.add(pid)
        return pids


def _read_json(path: Path) -> dict[str, Any]:
    with suppress(OSError, ValueError):
        data = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(data, dict):
            return data
    return {}


def _ours(pid: int, home: Path) -> bool:
    """`pid` is alive and an acpx queue owner or agent-ls agent run with our HOME (never a
    reused pid, nor another test's process)."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    except OSError:
        return False
    mine = f"HOME={home}".encode() in environ
    return mine and (b"__queue-owner" in cmdline or cmdline[-3:-1] == [b"server", b"acp"])


def _kill_group(pid: int) -> None:
    """SIGKILL `pid` and its process group (acpx's owners lead their own session)."""
    with suppress(ProcessLookupError, PermissionError):
        group = os.getpgid(pid)
        if group != os.getpgrp():
            os.killpg(group, signal.SIGKILL)
        else:
            os.kill(pid, signal.SIGKILL)


def _wait_exit(pid: int) -> None:
    """Block until `pid` exits (a pidfd turns readable), TIMEOUT at most."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return
    try:
        ready, _, _ = select.select([fd], [], [], TIMEOUT)
        assert ready, f"process {pid} still runs {TIMEOUT} s after its acpx command"
    finally:
        os.close(fd)


def git_workspace(root: Path) -> Path:
    """`root` as a git repository with its files committed (real git)."""
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "init", "-q"], cwd=root, check=True)
    subprocess.run([*git, "add", "-A"], cwd=root, check=True)
    subprocess.run([*git, "commit", "-qm", "seed"], cwd=root, check=True)
    return root


@contextmanager
def acpx_client(workspace: Path, home: Path, llm: FakeLLM, **agent_env: str) -> Iterator[Acpx]:
    """An `Acpx` for the test; nothing it started outlives the block."""
    home.mkdir(parents=True, exist_ok=True)
    client = Acpx(workspace, home, llm, **agent_env)
    try:
        yield client
    finally:
        client.close()
