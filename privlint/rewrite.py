"""Apply planned fixes to a module: swap nodes by identity, then add the imports they need."""

from __future__ import annotations

import libcst as cst

from privlint.fixes import Fix
from privlint.resolve import dotted_parts


class _Swap(cst.CSTTransformer):
    def __init__(self, fixes: list[Fix]) -> None:
        super().__init__()
        self.by_target = {id(fix.target): fix.replacement for fix in fixes}

    def on_leave(self, original_node, updated_node):
        replacement = self.by_target.get(id(original_node))
        return replacement if replacement is not None else updated_node


def _is_import_line(statement: cst.CSTNode) -> bool:
    return isinstance(statement, cst.SimpleStatementLine) and all(
        isinstance(small, (cst.Import, cst.ImportFrom)) for small in statement.body)


def _is_docstring(statement: cst.CSTNode) -> bool:
    return isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 \
        and isinstance(statement.body[0], cst.Expr) \
        and isinstance(statement.body[0].value, (cst.SimpleString, cst.ConcatenatedString))


def add_imports(module: cst.Module, needed: list[tuple[str, str]]) -> cst.Module:
    """Add `from module import name` for each pair, reusing an existing `from module import`."""
    body = list(module.body)
    for source, name in dict.fromkeys(needed):
        merged = False
        for index, statement in enumerate(body):
            if not _is_import_line(statement):
                continue
            for small_index, small in enumerate(statement.body):
                if isinstance(small, cst.ImportFrom) and not small.relative and small.module \
                        and ".".join(dotted_parts(small.module) or []) == source \
                        and not isinstance(small.names, cst.ImportStar):
                    names = list(small.names)
                    if any(a.asname is None and a.name.value == name for a in names):
                        merged = True
                        break
                    last = names[-1]
                    if last.comma is cst.MaybeSentinel.DEFAULT:
                        names[-1] = last.with_changes(comma=cst.Comma(
                            whitespace_after=cst.SimpleWhitespace(" ")))
                    names.append(cst.ImportAlias(cst.Name(name)))
                    new_small = small.with_changes(names=names)
                    body[index] = statement.with_changes(
                        body=[*statement.body[:small_index], new_small, *statement.body[small_index + 1:]])
                    merged = True
                    break
            if merged:
                break
        if merged:
            continue
        position = 0
        for index, statement in enumerate(body):
            if _is_import_line(statement) or (index == 0 and _is_docstring(statement)):
                position = index + 1
            elif position:
                break
        line = cst.parse_statement(f"from {source} import {name}\n", module.config_for_parsing)
        body.insert(position, line)
    return module.with_changes(body=body)


def apply(module: cst.Module, fixes: list[Fix]) -> cst.Module:
    rewritten = module.visit(_Swap(fixes))
    needed = [pair for fix in fixes for pair in fix.imports]
    return add_imports(rewritten, needed) if needed else rewritten
