"""Apply planned fixes to a module: swap nodes by identity (a statement may become several)."""

from __future__ import annotations

import libcst as cst

from privlint.fixes import Fix


class _Swap(cst.CSTTransformer):
    def __init__(self, fixes: list[Fix]) -> None:
        super().__init__()
        self.by_target = {id(fix.target): fix.replacement for fix in fixes}

    def on_leave(self, original_node, updated_node):
        replacement = self.by_target.get(id(original_node))
        return replacement if replacement is not None else updated_node


def apply(module: cst.Module, fixes: list[Fix]) -> cst.Module:
    return module.visit(_Swap(fixes))
