"""The fix path's data: a planned Fix, a Plan (a fix, or why there is none), and the registry
of planners, one per template (privlint/fix/templates/<id>.py registers itself with `register`).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Callable

import libcst as cst

from privlint.fix import template_ids

SAFE, UNSAFE = "safe", "unsafe"


@dataclass
class Fix:
    applicability: str
    description: str
    target: cst.CSTNode  # the node to replace (a statement line, an import, an expression)
    replacement: cst.CSTNode | cst.FlattenSentinel
    # for the `privlint verify` hint: set by planners whose fallback builds meshes verify compares
    verify_function: cst.FunctionDef | None = None
    statement_key: int = 0  # one fix per statement per pass


@dataclass
class Plan:
    fix: Fix | None
    note: str = ""  # why there is no fix, when there is none




Planner = Callable[..., Plan]
PLANNERS: dict[str, Planner] = {}
# Per template: whether a finding's plan reads nothing but the finding's own statement. Such a
# plan comes out the same on a slice of the file as on the whole file, so `check` need not
# parse the whole file to report it (a template that does not say reads the whole file).
READS_ITS_STATEMENT: dict[str, Callable[..., bool]] = {}


def register(template_id: str, reads_its_statement: Callable[..., bool] | None = None):
    """Decorator: the planner for rules whose `fix` names `template_id`; `reads_its_statement`
    (a finding -> bool) says which of its plans read only the finding's statement."""
    def decorate(planner: Planner) -> Planner:
        if template_id in PLANNERS:
            raise ValueError(f"two planners for fix template {template_id!r}")
        PLANNERS[template_id] = planner
        if reads_its_statement is not None:
            READS_ITS_STATEMENT[template_id] = reads_its_statement
        return planner
    return decorate


def load_planners() -> dict[str, Planner]:
    for template_id in template_ids():
        importlib.import_module(f"privlint.fix.templates.{template_id.replace('-', '_')}")
    return PLANNERS


def plan(raw, facts, target) -> Plan:
    """The fix for one finding, by the planner its rule's `fix` names."""
    if not raw.rule.fix:
        return Plan(None)
    return load_planners()[raw.rule.fix](raw, facts, target)


def plans_from_its_statement(raw) -> bool:
    """Whether the finding's plan, if any, reads only its own statement (see READS_ITS_STATEMENT)."""
    if not raw.rule.fix:
        return True
    load_planners()
    reads = READS_ITS_STATEMENT.get(raw.rule.fix)
    return reads is not None and reads(raw)


def unsafe_note(reasons: list[str]) -> str:
    return f" (unsafe: {'; '.join(reasons)})" if reasons else ""
