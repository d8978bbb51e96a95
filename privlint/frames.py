"""The `full` output format: ruff's shape — a header line, the source with a caret under the
span, and `help:` lines — with colour in a terminal (NO_COLOR and FORCE_COLOR honoured)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TextIO

from privlint.findings import Finding
from privlint.versions import TargetRange

_MARKS = {"safe": "[*] ", "unsafe": "[-] "}


def use_colour(stream: TextIO) -> bool:
    """Colour only for a terminal; NO_COLOR (any value) turns it off, FORCE_COLOR on."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return hasattr(stream, "isatty") and stream.isatty()


class _Paint:
    def __init__(self, on: bool) -> None:
        self.on = on

    def __call__(self, text: str, code: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.on else text


def split_message(message: str) -> tuple[str, list[str]]:
    """A finding's message as a short headline and the help lines after it.

    Messages read `<what> is a private torch API (<versions>): <support>. <advice>`, or
    `<what> (<versions>) is selected by a torch version check, not a capability probe. <advice>`.
    """
    head, sep, rest = message.partition("): ")
    if sep and "private torch API (" in head:
        support, _, advice = rest.partition(". ")
        return head + ")", [line for line in (support, advice) if line]
    head, sep, rest = message.partition(". ")
    return (head, [rest]) if sep and rest else (message, [])


def _source_lines(path: str, cache: dict[str, list[str] | None]) -> list[str] | None:
    if path not in cache:
        try:
            cache[path] = Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            cache[path] = None
    return cache[path]


def write_full(findings: list[Finding], files_checked: int, out: TextIO,
               target: TargetRange | None = None, colour: bool | None = None) -> None:
    from privlint.report import write_summary

    paint = _Paint(use_colour(out) if colour is None else colour)
    sources: dict[str, list[str] | None] = {}
    for finding in findings:
        short, helps = split_message(finding.message)
        mark = _MARKS[finding.fix["applicability"]] if finding.fix else ""
        out.write(f"{paint(finding.path, '1')}:{finding.line}:{finding.column}: "
                  f"{paint(finding.code, '1;31')} {mark}{short}\n")
        lines = _source_lines(finding.path, sources)
        if lines is not None and 0 < finding.line <= len(lines):
            number = str(finding.line)
            gutter = " " * len(number)
            text = lines[finding.line - 1].expandtabs(4)
            end = finding.end_column if finding.end_line == finding.line else len(text) + 1
            width = max(1, end - finding.column)
            out.write(f"{gutter} {paint('|', '34')}\n")
            out.write(f"{paint(number, '34')} {paint('|', '34')} {text}\n")
            out.write(f"{gutter} {paint('|', '34')} {' ' * (finding.column - 1)}"
                      f"{paint('^' * width, '1;31')} {paint(finding.code, '1;31')}\n")
            out.write(f"{gutter} {paint('|', '34')}\n")
        for line in helps:
            out.write(f"  {paint('= help:', '1;36')} {line}\n")
        if finding.fix:
            out.write(f"  {paint('= fix:', '1;36')} {finding.fix['description']} "
                      f"({finding.fix['applicability']})\n")
        if finding.code.startswith("PRV") and finding.rule:
            out.write(f"  {paint('= see:', '1;36')} privlint rule {finding.rule}\n")
        out.write("\n")
    write_summary(findings, files_checked, out, target)
