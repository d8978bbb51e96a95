"""Progress on stderr for a long `check`: files done of the total, and the rate.

Shown only when stderr is a terminal and not in CI (`CI` set): a pipe or a log gets nothing.
"""

from __future__ import annotations

import os
import sys
import time
from typing import TextIO

_EVERY = 0.1  # seconds between redraws


class Progress:
    def __init__(self, total: int, stream: TextIO | None = None, force: bool | None = None) -> None:
        self.stream = stream or sys.stderr
        shown = force if force is not None else (
            hasattr(self.stream, "isatty") and self.stream.isatty() and not os.environ.get("CI"))
        self.enabled = bool(shown) and total > 0
        self.total, self.done = total, 0
        self.start = self.last = time.monotonic()

    def advance(self, count: int = 1) -> None:
        self.done += count
        now = time.monotonic()
        if self.enabled and (now - self.last >= _EVERY or self.done == self.total):
            self.last = now
            rate = self.done / max(now - self.start, 1e-6)
            self.stream.write(f"\rprivlint: {self.done}/{self.total} files checked ({rate:.0f}/s)")
            self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\r\x1b[2K")  # clear the line before the report is printed
            self.stream.flush()
