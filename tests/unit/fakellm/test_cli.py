"""The CLI, run as a real subprocess: announce line, port file, script, signals."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

REPO = Path(__file__).resolve().parents[3]
PREFIX = "fakellm listening on "


def start(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.fakellm", *args],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def announced_url(proc: subprocess.Popen[str]) -> str:
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line.startswith(PREFIX), line
    return line[len(PREFIX) :].strip()


@pytest.fixture
def script_file(tmp_path: Path) -> Path:
    path = tmp_path / "script.json"
    path.write_text(json.dumps({"replies": ["from the file", {"fault": "503"}]}))
    return path


@pytest.fixture
def proc(script_file: Path, tmp_path: Path) -> Iterator[subprocess.Popen[str]]:
    process = start("--script", str(script_file), "--port-file", str(tmp_path / "port"))
    yield process
    if process.poll() is None:
        process.kill()
    process.wait(timeout=10)


def chat(url: str) -> httpx.Response:
    return httpx.post(url + "/v1/chat/completions", json={"messages": []}, timeout=10)


def test_serves_the_script_and_writes_the_port_file(
    proc: subprocess.Popen[str], tmp_path: Path
) -> None:
    url = announced_url(proc)
    port = int((tmp_path / "port").read_text())
    assert url == f"http://127.0.0.1:{port}"
    assert chat(url).json()["choices"][0]["message"]["content"] == "from the file"
    assert chat(url).status_code == 503
    assert chat(url).status_code == 503


def test_control_endpoints_out_of_process(proc: subprocess.Popen[str]) -> None:
    url = announced_url(proc)
    httpx.post(url + "/_control/script", json={"replies": ["swapped"]})
    response = httpx.post(
        url + "/v1/chat/completions", json={"messages": []}, headers={"Authorization": "Bearer k"}
    )
    assert response.json()["choices"][0]["message"]["content"] == "swapped"
    recorded = httpx.get(url + "/_control/requests").json()
    assert recorded[0]["headers"]["authorization"] == "Bearer k"


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_signal_stops_it_with_exit_0_and_prints_no_secrets(
    proc: subprocess.Popen[str], signum: int
) -> None:
    url = announced_url(proc)
    chat(url)
    httpx.post(url + "/v1/messages", json={"messages": []}, headers={"x-api-key": "sk-SECRET"})
    os.kill(proc.pid, signum)
    out, err = proc.communicate(timeout=10)
    assert proc.returncode == 0
    assert "sk-SECRET" not in out + err
    assert err == ""


def test_default_script_without_file() -> None:
    process = start()
    try:
        url = announced_url(process)
        assert chat(url).json()["choices"][0]["message"]["content"] == "Hello from fakellm."
    finally:
        os.kill(process.pid, signal.SIGTERM)
        process.communicate(timeout=10)
    assert process.returncode == 0


def test_bad_script_file_exits_2_with_a_message(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"replies": [{"fault": "teapot"}]}))
    process = start("--script", str(bad))
    out, err = process.communicate(timeout=10)
    assert process.returncode == 2
    assert "teapot" in err
    assert out == ""
