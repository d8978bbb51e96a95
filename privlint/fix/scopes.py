"""What fix planning must know about names: where a name is bound in a scope, which node is
whose parent, which names a file uses. Computed on demand from the libcst tree, for the few
files that have a fixable finding.

A fix is only as safe as the proof that a name means, at the point of use, what the rewrite
assumes. The proofs here are deliberately simple: one binding, at the top level of its scope,
before the use, and nothing that could re-bind it (loops, branches, `global`, `nonlocal`,
nested assignments) — anything else is "not proven".
"""

from __future__ import annotations

from collections.abc import Container
from dataclasses import dataclass

import libcst as cst

from privlint.reading import target_names
from privlint.walk import Visitor, walk

_SCOPES = (cst.FunctionDef, cst.ClassDef, cst.Lambda)


@dataclass
class NameBinding:
    node: cst.CSTNode        # the statement (or def/param) that binds the name
    statement: cst.CSTNode | None  # the top-level statement of the scope that holds it
    kind: str                # "assign", "import", "param", "def", "other"


class _Parents(cst.CSTVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.parents: dict[int, cst.CSTNode] = {}
        self._stack: list[cst.CSTNode] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        if self._stack:
            self.parents[id(node)] = self._stack[-1]
        self._stack.append(node)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self._stack.pop()


def parents_of(module: cst.Module) -> dict[int, cst.CSTNode]:
    visitor = _Parents()
    walk(module, visitor)  # code-bearing nodes only: whitespace and commas have no use here
    return visitor.parents


class _Bindings(Visitor):
    """Every binding of `name` in one scope; nested scopes only count when they reach out."""

    def __init__(self, name: str, root: cst.CSTNode) -> None:
        super().__init__()
        self.name, self.root = name, root
        self.found: list[tuple[cst.CSTNode, str]] = []
        self.escapes = False  # `global name` / `nonlocal name` somewhere: not provable

    def _add(self, node: cst.CSTNode, kind: str) -> None:
        self.found.append((node, kind))

    def on_visit(self, node: cst.CSTNode) -> bool:
        if node is not self.root and isinstance(node, _SCOPES):
            if isinstance(node, (cst.FunctionDef, cst.ClassDef)) and node.name.value == self.name:
                self._add(node, "def")
            if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
                for decorator in node.decorators:
                    decorator.visit(self)
            node.visit(_Escapes(self))  # a nested `global`/`nonlocal` may re-bind it
            return False
        return super().on_visit(node)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if self.name in target_names(target.target):
                self._add(node, "assign" if isinstance(target.target, cst.Name)
                          and len(node.targets) == 1 else "other")

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if self.name in target_names(node.target) and node.value is not None:
            self._add(node, "assign")

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if self.name in target_names(node.target):
            self._add(node, "other")

    def visit_For(self, node: cst.For) -> None:
        if self.name in target_names(node.target):
            self._add(node, "other")

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None and self.name in target_names(node.asname.name):
            self._add(node, "other")

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        if self.name in target_names(node.target):
            self._add(node, "other")

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        if node.name is not None and self.name in target_names(node.name.name):
            self._add(node, "other")

    def visit_Del(self, node: cst.Del) -> None:
        if self.name in target_names(node.target):
            self._add(node, "other")

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            local = alias.asname.name.value if alias.asname else (
                alias.name.value if isinstance(alias.name, cst.Name) else _root(alias.name))
            if local == self.name:
                self._add(node, "import")

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if isinstance(node.names, cst.ImportStar):
            self._add(node, "other")
            return
        for alias in node.names:
            local = alias.asname.name.value if alias.asname else alias.name.value
            if local == self.name:
                self._add(node, "import")

    def visit_Global(self, node: cst.Global) -> None:
        if any(n.name.value == self.name for n in node.names):
            self.escapes = True

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        if any(n.name.value == self.name for n in node.names):
            self.escapes = True

    def visit_MatchAs(self, node) -> None:  # `case x:` binds too
        if getattr(node, "name", None) is not None and node.name.value == self.name:
            self._add(node, "other")


class _Escapes(Visitor):
    def __init__(self, owner: _Bindings) -> None:
        super().__init__()
        self.owner = owner

    def visit_Global(self, node: cst.Global) -> None:
        if any(n.name.value == self.owner.name for n in node.names):
            self.owner.escapes = True

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        if any(n.name.value == self.owner.name for n in node.names):
            self.owner.escapes = True


def _root(node: cst.CSTNode) -> str:
    while isinstance(node, cst.Attribute):
        node = node.value
    return node.value if isinstance(node, cst.Name) else ""


def scope_body(scope: cst.CSTNode) -> list[cst.CSTNode]:
    if isinstance(scope, cst.Module):
        return list(scope.body)
    body = scope.body
    return list(body.body) if isinstance(body, cst.IndentedBlock) else [body]


def bindings(scope: cst.CSTNode, name: str, parents: dict[int, cst.CSTNode]
             ) -> tuple[list[NameBinding], bool]:
    """(every binding of `name` in `scope`, whether something outside could re-bind it)."""
    visitor = _Bindings(name, scope)
    if isinstance(scope, cst.FunctionDef):
        params = scope.params
        for param in (*params.posonly_params, *params.params, *params.kwonly_params,
                      *(p for p in (params.star_arg, params.star_kwarg) if isinstance(p, cst.Param))):
            if param.name.value == name:
                visitor.found.append((param, "param"))
        scope.body.visit(visitor)
    else:
        scope.visit(visitor)
    top = {id(statement) for statement in scope_body(scope)}
    found = [NameBinding(node, top_statement(node, top, parents), kind)
             for node, kind in visitor.found]
    return found, visitor.escapes


def top_statement(node: cst.CSTNode, top: Container[int],
                  parents: dict[int, cst.CSTNode]) -> cst.CSTNode | None:
    """The ancestor of `node` (or itself) that is a direct statement of the scope's body."""
    current: cst.CSTNode | None = node
    while current is not None and id(current) not in top:
        current = parents.get(id(current))
    return current


def enclosing_scope(node: cst.CSTNode, parents: dict[int, cst.CSTNode], module: cst.Module) -> cst.CSTNode:
    current = parents.get(id(node))
    while current is not None:
        if isinstance(current, _SCOPES):
            return current
        current = parents.get(id(current))
    return module


class _Names(Visitor):
    def __init__(self) -> None:
        super().__init__()
        self.names: set[str] = set()

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)


def names_in(node: cst.CSTNode) -> set[str]:
    visitor = _Names()
    node.visit(visitor)
    return visitor.names


def fresh_name(base: str, taken: set[str]) -> str:
    name, index = base, 1
    while name in taken:
        index += 1
        name = f"{base}{index}"
    taken.add(name)
    return name
