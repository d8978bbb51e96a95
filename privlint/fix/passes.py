"""Apply planned fixes, and re-run until nothing changes: the loop behind `check --fix`.

Each pass parses and plans afresh (through the `analyse` callable the checker gives), applies at
most one fix per statement, and keeps the result only if it parses and compiles. Writing the
result to disk is privlint.writer's job.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import libcst as cst

from privlint.fix.model import UNSAFE, Fix

MAX_FIX_PASSES = 8


class _Swap(cst.CSTTransformer):
    def __init__(self, fixes: list[Fix]) -> None:
        super().__init__()
        self.by_target = {id(fix.target): fix.replacement for fix in fixes}

    def on_leave(self, original_node, updated_node):
        replacement = self.by_target.get(id(original_node))
        return replacement if replacement is not None else updated_node


def apply(module: cst.Module, fixes: list[Fix]) -> cst.Module:
    """Swap each fix's target for its replacement, by identity (a statement may become several)."""
    return module.visit(_Swap(fixes))


def rewrite(module: cst.Module, fixes: list[Fix], before: bytes) -> bytes | None:
    """Apply fixes; None if the result would not parse or compile (such a file is never written)."""
    new = apply(module, fixes).bytes
    try:
        cst.parse_module(new)
    except Exception:  # noqa: BLE001 - a template produced bad code: drop the fix, keep the file
        return None
    try:
        compile(before, "<before>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return new  # newer syntax than this Python: libcst's re-parse is the check
    try:
        compile(new, "<after>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return None
    return new


@dataclass
class Passes:
    """What the passes did: the final findings, the rewritten bytes, what was applied."""

    findings: list
    fixed: bytes | None = None
    applied: list[str] = field(default_factory=list)       # the applicability of each fix
    unsafe_functions: list = field(default_factory=list)   # functions an unsafe fix rewrote


def choose(planned, mode: str) -> list[Fix]:
    """The fixes this pass applies: safe ones (and unsafe ones in "unsafe" mode), one a statement."""
    chosen, statements = [], set()
    for _, fix in planned:
        if fix is None or (fix.applicability == UNSAFE and mode != "unsafe"):
            continue
        if fix.statement_key in statements:
            continue  # one rewrite per statement per pass; the next pass sees the result
        statements.add(fix.statement_key)
        chosen.append(fix)
    return chosen


def run_passes(data: bytes, mode: str, analyse: Callable) -> Passes:
    """Fix `data` until a pass changes nothing. `analyse(bytes)` returns (module, planned) with
    planned a list of (finding, Fix | None), or (None, findings) when the text cannot be analysed."""
    result = Passes([])
    current = data
    for _ in range(MAX_FIX_PASSES):
        module, planned = analyse(current)
        if module is None:
            result.findings = planned
            return result
        result.findings = [finding for finding, _ in planned]
        chosen = choose(planned, mode)
        if not chosen:
            return result
        rewritten = rewrite(module, chosen, current)
        if rewritten is None:
            return result
        current = rewritten
        result.fixed = current
        result.applied.extend(fix.applicability for fix in chosen)
        result.unsafe_functions.extend(fix.verify_function for fix in chosen
                                       if fix.applicability == UNSAFE)
    return result
