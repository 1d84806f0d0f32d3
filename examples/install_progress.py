"""Condense `pip install -v` output into progress lines for `make install` (stdin -> stdout).

The first install compiles llama-cpp-python for about 12 minutes; `pip -q` is silent all that
time and `pip -v` prints thousands of lines. This keeps the lines a user cares about (what is
collected, the compile's [step/total], what got installed) and, when nothing was shown for
HEARTBEAT seconds, says it is still working. The whole log goes to a file through `tee`.
"""

from __future__ import annotations

import re
import sys
import threading
import time

HEARTBEAT = 30.0
STEP = re.compile(r"\[(\d+)/(\d+)\]")
KEEP = ("Collecting ", "Building wheel", "Created wheel", "Successfully installed")


class Shown:
    def __init__(self) -> None:
        self.started = time.monotonic()
        self.last = self.started
        self.lock = threading.Lock()

    def say(self, text: str) -> None:
        with self.lock:
            elapsed = time.monotonic() - self.started
            print(f"  [{elapsed:4.0f}s] {text}", flush=True)
            self.last = time.monotonic()


def heartbeat(shown: Shown, done: threading.Event) -> None:
    while not done.wait(5):
        if time.monotonic() - shown.last >= HEARTBEAT:
            shown.say("still installing...")


def main() -> None:
    shown = Shown()
    done = threading.Event()
    threading.Thread(target=heartbeat, args=(shown, done), daemon=True).start()
    reported = -1
    for raw in sys.stdin:
        line = raw.strip()
        step = STEP.search(line)
        if step is not None and ("Building" in line or "Linking" in line):
            current, total = int(step.group(1)), int(step.group(2))
            tenth = current * 10 // max(total, 1)
            if tenth != reported:
                reported = tenth
                shown.say(f"compiling llama.cpp: step {current}/{total}")
        elif line.startswith(KEEP):
            shown.say(line[:100])
    done.set()


if __name__ == "__main__":
    main()
