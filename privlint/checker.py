"""Check one file: read, prefilter, parse, detect, place, suppress. Data in, findings out."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from privlint import noqa, prefilter
from privlint.catalog import Catalog, Rule
from privlint.config import Selection, Settings, per_file_ignores
from privlint.findings import Finding, explain
from privlint.versions import TargetRange, parse_specifier

VERSION_GATED, SYNTAX_ERROR, IO_ERROR = "version-gated", "syntax-error", "io-error"


@dataclass
class Context:
    """Everything a file check needs that does not change from file to file."""

    catalog: Catalog
    settings: Settings
    selection: Selection
    target: TargetRange
    relevant: "re.Pattern[bytes]"
    use_prefilter: bool = True
    engine: dict[str, Rule] = field(default_factory=dict)

    @classmethod
    def build(cls, catalog: Catalog, settings: Settings, use_prefilter: bool = True) -> "Context":
        known = catalog.known_releases
        if settings.target_torch is not None:
            try:
                minors = parse_specifier(settings.target_torch, known)
            except ValueError as exc:
                from privlint.errors import ConfigError
                raise ConfigError(str(exc), path=str(settings.source or "command line"),
                                  key="target-torch") from None
            target = TargetRange(minors, settings.target_label or f"torch{settings.target_torch}")
        else:
            target = TargetRange(frozenset(known), "")
        engine = {name: catalog.engine_rule(name) for name in (VERSION_GATED, SYNTAX_ERROR, IO_ERROR)}
        return cls(catalog, settings, Selection.from_settings(settings), target,
                   prefilter.build(catalog), use_prefilter, engine)

    def relative(self, path: Path) -> str:
        try:
            return path.resolve().relative_to(self.settings.project_root.resolve()).as_posix()
        except ValueError:
            return path.as_posix()


def _file_error(ctx: Context, display: str, kind: str, text: str, line: int = 1,
                column: int = 1) -> list[Finding]:
    rule = ctx.engine[kind]
    ignores = per_file_ignores(ctx.settings, display)
    if not ctx.selection.enabled(rule.code, rule.default, ignores):
        return []
    return [Finding(display, line, column, line, column, rule.code, "", f"{text}. {rule.message}",
                    "error", rule.code)]


def _syntax_error_location(data: bytes, exc) -> tuple[int, int, str]:
    """Where the syntax error is: CPython's compiler points closer to the cause than libcst."""
    import ast

    try:
        compile(data, "<file>", "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as syntax:
        return syntax.lineno or 1, syntax.offset or 1, syntax.msg
    except (ValueError, RecursionError, MemoryError) as other:
        return 1, 1, str(other)
    message = exc.message.split(": ", 1)[-1] if ": " in exc.message else exc.message
    return exc.raw_line, exc.raw_column + 1, f"{message} (libcst's parser)"


def check_source(data: bytes, display: str, ctx: Context) -> list[Finding]:
    """All findings for one file's bytes. Never raises for bad input: it becomes a finding."""
    relevant = ctx.relevant.search(data) is not None
    if ctx.use_prefilter and not relevant:
        return []
    import libcst as cst  # imported here so that `privlint --version` and `rules` stay light

    from privlint.detect import detect

    try:
        module = cst.parse_module(data)
    except cst.ParserSyntaxError as exc:
        if not relevant:
            return []  # only files that could hold a finding are privlint's business
        line, column, text = _syntax_error_location(data, exc)
        return _file_error(ctx, display, SYNTAX_ERROR, f"cannot parse: {text}", line, column)
    except (RecursionError, MemoryError, ValueError, UnicodeError) as exc:
        if not relevant:
            return []
        return _file_error(ctx, display, SYNTAX_ERROR, f"cannot parse: {type(exc).__name__}: {exc}")
    try:
        raw = detect(module, ctx.catalog)
    except RecursionError:
        return _file_error(ctx, display, SYNTAX_ERROR, "cannot analyse: nesting too deep")
    if not raw:
        return []
    return _place(raw, module, data, display, ctx)


def _place(raw, module, data: bytes, display: str, ctx: Context) -> list[Finding]:
    """Positions, messages, selection and suppression, computed only for files with findings."""
    from privlint.positions import spans

    ends = {id(item.statement): item.statement.body[-1] for item in raw if item.statement is not None}
    where = spans(module, [item.node for item in raw] + list(ends.values()))
    comments = noqa.directives(data)
    ignores = per_file_ignores(ctx.settings, display)
    gated_rule = ctx.engine[VERSION_GATED]
    findings = []
    for item in raw:
        rule: Rule = item.rule
        if not ctx.selection.enabled(rule.code, rule.default, ignores):
            continue
        code = rule.code
        if item.version_gated:
            if not ctx.selection.enabled(gated_rule.code, gated_rule.default, ignores):
                continue
            code = gated_rule.code
        line, column, end_line, end_column = where[id(item.node)]
        lines = (line,)
        if item.statement is not None:
            lines += (where[id(ends[id(item.statement)])][2],)
        if noqa.is_suppressed(comments, lines, (code, rule.code)):
            continue
        message, severity = explain(rule, item.api, ctx.target, ctx.catalog,
                                    gated_rule if item.version_gated else None)
        findings.append(Finding(display, line, column + 1, end_line, end_column + 1,
                                code, item.api, message, severity, rule.code))
    return findings


def check_path(path: Path, display: str, ctx: Context) -> list[Finding]:
    try:
        data = path.read_bytes()
    except OSError as exc:
        return _file_error(ctx, display, IO_ERROR, f"cannot read: {exc.strerror or exc}")
    return check_source(data, display, ctx)
