"""Which files to check: walk the given paths for *.py, honouring .gitignore and excludes.

Files named explicitly on the command line are always checked (as in ruff, unless a
later --force-exclude says otherwise); directories are walked without following links.
"""

from __future__ import annotations

import fnmatch
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
    for pattern in patterns:
        pattern = pattern.rstrip("/")
        if "/" in pattern:
            if fnmatch.fnmatch(relative, pattern) or fnmatch.fnmatch(relative, pattern + "/*"):
                return True
        elif fnmatch.fnmatch(name, pattern):
            return True
    return False


def _excluded_anywhere(path: Path, root: Path, patterns: list[str]) -> bool:
    """--force-exclude: is the named path, or a directory above it, excluded?"""
    relative = _relative(path, root)
    parts = relative.split("/")
    return any(_excluded("/".join(parts[: i + 1]), parts[i], patterns) for i in range(len(parts)))


def real_parent(path: Path) -> Path:
    """The path with its directories resolved but not its last component (a link stays a link)."""
    return Path(os.path.realpath(path.parent if str(path.parent) else ".")) / path.name


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
    seen: set[Path] = set()
    for given in paths:
        if force_exclude and given.exists() and _excluded_anywhere(given, root, patterns):
            continue
        if given.is_file():
            if given.resolve() not in seen:
                seen.add(given.resolve())
                files.append(given)
            continue
        if not given.is_dir():
            reason = "no such file or directory" if not given.is_symlink() else "dangling symlink"
            missing.append(Missing(given, reason))
            continue
        files.extend(_walk(given, root, patterns, seen, missing))
    return files, missing


def _walk(top: Path, root: Path, patterns: list[str], seen: set[Path],
          missing: list[Missing]) -> list[Path]:
    stack = IgnoreStack()
    top = top.resolve()
    for parent in reversed(top.parents):
        if parent == root or root in parent.parents:
            stack.enter(parent)
    found: list[Path] = []

    def visit(directory: Path) -> None:
        pushed = stack.enter(directory)
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError as exc:
            missing.append(Missing(directory, f"cannot list directory: {exc.strerror or exc}"))
            entries = []
        for entry in entries:
            path = Path(entry.path)
            relative = _relative(path, root)
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
                is_file = entry.is_file()  # a link to a file is checked; a link to a dir is not walked
            except OSError as exc:
                if entry.name.endswith(".py"):
                    missing.append(Missing(path, exc.strerror or str(exc)))
                continue
            if _excluded(relative, entry.name, patterns) or stack.ignored(path, is_dir):
                continue
            if entry.name.endswith(".py") and entry.is_symlink() and not is_file \
                    and not os.path.exists(path):
                missing.append(Missing(path, "dangling symlink"))
                continue
            if is_dir:
                visit(path)
            elif is_file and entry.name.endswith(".py"):
                resolved = path.resolve()
                if resolved not in seen:
                    seen.add(resolved)
                    found.append(path)
        if pushed:
            stack.leave()

    visit(top)
    return found
