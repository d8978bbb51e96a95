"""Load TOML with the standard library where it has it (3.11+), tomli otherwise."""

from __future__ import annotations

import hashlib
import marshal
import os
import sys
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

TOMLDecodeError = tomllib.TOMLDecodeError


def load_toml(path: Path) -> dict[str, Any]:
    """Parse a TOML file; OSError and TOMLDecodeError propagate for the caller to word."""
    with open(path, "rb") as handle:
        return tomllib.load(handle)


def load_toml_memo(path: Path) -> dict[str, Any]:
    """`load_toml` for the bundled rule files, which every run reads: the parsed tables are
    kept in privlint's own __pycache__/, keyed by the file's name and a hash of its bytes (as
    CPython keeps bytecode), because the pure-Python TOML parser costs a fifth of a one-file
    check. A memo that cannot be written or read is skipped, never an error."""
    with open(path, "rb") as handle:
        raw = handle.read()
    digest = hashlib.sha1(raw).hexdigest()[:16]
    python = f"py{sys.version_info[0]}{sys.version_info[1]}"
    cache = Path(__file__).resolve().parent / "__pycache__"
    memo = cache / f"{path.name}.{digest}.{python}.marshal"
    try:
        data = marshal.loads(memo.read_bytes())
        if isinstance(data, dict):
            return data
    except (OSError, ValueError, EOFError, TypeError):
        pass
    data = tomllib.loads(raw.decode("utf-8"))
    try:
        encoded = marshal.dumps(data)  # ValueError for a datetime: then no memo
        memo.parent.mkdir(exist_ok=True)
        temporary = memo.with_name(f"{memo.name}.{os.getpid()}.tmp")
        temporary.write_bytes(encoded)
        os.replace(temporary, memo)
        for stale in memo.parent.glob(f"{path.name}.*.marshal"):
            if stale != memo:  # an earlier version of the file's
                stale.unlink(missing_ok=True)
    except (OSError, ValueError):
        pass
    return data
