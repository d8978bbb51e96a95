"""A lossless text prefilter: skip files that cannot hold a finding, without parsing them.

A finding sits where the code writes a private name (detect.py), on a receiver the detector
can type. Without parsing, a file may hold one only if its bytes have one of:

- a tracked type's short name (`DeviceMesh`: a receiver annotated with it, and `self` in a
  subclass, may be typed);
- a private attribute (`x._y`, `f()._y`, `a.b._y`) other than directly on `self` or `cls`
  (which only a tracked base class, so a type's name, can type), or one a member rule covers
  (`self._flatten`: flagged on any receiver);
- `getattr(x, "_y")` on something other than `self` or `cls`, or with a member name;
- a private name imported from a catalog root (`from torch.distributed import _x`), or a
  star import from one.

Regular expressions at C speed answer each; astgate.py then reads what passes with CPython's
parser. Comments and strings are not told apart from code: that only lets more through.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from privlint.catalog import Catalog

# Quantifiers are possessive: a comment banner (`#####`) must not make the engine backtrack.
# The tail of a private name: `_x`, `__x`, `_` (not a dunder such as `__init__`).
_PRIVATE_TAIL = rb"_(?:(?!_\w*__(?!\w))\w|(?!\w))"
_GAP = rb"(?:[\s\\]|#[^\n]*+)*+"  # what may stand between a dot and a name inside brackets
_ACCESS = re.compile(rb"\." + _GAP + _PRIVATE_TAIL)
# Literal prefixes first (`self._`, `getattr(`, `from`): the engine then scans at C speed.
_ON_SELF = (re.compile(rb"self\.(" + _PRIVATE_TAIL + rb"\w*)"),
            re.compile(rb"cls\.(" + _PRIVATE_TAIL + rb"\w*)"))
# `self.pg._x`, `self.a.b._x`: typed only if the file assigns `self.pg` (detect.py's attribute types).
_SELF_CHAIN = tuple(re.compile(head + rb"\.(\w+)(?:\.(?!_)\w+|\.__\w+__(?!\w))*+\.("
                               + _PRIVATE_TAIL + rb"\w*)") for head in (rb"self", rb"cls"))
_ASSIGNED_SELF = re.compile(rb"(?:self|cls)\.(\w+)[\s\\]*(?::|=(?!=))"  # `=`, or an annotation
                            rb"|for[ \t]+(?:self|cls)\.(\w+)[ \t]+in\b")
_ON_SUPER = re.compile(rb"super\([^()\n]*\)\.(" + _PRIVATE_TAIL + rb"\w*)")  # never typed
_DOTTED_SELF = re.compile(rb"\." + _GAP + rb"(?:self|cls)\." + _PRIVATE_TAIL)  # `x. self._y`
_GETATTR_ON_SELF = re.compile(rb"getattr\(\s*(?:self|cls)\s*,")
_PRIVATE_STRING = re.compile(rb"[\"']_(?!_\w*__[\"'])")
_PRIVATE_NAME = re.compile(rb"(?<![\w.])" + _PRIVATE_TAIL)
_BEFORE_NAME = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.")


@dataclass(frozen=True)
class TextFilter:
    members: frozenset[bytes]            # member names a member rule covers
    types: tuple[bytes, ...]             # tracked types' short names
    from_root: "re.Pattern[bytes]"       # `from <root>... import <names>`

    def search(self, data: bytes) -> bool:
        """False only when no finding can be in these bytes."""
        if any(name in data for name in self.types):
            return True  # substrings: `DTensorSpec` also says `DTensor`, which only lets more by
        accesses = len(_ACCESS.findall(data))
        if accesses:
            # Each access the detector cannot type is accounted for; any other keeps the file.
            untyped = 0
            assigned: set[bytes] | None = None
            for patterns, typed_by_assignment in ((_ON_SELF, False), (_SELF_CHAIN, True),
                                                  ((_ON_SUPER,), False)):
                for pattern in patterns:
                    for match in pattern.finditer(data):
                        start = match.start()
                        if start and data[start - 1] in _BEFORE_NAME:
                            continue  # `myself._x`, `a.self._x`: not `self`
                        if match.group(match.lastindex) in self.members:
                            return True  # a member rule's name is flagged on any receiver
                        if typed_by_assignment:
                            if assigned is None:
                                assigned = {a or b for a, b in _ASSIGNED_SELF.findall(data)}
                            if match.group(1) in assigned:
                                return True
                        untyped += 1
            if accesses > untyped or _DOTTED_SELF.search(data):
                return True
        getattrs = data.count(b"getattr")
        if getattrs and _PRIVATE_STRING.search(data):
            if getattrs > len(_GETATTR_ON_SELF.findall(data)):
                return True
            if any(member in data for member in self.members):
                return True  # `getattr(self, "_flatten")`
        for match in self.from_root.finditer(data):
            names = match.group(1)
            if b"*" in names and accesses:
                return True
            if _PRIVATE_NAME.search(names):
                return True
        return False


def build(catalog: Catalog) -> TextFilter:
    roots = b"|".join(re.escape(root.encode()) for root in sorted(catalog.roots))
    return TextFilter(
        frozenset(name.encode() for name in catalog.member_names),
        tuple(sorted({name.rsplit(".", 1)[-1].encode() for name in catalog.type_names})),
        # The names after `import`: a parenthesised list (up to its `)`) or the rest of the
        # line with its backslash continuations.
        re.compile(rb"from[\s\\]+(?:" + roots + rb")\b[\w.\s\\]*?\bimport\b"
                   rb"((?:[ \t]*\((?:[^)#]|#[^\n]*+)*+\)?)|(?:[^\n\\]|\\[\s\S])*+)"))
