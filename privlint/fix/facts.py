"""What planners share: facts about the whole file (parents, names, bindings, imports), and
how a rendered template is placed (a statement of its own, or in place inside an expression)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import libcst as cst

from privlint.detect import RawFinding
from privlint.fix.render import render_expression, render_statement
from privlint.fix.scopes import (NameBinding, bindings, enclosing_scope, fresh_name, names_in,
                                  parents_of, scope_body)
from privlint.resolve import dotted_parts
from privlint.walk import Visitor, walk

_STATEMENT_VALUES = (cst.Assign, cst.AnnAssign, cst.Return, cst.Expr)
_SCRIPTING = ("jit.script", "jit.script_method", "jit.export", "jit.interface")


# The visitors are classes of the module, not of the functions that use them: a class is its
# own cycle, and one made per call held what its methods close over (the file's tree) for the
# cyclic collector.
class _ModuleImports(Visitor):
    """Import statements at module level, guarded ones (in try/if/with) included."""

    def __init__(self) -> None:
        self.found: list[cst.Import | cst.ImportFrom] = []

    def visit_FunctionDef(self, node) -> bool:
        return False

    def visit_ClassDef(self, node) -> bool:
        return False

    def visit_Import(self, node: cst.Import) -> None:
        self.found.append(node)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        self.found.append(node)


@dataclass
class FileFacts:
    """What fix planning needs to know about the whole file (computed on first use)."""

    module: cst.Module
    _taken: set[str] = field(default_factory=set)
    # Each walk is of the whole scope, and a file's findings ask the same ones again and again.
    _bindings: dict[tuple[int, str], tuple[list[NameBinding], bool]] = field(default_factory=dict)
    _places: dict[int, dict[int, int]] = field(default_factory=dict)

    @classmethod
    def of(cls, module: cst.Module) -> "FileFacts":
        return cls(module)

    @cached_property
    def parents(self) -> dict[int, cst.CSTNode]:
        return parents_of(self.module)

    @cached_property
    def names(self) -> set[str]:
        return names_in(self.module)

    def bindings(self, scope: cst.CSTNode, name: str) -> tuple[list[NameBinding], bool]:
        """scopes.bindings, once per scope and name (callers only read what it returns)."""
        key = (id(scope), name)
        if key not in self._bindings:
            self._bindings[key] = bindings(scope, name, self.parents)
        return self._bindings[key]

    def statement_index(self, scope: cst.CSTNode) -> dict[int, int]:
        """id(statement) -> its place among the direct statements of `scope`'s body, once per scope."""
        if id(scope) not in self._places:
            self._places[id(scope)] = {id(statement): at for at, statement in enumerate(scope_body(scope))}
        return self._places[id(scope)]

    def scope_of(self, node: cst.CSTNode) -> cst.CSTNode:
        return enclosing_scope(node, self.parents, self.module)

    @cached_property
    def module_imports(self) -> list[cst.Import | cst.ImportFrom]:
        """Import statements at module level, guarded ones (in try/if/with) included."""
        collect = _ModuleImports()
        walk(self.module, collect)
        return collect.found

    def _only_imports(self, local: str, scope: cst.CSTNode, accept) -> bool:
        """`local` is bound at module level only by imports `accept` approves (or `= None` in a
        guard's fallback), nothing re-binds it, and `scope` does not bind it itself."""
        found, escapes = self.bindings(self.module, local)
        if escapes or not found:
            return False
        for binding in found:
            node = binding.node
            if binding.kind == "import" and accept(node):
                continue
            if binding.kind == "assign" and isinstance(node, cst.Assign) \
                    and isinstance(node.value, cst.Name) and node.value.value == "None":
                continue
            return False
        if scope is not self.module:
            inner, inner_escapes = self.bindings(scope, local)
            if inner or inner_escapes:
                return False
        return True

    def reference(self, path: str, scope: cst.CSTNode, module_loaded: bool) -> str | None:
        """An expression that names `path` in `scope` through the file's own module-level imports
        (guarded or aliased ones too), or None. `module_loaded`: the module that holds `path` is
        certainly imported by the time the expression runs, so an attribute path through a parent
        package works."""
        module_path, name = path.rsplit(".", 1)
        for statement in self.module_imports:
            if isinstance(statement, cst.ImportFrom) and statement.module is not None \
                    and not statement.relative and not isinstance(statement.names, cst.ImportStar) \
                    and ".".join(dotted_parts(statement.module) or []) == module_path:
                for alias in statement.names:
                    if isinstance(alias.name, cst.Name) and alias.name.value == name:
                        local = alias.asname.name.value if alias.asname else name
                        if self._only_imports(local, scope, lambda node: _imports_name(node, local, path)):
                            return local
        for statement in self.module_imports:
            if not isinstance(statement, cst.Import):
                continue
            for alias in statement.names:
                imported = ".".join(dotted_parts(alias.name) or [])
                if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                    local = alias.asname.name.value
                    if (imported == module_path or (module_loaded and module_path.startswith(imported + "."))) \
                            and self._only_imports(local, scope, lambda node: _imports_module(node, local, imported)):
                        return f"{local}{path[len(imported):]}"
                elif module_loaded and imported and path.startswith(imported.split(".")[0] + "."):
                    root = imported.split(".")[0]
                    if self._only_imports(root, scope, lambda node: _imports_root(node, root)):
                        return path
        return None

    def fresh(self, base: str) -> str:
        """A name nothing in the file uses, nor an earlier fix of this pass; reserved."""
        name = fresh_name(base, self.names | self._taken)
        self._taken.add(name)
        return name

    def reserve(self, name: str) -> str:
        """`name` itself if the file does not use it (nor an earlier fix), else a fresh variant."""
        return self.fresh(name)


