"""CI report formats: SARIF 2.1.0 (GitHub code scanning), GitHub workflow commands, JUnit XML."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import TextIO

from privlint import __version__
from privlint.catalog import Catalog
from privlint.findings import Finding

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVEL = {"error": "error", "warning": "warning"}


def _relative_to(path: str, root: Path | None) -> str:
    if root is None:
        return path
    try:
        return (Path.cwd() / path).resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path


def write_sarif(findings: list[Finding], catalog: Catalog, out: TextIO,
                root: Path | None = None) -> None:
    """One run; paths are relative to the repository root (the project root), as GitHub wants."""
    by_code = catalog.by_code
    codes = sorted({f.code for f in findings} | {r.code for r in catalog.rules if r.default})
    rules = []
    for code in codes:
        rule = by_code.get(code)
        if rule is None:
            continue
        rules.append({
            "id": code,
            "name": "".join(part.capitalize() for part in rule.name.split("-")),
            "shortDescription": {"text": f"{code} {rule.name}: {rule.api or rule.name}"},
            "fullDescription": {"text": rule.message},
            "help": {"text": rule.message,
                     "markdown": f"**{code}** `{rule.api or rule.name}`\n\n{rule.message}"},
            "defaultConfiguration": {"level": "error" if rule.kind == "engine" else "warning"},
            "properties": {"tags": [rule.kind], "fixable": bool(rule.fix)},
        })
    index = {rule["id"]: i for i, rule in enumerate(rules)}
    results = []
    for finding in findings:
        region = {"startLine": finding.line, "startColumn": finding.column,
                  "endLine": finding.end_line, "endColumn": finding.end_column}
        result = {
            "ruleId": finding.code,
            "level": _LEVEL.get(finding.severity, "warning"),
            "message": {"text": finding.message},
            "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": _relative_to(finding.path, root),
                                     "uriBaseId": "%SRCROOT%"},
                "region": region}}],
        }
        if finding.code in index:
            result["ruleIndex"] = index[finding.code]
        if finding.fix:
            # A SARIF `fix` must carry its edits; privlint states the fix and its applicability,
            # and `privlint check --fix` makes the edits.
            result["properties"] = {"fix": finding.fix["description"],
                                    "fixApplicability": finding.fix["applicability"]}
        if finding.fingerprint:
            result["partialFingerprints"] = {"privlint/v1": finding.fingerprint}
        results.append(result)
    document = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "privlint", "version": __version__,
                                "informationUri": "https://pypi.org/project/privlint/",
                                "rules": rules}},
            "originalUriBaseIds": {"%SRCROOT%": {"uri": "./"}},
            "results": results,
        }],
    }
    json.dump(document, out, indent=2)
    out.write("\n")


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def write_github(findings: list[Finding], out: TextIO) -> None:
    for f in findings:
        kind = "error" if f.severity == "error" else "warning"
        out.write(f"::{kind} file={_escape_property(f.path)},line={f.line},col={f.column},"
                  f"endLine={f.end_line},endColumn={f.end_column},"
                  f"title={_escape_property(f.code)}::{_escape_data(f'{f.code} {f.message}')}\n")


def write_junit(findings: list[Finding], files_checked: int, out: TextIO) -> None:
    from xml.sax.saxutils import escape, quoteattr  # imports urllib and http: only when asked

    by_path: dict[str, list[Finding]] = {}
    for finding in findings:
        by_path.setdefault(finding.path, []).append(finding)
    out.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    out.write(f'<testsuites name="privlint" tests="{max(len(findings), 1)}" '
              f'failures="{len(findings)}">\n')
    out.write(f'  <testsuite name="privlint" tests="{max(len(findings), 1)}" '
              f'failures="{len(findings)}">\n')
    if not findings:
        out.write(f'    <testcase name="{files_checked} files checked" classname="privlint"/>\n')
    for path, items in sorted(by_path.items()):
        for f in items:
            name = quoteattr(f"{f.code} {f.path}:{f.line}:{f.column}")
            out.write(f"    <testcase name={name} classname={quoteattr(path)}>\n")
            out.write(f"      <failure message={quoteattr(f.message)} type={quoteattr(f.code)}>"
                      f"{escape(f'{f.path}:{f.line}:{f.column}: {f.code} {f.message}')}</failure>\n")
            out.write("    </testcase>\n")
    out.write("  </testsuite>\n</testsuites>\n")


def write_statistics(findings: list[Finding], catalog: Catalog, out: TextIO) -> None:
    by_code = catalog.by_code
    counts = Counter(f.code for f in findings)
    fixable = Counter(f.code for f in findings if f.fix and f.fix["applicability"] == "safe")
    for code, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        mark = "[*]" if fixable[code] else "   "
        name = by_code[code].name if code in by_code else ""
        out.write(f"{count:5}\t{code}\t{mark} {name}\n")
