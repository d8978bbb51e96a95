"""Print findings: ruff-style text lines, or one JSON object."""

from __future__ import annotations

import json
from collections import Counter
from typing import TextIO

from privlint.catalog import Catalog
from privlint.findings import Finding
from privlint.versions import TargetRange, format_minor


def _fixable(findings: list[Finding], applicability: str) -> int:
    return sum(1 for f in findings if f.fix and f.fix["applicability"] == applicability)


def summary(findings: list[Finding], files_checked: int, target: TargetRange | None = None) -> dict:
    return {
        "torch_range": {"specifier": target.spec, "source": target.source,
                        "judged_from": format_minor(target.judged_from) if target.judged_from else None}
        if target else None,
        "files_checked": files_checked,
        "fixable": _fixable(findings, "safe"),
        "fixable_unsafe": _fixable(findings, "unsafe"),
        "findings": len(findings),
        "errors": sum(1 for f in findings if f.severity == "error"),
        "warnings": sum(1 for f in findings if f.severity == "warning"),
        "by_code": dict(sorted(Counter(f.code for f in findings).items())),
    }


_MARKS = {"safe": "[*] ", "unsafe": "[-] "}


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else ('es' if noun.endswith('x') else 's')}"


def write_text(findings: list[Finding], files_checked: int, out: TextIO,
               target: TargetRange | None = None) -> None:
    """The `concise` format: one line per finding, then the summary."""
    for finding in findings:
        mark = _MARKS[finding.fix["applicability"]] if finding.fix else ""
        out.write(f"{finding.path}:{finding.line}:{finding.column}: {finding.code} {mark}"
                  f"{finding.message}\n")
    write_summary(findings, files_checked, out, target)


def write_summary(findings: list[Finding], files_checked: int, out: TextIO,
                  target: TargetRange | None = None) -> None:
    if not findings:
        out.write(f"All checks passed! ({_plural(files_checked, 'file')} checked)\n")
        return
    with_findings = len({f.path for f in findings})
    out.write(f"Found {_plural(len(findings), 'finding')} in {with_findings} of "
              f"{_plural(max(files_checked, with_findings), 'file')} checked.\n")
    if target is not None and target.spec:
        older = "" if target.judged_from is None else \
            f", from torch {format_minor(target.judged_from)} on: the catalog knows no older release"
        out.write(f"Judged against {target.spec} (from {target.source}){older}.\n")
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
    out.write("\nOne rule in full (explanation, versions, guards, fix, examples): privlint rule CODE\n")


GUARD_FORMS = """\
  if hasattr(obj, "_m"): ...            (also `and` operands, conditional expressions, `assert`)
  if not hasattr(obj, "_m"): return     (then the rest of the block)
  HAS_M = hasattr(obj, "_m") / self.has_m = ... / def has_m(): return hasattr(...)
  if getattr(obj, "_m", None) is not None: ...    if "_m" in dir(obj): ...
  try: ... except AttributeError / ImportError / Exception: ...   with suppress(...): ...
  the else of a probe for the public replacement, and the handler of a failed public import
A torch version check is not a capability guard: it gives PRV001 instead (see `privlint rule PRV001`)."""


def write_rule(catalog: Catalog, code: str, out: TextIO) -> bool:
    """`privlint rule CODE`, like `ruff rule`: everything the catalog knows of one rule."""
    rule = catalog.by_code.get(code.upper())
    if rule is None:
        return False
    known = catalog.known_releases
    out.write(f"# {rule.code} ({rule.name})\n\n")
    if rule.api:
        out.write(f"API: `{rule.api}`" + (f" (also {', '.join(rule.aliases)})" if rule.aliases else "")
                  + "\n")
    if rule.kind in ("module", "attribute", "member"):
        out.write(f"Torch versions that have it: {rule.window.describe(known)}\n")
        for name, first in rule.keywords:
            shown = f"a string `{name[:-4]}`" if name.endswith(":str") else f"`{name}=`"
            out.write(f"  {shown} works from torch {first[0]}.{first[1]}\n")
    if not rule.default:
        out.write("Off by default: turn it on with `--extend-select " + rule.code + "`.\n")
    out.write(f"\n{rule.message}\n")
    if rule.kind != "engine":
        out.write(f"\nGuards that count:\n{GUARD_FORMS}\n")
    if rule.fix:
        safety = ("safe where the catalog's equivalence is proven (see the README's Fixing section)"
                  if rule.equivalent else "safe only where privlint proves the rewrite; else unsafe")
        out.write(f"\nFix: `{rule.fix}` — {safety}. `privlint check --fix` applies safe fixes; "
                  f"`--fix --unsafe-fixes` the others, then run the `privlint verify` command it "
                  f"prints.\n")
    else:
        out.write("\nFix: none automatic.\n")
    for title, examples in (("Flagged", rule.invalid), ("Not flagged", rule.valid)):
        for example in examples:
            out.write(f"\n{title}:\n```python\n{example.strip()}\n```\n")
    return True


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
    changed = [(name, result) for _, name, result in results if result.fixed is not None]
    if changed:
        out.write("Changed:\n")
        for name, result in changed:
            kinds = result.applied
            out.write(f"  {name}: {_plural(len(kinds), 'fix')}"
                      + (f" ({kinds.count('unsafe')} unsafe)" if "unsafe" in kinds else "") + "\n")
    if any(result.verify_commands for _, result in changed):
        out.write("Unsafe fixes were applied. Confirm them at run time, file by file:\n")
        for name, result in changed:
            if result.verify_commands:
                out.write(f"  {name}:\n")
                for command in result.verify_commands:
                    out.write(f"    {command}\n")
    for path, reason in failures:
        out.write(f"privlint: not written: {path}: {reason}\n")