def _imports_name(node: cst.CSTNode, local: str, path: str) -> bool:
    if not isinstance(node, cst.ImportFrom) or node.module is None or isinstance(node.names, cst.ImportStar):
        return False
    module = ".".join(dotted_parts(node.module) or [])
    return any((a.asname.name.value if a.asname else a.name.value) == local
               and f"{module}.{a.name.value}" == path for a in node.names if isinstance(a.name, cst.Name))


def _imports_module(node: cst.CSTNode, local: str, imported: str) -> bool:
    return isinstance(node, cst.Import) and any(
        a.asname is not None and a.asname.name.value == local
        and ".".join(dotted_parts(a.name) or []) == imported for a in node.names)


def _imports_root(node: cst.CSTNode, root: str) -> bool:
    return isinstance(node, cst.Import) and all(
        a.asname is None and (dotted_parts(a.name) or [""])[0] == root
        for a in node.names if (a.asname.name.value if a.asname else (dotted_parts(a.name) or [""])[0]) == root)


def statement_slot(raw: RawFinding, expression: cst.CSTNode) -> cst.SimpleStatementLine | None:
    """The statement line whose whole value is `expression` (assignment, return, bare call)."""
    line = raw.statement
    if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
        return None
    small = line.body[0]
    return line if isinstance(small, _STATEMENT_VALUES) and small.value is expression else None


def bind_arguments(call: cst.Call, names: tuple[str, ...]) -> dict[str, cst.Arg] | None:
    bound: dict[str, cst.Arg] = {}
    for index, arg in enumerate(call.args):
        if arg.star:
            return None
        if arg.keyword is None:
            if index >= len(names):
                return None
            bound[names[index]] = arg
        elif arg.keyword.value in names:
            bound[arg.keyword.value] = arg
        else:
            return None
    return bound


