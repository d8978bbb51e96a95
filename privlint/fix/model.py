"""The fix path's data: a planned Fix, a Plan (a fix, or why there is none), and the registry
of planners, one per template (privlint/fix/templates/<id>.py registers itself with `register`).
"""

from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass
from typing import Callable

from privlint.dataclass_code import import_libcst
from privlint.fix import template_ids

# The first import of libcst may come here (checker asks which fixes read beyond their
# statement before it parses): through the memo of libcst's dataclass code, as cstparse's does.
cst = import_libcst()

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
# Per template: (finding, target) -> the names its plan reads outside the finding's own
# statement, or None for "anything in the file". `check` plans a finding on a slice of the
# file when every occurrence of those names is in the slice: the plan then comes out as it
# does on the whole file. A template that does not say is planned on the whole file.
READS_BEYOND: dict[str, Callable[..., "tuple[str, ...] | None"]] = {}


def register(template_id: str, reads_beyond: "Callable[..., tuple[str, ...] | None] | None" = None):
    """Decorator: the planner for rules whose `fix` names `template_id`, and what its plans
    read beyond their statement (see READS_BEYOND)."""
    def decorate(planner: Planner) -> Planner:
        if template_id in PLANNERS:
            raise ValueError(f"two planners for fix template {template_id!r}")
        PLANNERS[template_id] = planner
        if reads_beyond is not None:
            READS_BEYOND[template_id] = reads_beyond
        return planner
    return decorate


@functools.cache
def load_planners() -> dict[str, Planner]:
    """Import every template module, once per process (each registers its planner): plans and
    slice checks ask for every finding, and listing the templates reads a directory."""
    for template_id in template_ids():
        importlib.import_module(f"privlint.fix.templates.{template_id.replace('-', '_')}")
    return PLANNERS


def plan(raw, facts, target) -> Plan:
    """The fix for one finding, by the planner its rule's `fix` names."""
    if not raw.rule.fix:
        return Plan(None)
    return load_planners()[raw.rule.fix](raw, facts, target)


def reads_beyond(raw, target) -> "tuple[str, ...] | None":
    """The names the finding's plan reads outside its statement (none without a fix); None
    when the plan may read anything in the file (see READS_BEYOND)."""
    if not raw.rule.fix:
        return ()
    load_planners()
    reads = READS_BEYOND.get(raw.rule.fix)
    return reads(raw, target) if reads is not None else None


def unsafe_note(reasons: list[str]) -> str:
    return f" (unsafe: {'; '.join(reasons)})" if reasons else ""
