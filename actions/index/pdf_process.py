"""PDF conversion in a child process with a memory limit and a time limit.

A PDF's streams are compressed: a small file can inflate to gigabytes (a 0.87 MB "PDF bomb"
took the indexing server to 1.84 GB), and a hostile one can keep the parser busy for ever.
So ``convert_pdf`` runs ``pdf.pdf_to_markdown`` in a child Python process whose address
space is capped (``RLIMIT_AS``, ``AGENT_LS_PDF_MEMORY_MB``, 1024 MB by default) and whose
CPU time is capped (``RLIMIT_CPU``), and which is killed after a wall-clock timeout. A PDF
that passes a limit is a ``PdfError`` naming it (the document is recorded ``failed`` with that
reason); the server's own memory never holds the inflated streams.

The child reads the PDF's bytes on stdin and writes ``{"markdown", "pages"}`` or
``{"error"}`` as JSON on stdout (run as ``python -m actions.index.pdf_process MEMORY CPU``).
"""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from actions.index.pdf import PdfError, PdfText, pdf_to_markdown

MEMORY_ENV = "AGENT_LS_PDF_MEMORY_MB"
MEMORY_MB = 1024
CPU_SECONDS = 300  # of CPU time: a long manual takes a few seconds a hundred pages
WALL_FACTOR = 3  # the wall-clock timeout, in CPU limits (a loaded machine is slower)
MEMORY_EXIT = 86  # the child's exit status when the memory limit stopped it
_PACKAGES = str(Path(__file__).resolve().parents[2])  # where ``actions`` is importable from


@dataclass(frozen=True)
class PdfLimits:
    """What one conversion may use: ``memory_mb`` of address space, ``cpu_seconds``."""

    memory_mb: int = MEMORY_MB
    cpu_seconds: int = CPU_SECONDS

    @classmethod
    def from_environment(cls) -> PdfLimits:
        value = os.environ.get(MEMORY_ENV, "")
        try:
            memory = int(value) if value else MEMORY_MB
        except ValueError:
            memory = MEMORY_MB
        return cls(memory_mb=memory if memory > 0 else MEMORY_MB)


def convert_pdf(data: bytes, limits: PdfLimits | None = None) -> PdfText:
    """``pdf_to_markdown(data)`` in a bounded child process (see the module docstring)."""
    limits = limits or PdfLimits.from_environment()
    command = [
        sys.executable,
        "-m",
        "actions.index.pdf_process",
        str(limits.memory_mb),
        str(limits.cpu_seconds),
    ]
    path = os.environ.get("PYTHONPATH", "")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [_PACKAGES, path]))}
    try:
        done = subprocess.run(
            command,
            input=data,
            capture_output=True,
            timeout=limits.cpu_seconds * WALL_FACTOR,
            env=env,
            check=False,
        )
    except subprocess.TimeoutExpired:
        seconds = limits.cpu_seconds * WALL_FACTOR
        raise PdfError(f"the conversion took longer than {seconds} s (stopped)") from None
    except OSError as error:
        raise PdfError(f"the PDF converter cannot start ({error})") from None
    return _outcome(done, limits)


def _outcome(done: subprocess.CompletedProcess[bytes], limits: PdfLimits) -> PdfText:
    if done.returncode == MEMORY_EXIT:
        raise PdfError(
            f"the conversion needs more than {limits.memory_mb} MB of memory (stopped; "
            f"a compressed stream inflating that far is a decompression bomb, or set "
            f"{MEMORY_ENV})"
        )
    if done.returncode in (-signal.SIGXCPU, -signal.SIGKILL):
        raise PdfError(f"the conversion used more than {limits.cpu_seconds} s of CPU (stopped)")
    try:
        reply = json.loads(done.stdout)
    except ValueError:
        reply = None
    if done.returncode != 0 or not isinstance(reply, dict):
        last = (done.stderr.decode("utf-8", "replace").strip().splitlines() or ["no output"])[-1]
        raise PdfError(f"the PDF converter failed (exit status {done.returncode}: {last[:200]})")
    if "error" in reply:
        raise PdfError(str(reply["error"]))
    return PdfText(str(reply["markdown"]), tuple(int(page) for page in reply["pages"]))


def main(argv: list[str]) -> int:
    """The child: limits first, then the conversion of stdin's PDF to stdout's JSON."""
    memory = int(argv[0]) * 2**20
    cpu = int(argv[1])
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
    data = sys.stdin.buffer.read()
    try:
        try:
            text = pdf_to_markdown(data)
            reply = json.dumps({"markdown": text.markdown, "pages": list(text.pages)})
        except PdfError as error:
            reply = json.dumps({"error": str(error)})
    except MemoryError:
        os._exit(MEMORY_EXIT)  # nothing more can be allocated safely: the status says it
    sys.stdout.write(reply)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