def place(raw: RawFinding, facts: FileFacts, template: dict, expression: cst.CSTNode,
           statement_slots, expression_slots: dict,
           prelude: cst.BaseStatement | None = None) -> tuple[cst.CSTNode, cst.CSTNode] | None:
    """(target, replacement): the statement template where it fits, else the expression one.

    `prelude`: a statement the rewrite needs just before it (a local import); it can only be
    placed where the finding sits in a statement line of its own block."""
    config = facts.module.config_for_parsing
    line = statement_slot(raw, expression)
    if line is not None and "statement" in template:
        rendered = render_statement(template["statement"], statement_slots(line), config)
        if prelude is None:
            return line, rendered.with_changes(leading_lines=line.leading_lines)
        return line, cst.FlattenSentinel([prelude.with_changes(leading_lines=line.leading_lines),
                                          rendered.with_changes(leading_lines=())])
    if "expression" not in template:
        return None
    rendered_expression = render_expression(template["expression"], expression_slots, config)
    if prelude is None:
        return expression, rendered_expression
    line = raw.statement
    if not isinstance(line, cst.SimpleStatementLine):
        return None
    return line, cst.FlattenSentinel([
        prelude.with_changes(leading_lines=line.leading_lines),
        line.deep_replace(expression, rendered_expression).with_changes(leading_lines=())])


def scripted(node: cst.CSTNode, facts: FileFacts) -> bool:
    """Inside a function (or class) TorchScript compiles: a decorator, or `torch.jit.script(f)`."""
    scripted_names = _scripted_names(facts)
    current = facts.parents.get(id(node))
    while current is not None:
        if isinstance(current, (cst.FunctionDef, cst.ClassDef)):
            if current.name.value in scripted_names:
                return True
            for decorator in current.decorators:
                expression = decorator.decorator
                if isinstance(expression, cst.Call):
                    expression = expression.func
                text = ".".join(dotted_parts(expression) or [])
                if text in ("script", "script_method", "export") or text.endswith(_SCRIPTING):
                    return True
        current = facts.parents.get(id(current))
    return False


class _ScriptedNames(Visitor):
    def __init__(self) -> None:
        self.found: set[str] = set()

    def visit_Call(self, node: cst.Call) -> None:
        text = ".".join(dotted_parts(node.func) or [])
        if text.endswith("jit.script") and node.args and isinstance(node.args[0].value, cst.Name):
            self.found.add(node.args[0].value.value)


def _scripted_names(facts: FileFacts) -> set[str]:
    collect = _ScriptedNames()
    walk(facts.module, collect)
    return collect.found


def use_context(node: cst.CSTNode, facts: FileFacts) -> str:
    """How an expression is used: "base" (a class's base), "decorator", "call" (the callee of a
    call), "check" (isinstance/issubclass/except), or "other"."""
    parent = facts.parents.get(id(node))
    if isinstance(parent, cst.Decorator):
        return "decorator"
    if isinstance(parent, cst.Call) and parent.func is node:
        return "call"
    if isinstance(parent, cst.Arg):
        holder = facts.parents.get(id(parent))
        if isinstance(holder, cst.ClassDef) and any(a is parent for a in holder.bases):
            return "base"
        if isinstance(holder, cst.Call) and (dotted_parts(holder.func) or [""])[-1] in ("isinstance", "issubclass"):
            return "check"
    if isinstance(parent, cst.ExceptHandler) or isinstance(facts.parents.get(id(parent)), cst.ExceptHandler):
        return "check"
    return "other"


class _NameUses(Visitor):
    def __init__(self, facts: FileFacts, name: str) -> None:
        self.facts, self.name = facts, name
        self.uses: list[tuple[str, cst.CSTNode]] = []

    def visit_Import(self, node) -> bool:
        return False

    def visit_ImportFrom(self, node) -> bool:
        return False

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        walk(node.value, self)
        return False

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == self.name:
            self.uses.append((use_context(node, self.facts), node))


def name_uses(facts: FileFacts, name: str) -> list[tuple[str, cst.CSTNode]]:
    collect = _NameUses(facts, name)
    walk(facts.module, collect)
    return collect.uses
