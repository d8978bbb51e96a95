"""A .gitignore matcher: the pattern syntax of gitignore(5), one file per directory.

Patterns are matched against paths relative to the directory holding the .gitignore;
deeper files override shallower ones, and later lines override earlier ones.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class _Pattern:
    regex: re.Pattern[str]
    negated: bool
    directory_only: bool


def _translate(glob: str) -> str:
    out, i = [], 0
    while i < len(glob):
        char = glob[i]
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if glob.startswith("/**", i) and i + 3 == len(glob):
            out.append("/.*")
            i += 3
            continue
        if glob.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = glob.find("]", i + 1)
            if end == -1:
                out.append(re.escape(char))
            else:
                body = glob[i + 1:end].replace("\\", "\\\\")
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append(f"[{body}]")
                i = end
        elif char == "\\" and i + 1 < len(glob):
            i += 1
            out.append(re.escape(glob[i]))
        else:
            out.append(re.escape(char))
        i += 1
    return "".join(out)


def parse_gitignore(text: str) -> list[_Pattern]:
    patterns = []
    for raw in text.splitlines():
        line = raw.rstrip()
        if not line or line.startswith("#"):
            continue
        negated = line.startswith("!")
        if negated:
            line = line[1:]
        directory_only = line.endswith("/")
        line = line.rstrip("/")
        if not line:
            continue
        anchored = "/" in line
        line = line.lstrip("/")
        body = _translate(line)
        regex = f"^{body}$" if anchored else f"^(?:.*/)?{body}$"
        patterns.append(_Pattern(re.compile(regex), negated, directory_only))
    return patterns


class IgnoreStack:
    """The .gitignore files in force while walking down from a root."""

    def __init__(self) -> None:
        # Each layer: the folder holding the .gitignore, as a string ending in `/`, and its patterns.
        self._layers: list[tuple[str, list[_Pattern]]] = []

    def enter(self, directory: Path) -> bool:
        """Read directory/.gitignore if present; returns True if a layer was pushed."""
        path = directory / ".gitignore"
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return False
        self._layers.append((directory.as_posix().rstrip("/") + "/", parse_gitignore(text)))
        return True

    def leave(self) -> None:
        self._layers.pop()

    def ignored(self, path: str, is_dir: bool) -> bool:
        """Whether the layers ignore `path`, a POSIX path under the folders they were read in
        (walked from the same start, so that their text begins with a layer's folder)."""
        verdict = False
        for base, patterns in self._layers:
            if not path.startswith(base):
                continue
            relative = path[len(base):]
            for pattern in patterns:
                if pattern.directory_only and not is_dir:
                    continue
                if pattern.regex.match(relative):
                    verdict = not pattern.negated
        return verdict
