"""Hide private APIs from the user's code for the duration of a block, so that its `hasattr`
probes take their fallback -- while torch itself still sees them.

Deleting a member from its class (what run B did until issue 13) also deletes it from torch:
torch 2.13 slices a mesh through `self._get_root_mesh()`, so hiding that member broke torch and
every run B failed for a reason that had nothing to do with the fallback. Here a hidden class
member is replaced by a descriptor that looks at the frame asking for it: code inside torch's
package (or privlint's own runtime) gets the real member, any other code gets AttributeError, as
on a build that lacks it. A hidden module attribute works the same way through a module subclass
(`module.__class__`); torch's own global lookups inside that module never go through attribute
access, so they are untouched.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
import types
from typing import Any, Iterator

_MISSING = object()


def _internal_prefixes() -> tuple[str, ...]:
    prefixes = []
    try:
        import torch

        prefixes.append(os.path.dirname(os.path.abspath(torch.__file__)) + os.sep)
    except ImportError:  # pragma: no cover - the runtime always has torch
        pass
    prefixes.append(os.path.dirname(os.path.abspath(__file__)) + os.sep)  # privlint.runtime
    return tuple(prefixes)


def _asked_from_inside(frame: types.FrameType | None, prefixes: tuple[str, ...]) -> bool:
    """Whether the code that asked for the attribute is torch's (or privlint's runtime)."""
    if frame is None:
        return False
    filename = frame.f_code.co_filename
    if not os.path.isabs(filename):
        filename = os.path.abspath(filename)
    return filename.startswith(prefixes)


class _HiddenMember:
    """Stands in for a class member: the real one for torch, AttributeError for anyone else."""

    def __init__(self, owner: type, name: str, value: Any, prefixes: tuple[str, ...]) -> None:
        self.owner, self.name, self.value, self.prefixes = owner, name, value, prefixes

    def __get__(self, instance: Any, klass: type | None = None) -> Any:
        if _asked_from_inside(sys._getframe(1), self.prefixes):
            getter = getattr(type(self.value), "__get__", None)
            return getter(self.value, instance, klass) if getter is not None else self.value
        shown = (klass or type(instance)).__name__
        kind = "type object" if instance is None else "object"
        raise AttributeError(f"{kind} {shown!r} has no attribute {self.name!r} "
                             f"(hidden by privlint verify)")


def _hiding_module_class(base: type, names: set[str], prefixes: tuple[str, ...]) -> type:
    class HidingModule(base):  # type: ignore[misc, valid-type]
        def __getattribute__(self, name: str) -> Any:
            if name in names and not _asked_from_inside(sys._getframe(1), prefixes):
                raise AttributeError(f"module {object.__getattribute__(self, '__name__')!r} has "
                                     f"no attribute {name!r} (hidden by privlint verify)")
            return super().__getattribute__(name)

    return HidingModule


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
    """Hide each attribute from the user's code; restore everything afterwards (always)."""
    prefixes = _internal_prefixes()
    restore: list[tuple[str, Any, str, Any]] = []  # (kind, holder, name, original)
    shown: list[str] = []
    module_names: dict[int, tuple[types.ModuleType, set[str]]] = {}
    try:
        for path in paths:
            found = _owner(path)
            if found is None:
                continue
            owner, name = found
            if isinstance(owner, type):  # hide it where it is defined, not on a subclass
                holder = next((k for k in owner.__mro__ if name in vars(k)), None)
                if holder is None:
                    continue
                original = vars(holder)[name]
                try:
                    setattr(holder, name, _HiddenMember(holder, name, original, prefixes))
                except (TypeError, AttributeError):  # a type defined in C: it cannot be hidden
                    continue
                restore.append(("member", holder, name, original))
                shown.append(f"{holder.__name__}.{name}")
            elif isinstance(owner, types.ModuleType) and hasattr(owner, name):
                module_names.setdefault(id(owner), (owner, set()))[1].add(name)
                shown.append(f"{owner.__name__}.{name}")
        for module, names in module_names.values():
            original_class = module.__class__
            module.__class__ = _hiding_module_class(original_class, names, prefixes)
            restore.append(("module", module, "", original_class))
        yield shown
    finally:
        for kind, holder, name, original in reversed(restore):
            if kind == "member":
                setattr(holder, name, original)
            else:
                holder.__class__ = original
