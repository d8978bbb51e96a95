"""Which files to check: walk the given paths for *.py, honouring .gitignore and excludes.

Files named explicitly on the command line are always checked (as in ruff, unless a
later --force-exclude says otherwise); directories are walked without following links.
"""

from __future__ import annotations

import fnmatch
import functools
import os
from dataclasses import dataclass
from pathlib import Path

from privlint.gitignore import IgnoreStack

DEFAULT_EXCLUDES = (
    ".bzr", ".direnv", ".eggs", ".git", ".hg", ".mypy_cache", ".nox", ".pants.d", ".pytype",
    ".ruff_cache", ".privlint_cache", ".svn", ".tox", ".venv", "__pypackages__", "_build",
    "buck-out", "build", "dist", "node_modules", "site-packages", "venv", "__pycache__",
)


@dataclass(frozen=True)
class Missing:
    """A path named on the command line that does not exist or cannot be listed."""

    path: Path
    reason: str


def _excluded(relative: str, name: str, patterns: list[str]) -> bool:
    return _Patterns.of(tuple(patterns)).excluded(relative, name)


@dataclass(frozen=True)
class _Patterns:
    """Exclude patterns split once: plain names (a set lookup), name globs, path globs."""

    names: frozenset[str]
    name_globs: tuple[str, ...]
    path_globs: tuple[str, ...]

    @staticmethod
    def of(patterns: tuple[str, ...]) -> "_Patterns":
        cached = _PATTERNS.get(patterns)
        if cached is None:
            stripped = [p.rstrip("/") for p in patterns]
            cached = _PATTERNS[patterns] = _Patterns(
                frozenset(p for p in stripped if "/" not in p and not _GLOB.intersection(p)),
                tuple(p for p in stripped if "/" not in p and _GLOB.intersection(p)),
                tuple(p for p in stripped if "/" in p))
        return cached

    def excluded(self, relative: str, name: str) -> bool:
        if name in self.names or any(fnmatch.fnmatch(name, p) for p in self.name_globs):
            return True
        return any(fnmatch.fnmatch(relative, p) or fnmatch.fnmatch(relative, p + "/*")
                   for p in self.path_globs)


_GLOB = frozenset("*?[")
_PATTERNS: dict[tuple[str, ...], _Patterns] = {}


def _excluded_anywhere(path: Path, root: Path, patterns: list[str]) -> bool:
    """--force-exclude: is the named path, or a directory above it, excluded?"""
    relative = _relative(path, root)
    parts = relative.split("/")
    return any(_excluded("/".join(parts[: i + 1]), parts[i], patterns) for i in range(len(parts)))


def real_parent(path: Path) -> Path:
    """The path with its directories resolved but not its last component (a link stays a link)."""
    return real_directory(str(path.parent) or ".") / path.name


@functools.lru_cache(maxsize=4096)
def real_directory(directory: str) -> Path:
    """A directory with its links resolved. Thousands of files share a few hundred
    directories: each is resolved once per run, from its parent's answer (one link check
    for its own name, where os.path.realpath checks every component again)."""
    if ".." in directory.split(os.sep):  # a link before `..` is followed first: no shortcut
        return Path(os.path.realpath(directory))
    return Path(_real(os.path.abspath(directory)))


@functools.lru_cache(maxsize=8192)
def _real(path: str) -> str:
    """os.path.realpath of an absolute, normalised path, through its parent's."""
    parent, name = os.path.split(path)
    if not name or parent == path:
        return path
    joined = os.path.join(_real(parent), name)
    return os.path.realpath(joined) if os.path.islink(joined) else joined


def _relative(path: Path, root: Path) -> str:
    try:
        return real_parent(path).relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def discover(paths: list[Path], root: Path, exclude: list[str],
             force_exclude: bool = False) -> tuple[list[Path], list[Missing]]:
    """The files to check, in a stable order, and the named paths that could not be used."""
    root = root.resolve()
    patterns = list(DEFAULT_EXCLUDES) + list(exclude)
    files: list[Path] = []
    missing: list[Missing] = []
    seen: set[str] = set()  # the real paths of the files found, as text
    for given in paths:
        if force_exclude and given.exists() and _excluded_anywhere(given, root, patterns):
            continue
        if given.is_file():
            resolved = str(given.resolve())
            if resolved not in seen:
                seen.add(resolved)
                files.append(given)
            continue
        if not given.is_dir():
            reason = "no such file or directory" if not given.is_symlink() else "dangling symlink"
            missing.append(Missing(given, reason))
            continue
        files.extend(_walk(given, root, patterns, seen, missing))
    return files, missing


def _walk(top: Path, root: Path, patterns: list[str], seen: set[str],
          missing: list[Missing]) -> list[Path]:
    stack = IgnoreStack()
    top = top.resolve()
    for parent in reversed(top.parents):
        if parent == root or root in parent.parents:
            stack.enter(parent)
    found: list[Path] = []

    excludes = _Patterns.of(tuple(patterns))

    root_text = root.as_posix().rstrip("/") + "/"

    # Paths are text here, and a Path is made only for a file found: a corpus has thousands
    # of entries, and pathlib's parsing of each was most of the walk.
    def visit(directory: str) -> None:
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError as exc:
            missing.append(Missing(Path(directory), f"cannot list directory: {exc.strerror or exc}"))
            entries = []
        # Only a folder that lists a .gitignore is asked to read one: most folders have none,
        # and a failed open of each cost as much as the rest of the walk. (Any case: on a file
        # system that folds case, the open of `.gitignore` reads a `.GitIgnore`.)
        pushed = any(entry.name.lower() == ".gitignore" for entry in entries) and stack.enter(Path(directory))
        # Walked from a resolved folder without following links, every folder reached is its
        # own real path: its entries are not resolved one by one (a link among them is, below).
        if directory == root_text[:-1]:
            prefix: str | None = ""
        elif directory.startswith(root_text):
            prefix = directory[len(root_text):] + "/"
        else:
            prefix = None
        for entry in entries:
            name = entry.name
            python = name.endswith(".py")
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
                if not is_dir and not python:
                    continue  # only directories and Python files matter
                is_file = entry.is_file()  # a link to a file is checked; a link to a dir is not walked
            except OSError as exc:
                if python:
                    missing.append(Missing(Path(entry.path), exc.strerror or str(exc)))
                continue
            relative = prefix + name if prefix is not None else entry.path
            if excludes.excluded(relative, name) or stack.ignored(entry.path, is_dir):
                continue
            link = entry.is_symlink()
            if python and link and not is_file and not os.path.exists(entry.path):
                missing.append(Missing(Path(entry.path), "dangling symlink"))
                continue
            if is_dir:
                visit(entry.path)
            elif is_file and python:
                resolved = os.path.realpath(entry.path) if link else entry.path
                if resolved not in seen:
                    seen.add(resolved)
                    found.append(Path(entry.path))
        if pushed:
            stack.leave()

    visit(str(top))
    return found
