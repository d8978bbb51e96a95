"""Keep hostile input from taking the process down.

libcst's native parser overflows its stack (a segfault, not an exception) on nesting in
the thousands, and slows to minutes on single expressions of tens of thousands of terms.
Files that look like that (a cheap scan) are parsed first in a throw-away subprocess; if
it dies or runs out of time, the file is reported instead of parsed here. Deep trees that
do parse are walked in a thread with a large stack and a high recursion limit.
"""

from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import sys
import threading
from typing import Any, Callable

MAX_SAFE_DEPTH = 300          # brackets; libcst itself copes with ~1,000
MAX_SAFE_LINE = 20_000        # characters in one physical line
PARSE_TIMEOUT = 20.0
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"()[]{}")
_PAIRS = re.compile(rb"\(\)|\[\]|\{\}")
_LAYOUT = b" \t\r\n\x0c\\"
# Runs of unary operators (and lambdas, awaits) with the layout squeezed out: C-speed `in` tests,
# where a regex over every position cost seconds on a large corpus.
_RUNS = tuple(token * MAX_SAFE_DEPTH for token in (b"not", b"-", b"+", b"~", b"lambda:", b"await"))


def looks_dangerous(data: bytes) -> bool:
    if len(data) >= MAX_SAFE_LINE and max(map(len, data.split(b"\n"))) >= MAX_SAFE_LINE:
        return True
    squeezed = data.translate(None, _LAYOUT)
    if any(run in squeezed for run in _RUNS):
        return True
    # Strip everything but brackets, then peel innermost pairs: one pass per level of nesting,
    # each pass a C-speed regex over a short string.
    brackets = data.translate(None, _NOT_BRACKETS)
    for _ in range(MAX_SAFE_DEPTH + 1):
        peeled = _PAIRS.sub(b"", brackets)
        if peeled == brackets:
            return False
        brackets = peeled
    return True


def parse_would_fail(data: bytes) -> str | None:
    """Parse in a subprocess; why it died or hung, or None if the parse is safe here."""
    try:
        probe = subprocess.run(
            [sys.executable, "-c", "import sys, libcst\ntry:\n    libcst.parse_module(sys.stdin.buffer.read())\n"
                                   "except Exception:\n    pass"],
            input=data, capture_output=True, timeout=PARSE_TIMEOUT)
    except subprocess.TimeoutExpired:
        return f"too complex to parse within {PARSE_TIMEOUT:g} s"
    if probe.returncode != 0:
        return "nesting too deep for the parser (it crashed on this file)"
    return None


class _BigStack:
    """One thread with a 512 MB stack that runs the calls given to it, one at a time. A new
    thread per file cost more than the checks of many small files (the stack is mapped and
    torn down each time); this one lives as long as its process."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        self.calls: queue.SimpleQueue = queue.SimpleQueue()
        old_size = threading.stack_size()
        threading.stack_size(512 * 1024 * 1024)
        try:
            threading.Thread(target=self._serve, daemon=True, name="privlint-big-stack").start()
        finally:
            threading.stack_size(old_size)

    def _serve(self) -> None:
        # Interrupts are the main thread's: it holds them back while it writes a file
        # (writer.py), which only works if no other thread can take them in its place.
        if hasattr(signal, "pthread_sigmask"):
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
        while True:
            function, args, result, done = self.calls.get()
            try:
                result["value"] = function(*args)
            except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread
                result["error"] = exc
            done.set()


_big_stack: _BigStack | None = None


def with_big_stack(function: Callable[..., Any], *args: Any) -> Any:
    """Run `function` in a thread with a 512 MB stack and a recursion limit to match."""
    global _big_stack
    if _big_stack is None or _big_stack.pid != os.getpid():  # a forked worker has no thread
        _big_stack = _BigStack()
    result: dict[str, Any] = {}
    done = threading.Event()
    old_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old_limit, 50_000))
    try:
        _big_stack.calls.put((function, args, result, done))
        while not done.wait(0.2):
            pass  # short waits, so SIGINT/SIGTERM reach the main thread promptly
    finally:
        sys.setrecursionlimit(old_limit)
    if "error" in result:
        raise result["error"]
    return result.get("value")
