"""Torch release windows and version specifiers, reduced to minor releases.

The catalog records, per private API, the first and last minor release that has it. A
project's supported range (`target-torch`, or the torch requirement in its own
`[project]` dependencies) is reduced to the set of minor releases it admits, which is
all the precision the catalog has. Specifiers are read by `packaging` (PEP 440).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

Minor = tuple[int, int]

_VERSION = re.compile(r"^\s*v?(\d+)(?:\.(\d+|\*))?(?:\.(\d+|\*))?[^\s,]*\s*$")


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


@dataclass(frozen=True)
class TargetRange:
    """The torch minor releases a project supports, and the words it used to say so."""

    minors: frozenset[Minor]
    spec: str  # as written by the user, e.g. "torch>=2.6"; "" when unknown
    source: str = ""  # where it was read: "pyproject.toml [project.dependencies]", "--target-torch"
    # The catalog's oldest release, when the range reaches below it (`torch>=1.13`): the
    # range is judged from there on, and messages say so rather than vouch for 1.13.
    judged_from: Minor | None = None

    def describe(self) -> str:
        return self.spec or "any torch release"


def older_than(first: Minor) -> list[Minor]:
    """torch's minor releases before `first` (the catalog's oldest): 0.1-0.4, 1.0-1.13 and any
    2.x before it."""
    older = [(0, m) for m in range(1, 5)] + [(1, m) for m in range(14)] \
        + [(2, m) for m in range(first[1] if first[0] == 2 else 0)]
    return [minor for minor in older if minor < first]


def parse_specifier(spec: str, known: list[Minor]) -> frozenset[Minor]:
    """The known minor releases admitted by a PEP 440 specifier such as '>=2.6,<2.12'.

    A minor release counts as admitted when any of its patch releases 0-30 is; a build's local
    label is left out (`==2.6.0+cu124` admits 2.6, as every build of 2.6.0 is that release).
    Raises ValueError on a specifier `packaging` cannot read.
    """
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    from packaging.version import Version

    admitted: set[Minor] = set()
    for alternative in spec.split("||"):  # the union of extras' ranges (requirements.py)
        try:
            specifier = SpecifierSet(_LOCAL_LABEL.sub("", alternative.strip().strip("()")))
            admitted.update((major, minor) for major, minor in known
                            if any(specifier.contains(Version(f"{major}.{minor}.{patch}"))
                                   for patch in range(31)))
        except (InvalidSpecifier, ValueError):  # (ValueError: a number too long to read)
            raise ValueError(f"cannot read version specifier {spec!r}") from None
    return frozenset(admitted)


_LOCAL_LABEL = re.compile(r"\+[A-Za-z0-9._-]*")


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
