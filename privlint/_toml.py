"""Load TOML with the standard library where it has it (3.11+), tomli otherwise."""

from __future__ import annotations

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
