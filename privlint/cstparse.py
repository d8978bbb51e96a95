"""libcst's parse, without validating again each node its own parser has just built.

Every libcst node checks its invariants in `__post_init__` (balanced parentheses, required
whitespace), which protects code that builds nodes by hand. The parser's nodes hold by
construction, and the checks are a quarter of the parse (libcst's own comment on
`__post_init__` says as much). The checks are left out only while the parser runs, and only
when `__post_init__` is the one privlint knows: a libcst whose `__post_init__` does anything
else parses as it always did.
"""

from __future__ import annotations

from privlint.dataclass_code import import_libcst

cst = import_libcst()  # the first import of libcst in a run comes here (checker._parse)
from libcst._nodes.base import CSTNode  # noqa: E402

_VALIDATING = CSTNode.__post_init__
_ONLY_VALIDATES = getattr(_VALIDATING, "__code__", None) is not None \
    and _VALIDATING.__code__.co_names == ("_validate",)


def _unchecked(self: CSTNode) -> None:
    return None


def parse_module(data: bytes | str) -> cst.Module:
    """`libcst.parse_module`, minus the node checks. Call it from one thread at a time: the
    checks are switched off for the class, not for the call (privlint parses in one thread
    per process)."""
    if not _ONLY_VALIDATES:
        return cst.parse_module(data)
    CSTNode.__post_init__ = _unchecked  # type: ignore[method-assign]
    try:
        return cst.parse_module(data)
    finally:
        CSTNode.__post_init__ = _VALIDATING  # type: ignore[method-assign]
