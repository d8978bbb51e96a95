"""Print findings: ruff-style text lines, or one JSON object."""

from __future__ import annotations

import json
from collections import Counter
from typing import TextIO

from privlint.catalog import Catalog
from privlint.findings import Finding


def summary(findings: list[Finding], files_checked: int) -> dict:
    return {
        "files_checked": files_checked,
        "findings": len(findings),
        "errors": sum(1 for f in findings if f.severity == "error"),
        "warnings": sum(1 for f in findings if f.severity == "warning"),
        "by_code": dict(sorted(Counter(f.code for f in findings).items())),
    }


def write_text(findings: list[Finding], files_checked: int, out: TextIO) -> None:
    for finding in findings:
        out.write(f"{finding.path}:{finding.line}:{finding.column}: {finding.code} {finding.message}\n")
    if not findings:
        out.write(f"All checks passed! ({files_checked} files checked)\n")
        return
    noun = "finding" if len(findings) == 1 else "findings"
    out.write(f"Found {len(findings)} {noun} in {len({f.path for f in findings})} of "
              f"{files_checked} files checked.\n")


def write_json(findings: list[Finding], files_checked: int, out: TextIO) -> None:
    payload = {"findings": [f.to_json() for f in findings], "summary": summary(findings, files_checked)}
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
