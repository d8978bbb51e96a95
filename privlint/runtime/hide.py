"""Hide private APIs for the duration of a block, so `hasattr` probes take their fallback."""

from __future__ import annotations

import contextlib
import importlib
from typing import Iterator

_MISSING = object()


def _owner(path: str):
    """(object that holds the last component, its name), or None if the path is absent here."""
    parts = path.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except Exception:  # noqa: BLE001
            continue
        for name in parts[cut:-1]:
            obj = getattr(obj, name, _MISSING)
            if obj is _MISSING:
                return None
        return obj, parts[-1]
    return None


def present(path: str) -> bool:
    """Whether this build has the attribute at `path` (before anything is hidden)."""
    found = _owner(path)
    return found is not None and hasattr(found[0], found[1])


@contextlib.contextmanager
def hidden(paths: list[str]) -> Iterator[list[str]]:
    """Remove each attribute from its class or module, restore it afterwards (always)."""
    removed: list[tuple[object, str, object]] = []
    try:
        for path in paths:
            found = _owner(path)
            if found is None:
                continue
            owner, name = found
            holder = owner
            if isinstance(owner, type):  # remove it where it is defined, not from a subclass
                holder = next((k for k in owner.__mro__ if name in vars(k)), None)
            if holder is None or not hasattr(holder, name):
                continue
            value = vars(holder)[name] if isinstance(holder, type) else getattr(holder, name)
            delattr(holder, name)
            removed.append((holder, name, value))
        yield [f"{getattr(h, '__name__', h)}.{n}" for h, n, _ in removed]
    finally:
        for holder, name, value in reversed(removed):
            setattr(holder, name, value)
