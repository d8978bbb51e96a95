"""Import libcst without compiling its dataclasses' methods from source on every run.

`import libcst` defines about 200 node classes with `@dataclass`, and `dataclasses` writes each
class's `__init__`, `__repr__`, `__eq__`, `__hash__`, `__setattr__` and `__delattr__` as source
text and compiles it with `exec`: about 600 compilations, more than half of libcst's import and
a third of a pre-commit run on a few files. The text is the same on every run, so the compiled
code objects are kept in privlint's own `__pycache__/`, as CPython keeps a module's bytecode:

- keyed by the exact source text, in a file named for the interpreter's bytecode magic number
  and optimisation level, so a code object is only ever reused for the text it came from;
- used only while libcst is imported (`dataclasses` finds `exec` among its module's globals
  before the builtins, and the name is removed afterwards);
- compiled exactly as `exec` compiles a string inside `dataclasses`: file name `<string>`, no
  `__future__` flags (the module has none; if a later one has, nothing is remembered);
- a memo that cannot be read or written is skipped, never an error, and it holds only what the
  last import used, so it does not grow from one libcst release to the next.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib.util
import marshal
import os
import sys
import threading
from pathlib import Path
from types import CodeType
from typing import Iterator


def memo_path(directory: Path | None = None) -> Path:
    """Where the compiled methods are kept, for this interpreter's bytecode."""
    magic = importlib.util.MAGIC_NUMBER.hex()
    directory = directory or Path(__file__).resolve().parent / "__pycache__"
    return directory / f"dataclass-code.{sys.implementation.cache_tag}.{magic}.O{sys.flags.optimize}.marshal"


def _read(path: Path) -> dict[str, CodeType]:
    try:
        memo = marshal.loads(path.read_bytes())  # one read: marshal.load on a file reads in pieces
    except (OSError, ValueError, EOFError, TypeError):
        return {}
    if not isinstance(memo, dict):
        return {}
    return {source: code for source, code in memo.items()
            if isinstance(source, str) and isinstance(code, CodeType)}


def _write(path: Path, memo: dict[str, CodeType]) -> None:
    try:
        path.parent.mkdir(exist_ok=True)
        temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        temporary.write_bytes(marshal.dumps(memo))
        os.replace(temporary, path)  # a reader sees the old memo or the new one
    except (OSError, ValueError):
        pass


def _has_future_flags(module) -> bool:
    """A `from __future__ import x` binds `x` in the module: then `exec` inside it compiles
    with that flag, and a code object compiled here without it would differ."""
    import __future__

    return any(isinstance(value, __future__._Feature) for value in vars(module).values())


@contextlib.contextmanager
def remembered(path: Path | None = None) -> Iterator[dict[str, int]]:
    """While the block runs, `dataclasses` compiles each method's text once per interpreter and
    reuses the code object after. Yields counts (`compiled`, `reused`) for tests and benchmarks."""
    counts = {"compiled": 0, "reused": 0}
    if "exec" in vars(dataclasses) or _has_future_flags(dataclasses):
        yield counts  # not the module this was written for: compile as it always did
        return
    path = path or memo_path()
    known = _read(path)
    used: dict[str, CodeType] = {}

    def exec_remembered(source, globals=None, locals=None, /):
        if not isinstance(source, str):
            return exec(source, globals, locals)
        code = known.get(source)
        if code is None:
            code = compile(source, "<string>", "exec", dont_inherit=True)
            counts["compiled"] += 1
        else:
            counts["reused"] += 1
        used[source] = code
        return exec(code, globals, locals)

    dataclasses.exec = exec_remembered  # type: ignore[attr-defined]
    try:
        yield counts
    finally:
        vars(dataclasses).pop("exec", None)
        if counts["compiled"] or len(used) != len(known):
            _write(path, used)


_IMPORTING = threading.Lock()  # two threads must not lend `dataclasses` their `exec` at once


def import_libcst():
    """`import libcst`, with its dataclasses' methods remembered (a no-op once imported)."""
    with _IMPORTING:
        if "libcst" in sys.modules:
            return sys.modules["libcst"]
        with remembered():
            import libcst
        return libcst
