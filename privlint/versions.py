"""Torch release windows and version specifiers, reduced to minor releases.

The catalog records, per private API, the first and last minor release that has it. A
project's supported range (`target-torch`, or the torch requirement in its own
`[project]` dependencies) is reduced to the set of minor releases it admits, which is
all the precision the catalog has. Only the specifier forms found in real requirement
files are understood: comparison clauses joined by commas, with `*` wildcards.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

Minor = tuple[int, int]

_VERSION = re.compile(r"^\s*v?(\d+)(?:\.(\d+|\*))?(?:\.(\d+|\*))?[^\s,]*\s*$")
_CLAUSE = re.compile(r"^\s*(~=|==|!=|<=|>=|<|>|===)?\s*(.+?)\s*$")
_REQUIREMENT = re.compile(r"^\s*torch\s*(\[[^\]]*\])?\s*(?P<spec>[^;]*)(;.*)?$", re.IGNORECASE)


def parse_minor(text: str) -> Minor:
    """'2.10' or '2.10.1+cu121' -> (2, 10). Raises ValueError on anything else."""
    match = _VERSION.match(text)
    if not match or match.group(2) in (None, "*"):
        raise ValueError(f"not a torch version: {text!r}")
    return int(match.group(1)), int(match.group(2))


def format_minor(minor: Minor) -> str:
    return f"{minor[0]}.{minor[1]}"


def minor_range(first: str, last: str) -> list[Minor]:
    """Every minor release from `first` to `last` inclusive (same major only)."""
    lo, hi = parse_minor(first), parse_minor(last)
    if lo[0] != hi[0] or lo > hi:
        raise ValueError(f"bad release range {first}-{last}")
    return [(lo[0], m) for m in range(lo[1], hi[1] + 1)]


def _as_tuple(text: str) -> tuple[int, int, int] | None:
    match = _VERSION.match(text)
    if not match:
        return None
    parts = [match.group(i) for i in (1, 2, 3)]
    return tuple(0 if p in (None, "*") else int(p) for p in parts)  # type: ignore[return-value]


def _clause_admits(op: str, target: str, version: tuple[int, int, int]) -> bool:
    wildcard = "*" in target
    bound = _as_tuple(target)
    if bound is None:
        raise ValueError(f"cannot read version {target!r}")
    if op in ("==", "===", "!=") and wildcard:
        prefix = [int(p) for p in target.split(".") if p.isdigit()]
        equal = list(version[: len(prefix)]) == prefix
        return equal if op != "!=" else not equal
    if op == "~=":
        depth = target.count(".")
        upper = list(bound[:depth])
        upper[-1] += 1
        return version >= bound and list(version[:depth]) < upper
    return {
        "==": version == bound,
        "===": version == bound,
        "!=": version != bound,
        "<=": version <= bound,
        ">=": version >= bound,
        "<": version < bound,
        ">": version > bound,
    }[op]


@dataclass(frozen=True)
class TargetRange:
    """The torch minor releases a project supports, and the words it used to say so."""

    minors: frozenset[Minor]
    spec: str  # as written by the user, e.g. "torch>=2.6"; "" when unknown

    def describe(self) -> str:
        return self.spec or "any torch release"


def parse_specifier(spec: str, known: list[Minor]) -> frozenset[Minor]:
    """The known minor releases admitted by a specifier such as '>=2.6,<2.12'.

    A minor release counts as admitted when any of its patch releases 0-30 is.
    """
    clauses = [c for c in spec.split(",") if c.strip()]
    parsed = []
    for clause in clauses:
        match = _CLAUSE.match(clause)
        if not match:
            raise ValueError(f"cannot read specifier clause {clause!r}")
        op, target = match.group(1) or "==", match.group(2)
        if _as_tuple(target) is None:
            raise ValueError(f"cannot read version {target!r} in {spec!r}")
        parsed.append((op, target))
    admitted = set()
    for major, minor in known:
        for patch in range(0, 31):
            version = (major, minor, patch)
            if all(_clause_admits(op, target, version) for op, target in parsed):
                admitted.add((major, minor))
                break
    return frozenset(admitted)


def torch_requirement_specifier(requirement: str) -> str | None:
    """'torch>=2.6,<2.12; python_version>"3.9"' -> '>=2.6,<2.12'; None if not torch."""
    match = _REQUIREMENT.match(requirement)
    if not match:
        return None
    return match.group("spec").strip().strip("()")


@dataclass(frozen=True)
class Window:
    """The minor releases that have an API: `since` to `until`, both inclusive, or absent."""

    since: Minor | None  # None: present in every known release up to `until`
    until: Minor | None  # None: still present in the newest known release

    def has(self, minor: Minor) -> bool:
        if self.since is not None and minor < self.since:
            return False
        if self.until is not None and minor > self.until:
            return False
        return True

    def describe(self, known: list[Minor]) -> str:
        first = self.since or known[0]
        last = self.until or known[-1]
        if first > last:
            return "in no torch release"
        if self.until is None:
            return f"torch {format_minor(first)}+"
        return f"torch {format_minor(first)}–{format_minor(last)}"

    def gaps(self, target: TargetRange) -> str | None:
        """Say which of the target's releases lack the API, or None if none do."""
        missing = sorted(m for m in target.minors if not self.has(m))
        if not missing:
            return None
        before = [m for m in missing if self.since is not None and m < self.since]
        after = [m for m in missing if self.until is not None and m > self.until]
        parts = []
        if before:
            parts.append(f"absent before torch {format_minor(self.since)}")  # type: ignore[arg-type]
        if after:
            parts.append(f"removed after torch {format_minor(self.until)}")  # type: ignore[arg-type]
        return " and ".join(parts) or "absent in part of the supported range"
