"""Keep hostile input from taking the process down.

libcst's native parser overflows its stack (a segfault, not an exception) on nesting in
the thousands, and slows to minutes on single expressions of tens of thousands of terms.
Files that look like that (a cheap scan) are parsed first in a throw-away subprocess; if
it dies or runs out of time, the file is reported instead of parsed here. Deep trees that
do parse are walked in a thread with a large stack and a high recursion limit.
"""

from __future__ import annotations

import re
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


def with_big_stack(function: Callable[..., Any], *args: Any) -> Any:
    """Run `function` in a thread with a 512 MB stack and a recursion limit to match."""
    result: dict[str, Any] = {}

    def target() -> None:
        try:
            result["value"] = function(*args)
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread
            result["error"] = exc

    old_limit = sys.getrecursionlimit()
    old_size = threading.stack_size()
    threading.stack_size(512 * 1024 * 1024)
    sys.setrecursionlimit(max(old_limit, 50_000))
    try:
        thread = threading.Thread(target=target, daemon=True)
        thread.start()
    finally:
        threading.stack_size(old_size)
    try:
        while thread.is_alive():
            thread.join(0.2)  # short joins, so SIGINT/SIGTERM reach the main thread promptly
    finally:
        sys.setrecursionlimit(old_limit)
    if "error" in result:
        raise result["error"]
    return result.get("value")
