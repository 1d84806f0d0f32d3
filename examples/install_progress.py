"""Condense `pip install -v` output into progress lines for `make install` (stdin -> stdout).

The first `make install-local` compiles llama-cpp-python for about 12 minutes; `pip -q` is
silent all that time and `pip -v` prints thousands of lines. This keeps the lines a user cares
about (what is collected, which wheel is built, the compile's step N/total every tenth, what got
installed) and, when nothing was shown for HEARTBEAT seconds, says what it is still doing. The
whole log goes to a file through `tee`.

The compile's steps are ninja's: pip -v relays them as `  [28/193] /usr/bin/g++ ...` (the
command, not a "Building ..." description), so a step is any line that starts with `[N/M]`.
"""

from __future__ import annotations

import re
import sys
import threading
import time
from collections.abc import Iterable, Iterator

HEARTBEAT = 30.0
STEP = re.compile(r"\s*\[(\d+)/(\d+)\]\s")
WHEEL = re.compile(r"\s*Building (?:wheel|editable) for (\S+) .*: started")
KEEP = ("Created wheel", "Successfully installed")
COLLECTED_EVERY = 20  # "Collecting x" is one line per package: shown as a running count


class Progress:
    """The state of one pip run, read line by line: what is said, and what is going on."""

    def __init__(self) -> None:
        self.building = "a wheel"
        self.tenth = -1
        self.doing = "installing"
        self.collected = 0

    def read(self, raw: str) -> str | None:
        """The progress line to show for one line of pip -v's output, or None."""
        line = raw.strip()
        step = STEP.match(raw)
        if step is not None:
            current, total = int(step.group(1)), int(step.group(2))
            self.doing = f"compiling {self.building}: step {current}/{total}"
            tenth = current * 10 // max(total, 1)
            if tenth == self.tenth:
                return None
            self.tenth = tenth
            return f"{self.doing} ({current * 100 // max(total, 1)}%)"
        wheel = WHEEL.match(raw)
        if wheel is not None:
            self.building, self.tenth = wheel.group(1), -1
            self.doing = f"building {self.building}"
            return f"building {self.building}"
        if line.startswith("Collecting "):
            self.collected += 1
            self.doing = f"collecting packages ({self.collected} so far)"
            return self.doing if self.collected % COLLECTED_EVERY == 1 else None
        if line.startswith(KEEP):
            self.doing = "installing"
            return line[:100]
        return None


def condense(lines: Iterable[str]) -> Iterator[str]:
    """The progress lines for a whole pip -v log (what `main` prints, without timings)."""
    progress = Progress()
    for raw in lines:
        shown = progress.read(raw)
        if shown is not None:
            yield shown


class Screen:
    def __init__(self) -> None:
        self.started = time.monotonic()
        self.last = self.started
        self.lock = threading.Lock()

    def say(self, text: str) -> None:
        with self.lock:
            elapsed = time.monotonic() - self.started
            print(f"  [{elapsed:4.0f}s] {text}", flush=True)
            self.last = time.monotonic()


def heartbeat(screen: Screen, progress: Progress, done: threading.Event) -> None:
    while not done.wait(5):
        if time.monotonic() - screen.last >= HEARTBEAT:
            screen.say(f"still {progress.doing}...")


def main() -> None:
    screen, progress = Screen(), Progress()
    done = threading.Event()
    threading.Thread(target=heartbeat, args=(screen, progress, done), daemon=True).start()
    for raw in sys.stdin:
        shown = progress.read(raw)
        if shown is not None:
            screen.say(shown)
    done.set()


if __name__ == "__main__":
    main()
