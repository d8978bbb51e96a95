"""Print findings: ruff-style text lines, or one JSON object."""

from __future__ import annotations

import json
from collections import Counter
from typing import TextIO

from privlint.catalog import Catalog
from privlint.findings import Finding
from privlint.versions import TargetRange


def _fixable(findings: list[Finding], applicability: str) -> int:
    return sum(1 for f in findings if f.fix and f.fix["applicability"] == applicability)


def summary(findings: list[Finding], files_checked: int, target: TargetRange | None = None) -> dict:
    return {
        "torch_range": {"specifier": target.spec, "source": target.source} if target else None,
        "files_checked": files_checked,
        "fixable": _fixable(findings, "safe"),
        "fixable_unsafe": _fixable(findings, "unsafe"),
        "findings": len(findings),
        "errors": sum(1 for f in findings if f.severity == "error"),
        "warnings": sum(1 for f in findings if f.severity == "warning"),
        "by_code": dict(sorted(Counter(f.code for f in findings).items())),
    }


_MARKS = {"safe": "[*] ", "unsafe": "[-] "}


def write_text(findings: list[Finding], files_checked: int, out: TextIO,
               target: TargetRange | None = None) -> None:
    for finding in findings:
        mark = _MARKS[finding.fix["applicability"]] if finding.fix else ""
        out.write(f"{finding.path}:{finding.line}:{finding.column}: {finding.code} {mark}"
                  f"{finding.message}\n")
    if not findings:
        out.write(f"All checks passed! ({files_checked} files checked)\n")
        return
    noun = "finding" if len(findings) == 1 else "findings"
    out.write(f"Found {len(findings)} {noun} in {len({f.path for f in findings})} of "
              f"{files_checked} files checked.\n")
    if target is not None and target.spec:
        out.write(f"Judged against {target.spec} (from {target.source}).\n")
    safe, unsafe = _fixable(findings, "safe"), _fixable(findings, "unsafe")
    if safe:
        out.write(f"[*] {safe} fixable with `--fix`.\n")
    if unsafe:
        out.write(f"[-] {unsafe} more fixable with `--fix --unsafe-fixes` "
                  f"(confirm those with `privlint verify`).\n")


def write_json(findings: list[Finding], files_checked: int, out: TextIO,
               target: TargetRange | None = None) -> None:
    payload = {"findings": [f.to_json() for f in findings],
               "summary": summary(findings, files_checked, target)}
    json.dump(payload, out, indent=2)
    out.write("\n")


def write_rules(catalog: Catalog, fmt: str, out: TextIO) -> None:
    known = catalog.known_releases
    rows = []
    for rule in sorted(catalog.rules, key=lambda r: r.code):
        versions = rule.window.describe(known) if rule.kind in ("module", "attribute", "member") else "-"
        rows.append({
            "code": rule.code, "name": rule.name, "kind": rule.kind, "api": rule.api,
            "versions": versions, "replacement": rule.replacement or None,
            "fixable": bool(rule.fix), "default": rule.default, "distinctive": rule.distinctive,
        })
    if fmt == "json":
        json.dump(rows, out, indent=2)
        out.write("\n")
        return
    for row in rows:
        flags = ("fix" if row["fixable"] else "   ") + (" " if row["default"] else " off")
        out.write(f"{row['code']}  {flags:7} {row['versions']:14} {row['api'] or row['name']}\n")


def write_diffs(results, out: TextIO) -> None:
    """Unified diffs of what --fix would write, one per file."""
    import difflib

    for _, name, result in results:
        before = result.original.decode("utf-8", "replace").splitlines(keepends=True)
        after = result.fixed.decode("utf-8", "replace").splitlines(keepends=True)
        out.writelines(difflib.unified_diff(before, after, f"a/{name}", f"b/{name}"))
    count = len(results)
    out.write(f"Would fix {count} file{'s' if count != 1 else ''}.\n" if count else "No fixes.\n")


def write_fix_summary(results, failures, remaining: list[Finding], out: TextIO) -> None:
    written = [result for _, _, result in results if result.fixed is not None]
    applied = [kind for result in written for kind in result.applied]
    unsafe = applied.count("unsafe")
    out.write(f"Fixed {len(applied)} finding{'s' if len(applied) != 1 else ''} "
              f"({unsafe} unsafe) in {len(written)} file{'s' if len(written) != 1 else ''}; "
              f"{len(remaining)} finding{'s' if len(remaining) != 1 else ''} left.\n")
    commands = [c for result in written for c in result.verify_commands]
    if commands:
        out.write("Unsafe fixes were applied. Confirm them at run time:\n")
        for command in commands:
            out.write(f"  {command}\n")
    for path, reason in failures:
        out.write(f"privlint: not written: {path}: {reason}\n")
