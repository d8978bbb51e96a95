"""Scope and binding tracking for the detector: what names mean as the walk goes on.

Assignments, parameters, loops, comprehensions, functions, lambdas and classes update the
Resolver's scopes in source order, and flags assigned from `hasattr(...)` or a torch
version check are remembered, so that later conditions can be read as guards.
"""

from __future__ import annotations

import libcst as cst

from privlint.guards import IMPORT, Guard, literal_set, mentions_torch_version, try_flag
from privlint.resolve import (CAPFLAG, ELEMENTS, FOREIGN, FUNCTION, INSTANCE, PATH, VERFLAG,
                              HANDED_ON, Binding, Resolver, dotted_parts, predicate_key,
                              property_key)
from privlint.walk import Visitor, walk


class ScopeTracking:
    """Mixin for the Detector: keeps `self.resolver` in step with the code being walked."""

    # -- bindings --------------------------------------------------------------------------
    def _value_binding(self, value: cst.BaseExpression) -> Binding | None:
        facts = self._facts(value)
        if facts.when_true and not facts.version:
            return Binding(CAPFLAG, members=facts.when_true)
        if isinstance(value, (cst.Comparison, cst.Call, cst.BooleanOperation, cst.UnaryOperation,
                              cst.Name, cst.Attribute)) \
                and mentions_torch_version(value, self.resolver.lookup):
            return Binding(VERFLAG, origin=facts.bound)  # so that a later `if FLAG:` reads it
        binding = self.resolver.infer(value)
        if binding is not None and binding.kind == INSTANCE and isinstance(value, cst.Call):
            device = value.args[0].value if value.args and value.args[0].keyword is None else None
            device_binding = self.resolver.lookup(device.value) if isinstance(device, cst.Name) else None
            binding = Binding(INSTANCE, binding.value, origin=(value, device_binding))
        return binding

    def _bind_target(self, target: cst.BaseExpression, binding: Binding | None) -> None:
        if isinstance(target, cst.Name):
            scope = self.resolver.scopes[-1]
            if binding is not None and binding.kind == VERFLAG and binding.origin is not None and (
                    target.value in scope.names
                    or (scope.kind == "module" and target.value in self._rebound_at_top)):
                # Bound elsewhere in this scope too, maybe in another branch (`if c: OK = True`
                # / `else: OK = v >= 2.4`), or later, before a function that reads it runs: an
                # `if OK:` may see either value. Still a version flag, its releases not read.
                binding = Binding(VERFLAG)
            self.resolver.bind(target.value, binding)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._bind_target(element.value, None)
        elif isinstance(target, cst.StarredElement):
            self._bind_target(target.value, None)
        elif isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) \
                and target.value.value in ("self", "cls"):
            info = self.resolver.current_class()
            if info is not None and binding is not None and binding.kind in (INSTANCE, CAPFLAG):
                info.attr_types[target.attr.value] = binding

    def leave_Assign(self, original_node: cst.Assign) -> None:
        binding = self._value_binding(original_node.value)
        for target in original_node.targets:
            self._bind_target(target.target, binding)
        self._note_literal(original_node)

    def leave_AnnAssign(self, original_node: cst.AnnAssign) -> None:
        binding = self.resolver.annotation(original_node.annotation.annotation)
        if original_node.value is not None:
            value = self._value_binding(original_node.value)
            if binding is None or (value is not None and value.kind in (VERFLAG, CAPFLAG)):
                binding = value  # `OK: bool = v >= (2, 4)` is a flag, whatever `bool` says
        self._bind_target(original_node.target, binding)
        self._note_literal(original_node)

    def _note_literal(self, node: cst.Assign | cst.AnnAssign) -> None:
        """Remember the binding `HAS_X = False` just made (a try's flag may start from it)."""
        setting = literal_set(node)
        if setting is not None:
            binding = self.resolver.lookup_local(setting[0])
            if binding is not None:
                self._literals.append((setting[0], binding, setting[1]))

    def _literals_at(self, node: cst.Try | cst.TryStar) -> None:
        """The names of this scope that hold a literal True or False as the `try` begins; none
        in a loop, where a later pass begins with what the one before left."""
        if self._loops:
            return
        names = self.resolver.scopes[-1].names
        self._try_literals[id(node)] = {name: value for name, binding, value in self._literals
                                        if names.get(name) is binding}

    def leave_AugAssign(self, original_node: cst.AugAssign) -> None:
        self._bind_target(original_node.target, None)

    def leave_NamedExpr(self, original_node: cst.NamedExpr) -> None:
        self._bind_target(original_node.target, self._value_binding(original_node.value))

    def visit_For(self, node: cst.For) -> bool:
        self._bind_iteration(node.target, node.iter)
        self._loops += 1
        return True

    def _bind_iteration(self, target: cst.BaseExpression, iterable: cst.BaseExpression) -> None:
        source = self.resolver.infer(iterable)
        if source is not None and source.kind == ELEMENTS:
            self._bind_target(target, Binding(INSTANCE, source.value))
        else:
            self._bind_target(target, None)

    def leave_Try(self, original_node: cst.Try | cst.TryStar) -> None:
        # `try: import torch._x; HAS_X = True` / `except ImportError: HAS_X = False`
        # A `try` or `suppress` around this one that catches what an import raises may swallow
        # what this one's handlers let by.
        swallowed = any(IMPORT in guard.catches and guard.depth == self._depth for guard in self._active)
        flags = try_flag(original_node, self._try_literals.pop(id(original_node), {}).get, swallowed)
        if flags is not None:
            names, members = flags
            for name in sorted(names):
                self.resolver.bind(name, Binding(CAPFLAG, members=members))

    leave_TryStar = leave_Try

    def leave_For(self, original_node: cst.For) -> None:
        self._loops -= 1

    def visit_While(self, node: cst.While) -> bool:
        self._loops += 1
        return True

    def leave_While(self, original_node: cst.While) -> None:
        self._loops -= 1

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> bool:
        if node.name and isinstance(node.name.name, cst.Name):
            self.resolver.bind(node.name.name.value, None)
        return True

    # -- scopes ----------------------------------------------------------------------------
    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        returns = self.resolver.annotation(node.returns.annotation) if node.returns else None
        made = returns.value if returns is not None and returns.kind == INSTANCE else ""
        self.resolver.bind(node.name.value, Binding(FUNCTION, made, members=self._predicate(node)))
        self._outer_loops.append(self._loops)  # a body runs when called, not once per pass
        self._loops = 0
        self.resolver.push("function")
        self._functions.append(node)
        self._returns.append([] if node.returns is None else None)
        params = node.params
        for param in (*params.posonly_params, *params.params, *params.kwonly_params):
            self.resolver.bind(param.name.value, self.resolver.annotation(
                param.annotation.annotation if param.annotation else None))
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                self.resolver.bind(star.name.value, None)
        return True

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.resolver.pop()
        self._loops = self._outer_loops.pop()
        self._functions.pop()
        returned = self._returns.pop()
        if returned:  # unannotated: what every `return` gave, when that is one tracked type
            kinds = {(b.kind, b.value) if b is not None else None for b in returned}
            if len(kinds) == 1 and returned[0] is not None and returned[0].kind == INSTANCE:
                name = original_node.name.value
                earlier = self.resolver.lookup(name)
                self.resolver.bind(name, Binding(FUNCTION, returned[0].value,
                                                 members=earlier.members if earlier else frozenset()))

    def visit_Return(self, node: cst.Return) -> bool:
        if self._returns and self._returns[-1] is not None and node.value is not None:
            self._returns[-1].append(self.resolver.infer(node.value))
        return True

    def _predicate(self, node: cst.FunctionDef) -> frozenset[str]:
        """`def has_x(): return hasattr(dist, "_x")`: the members a true result proves present.
        Not an `async def`'s: its call gives a coroutine, true whatever it would return."""
        if node.asynchronous is not None:
            return frozenset()
        body = node.body.body if isinstance(node.body, cst.IndentedBlock) else node.body.body
        statements = [s for s in body if not (isinstance(s, cst.SimpleStatementLine)
                                              and isinstance(s.body[0], cst.Expr)
                                              and isinstance(s.body[0].value, cst.SimpleString))]
        if len(statements) != 1:
            return frozenset()
        only = statements[0]
        line = only.body[0] if isinstance(only, cst.SimpleStatementLine) else only
        if isinstance(line, cst.Return) and line.value is not None:
            facts = self._facts(line.value)
            if not facts.version:
                return facts.when_true
        return frozenset()

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        self._expression_scopes += 1
        self.resolver.push("function")
        for param in (*node.params.posonly_params, *node.params.params, *node.params.kwonly_params):
            self.resolver.bind(param.name.value, None)
        return True

    def leave_Lambda(self, original_node: cst.Lambda) -> None:
        self._expression_scopes -= 1
        self.resolver.pop()

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self.resolver.bind(node.name.value, Binding(FOREIGN, f"class {node.name.value}"))
        self.resolver.enter_class(node)
        info = self.resolver.current_class()
        if info is not None and isinstance(node.body, cst.IndentedBlock):
            # A predicate method (`def supported(self): return hasattr(...)`), called as
            # `self.supported()` or `cls.supported()` from any method, before or after it: the
            # last definition of the name is the one that runs. Known once the body is
            # reached (visit_IndentedBlock): `self` in the class's own header is the enclosing
            # class's.
            predicates: dict[str, Binding] = {}
            for statement in node.body.body:
                if isinstance(statement, cst.FunctionDef) and _is_accessor(statement):
                    continue  # `@ok.setter`: the property `ok` still reads through its getter
                if isinstance(statement, cst.FunctionDef):
                    members = self._predicate(statement)
                    if members:  # a property's is read as `self.<name>`, a flag, with no call
                        predicates[statement.name.value] = Binding(CAPFLAG, members=members) \
                            if _is_property(statement) else Binding(FUNCTION, members=members)
                    else:
                        predicates.pop(statement.name.value, None)
                elif isinstance(statement, cst.SimpleStatementLine):
                    for small in statement.body:
                        for target in getattr(small, "targets", ()):
                            if isinstance(target.target, cst.Name):
                                predicates.pop(target.target.value, None)
                        if isinstance(getattr(small, "target", None), cst.Name):
                            predicates.pop(small.target.value, None)
            if predicates:
                self._class_predicates[id(node.body)] = (info, predicates)
        return True

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> bool:
        pending = self._class_predicates.pop(id(node), None) if self._class_predicates else None
        if pending is not None:
            info, predicates = pending
            for name, binding in predicates.items():
                info.attr_types[property_key(name) if binding.kind == CAPFLAG else predicate_key(name)] = binding
        return True

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.resolver.leave_class()

    def on_visit_comprehension(self, node: cst.BaseComp) -> None:
        self._expression_scopes += 1
        self.resolver.push("comprehension")
        present: frozenset[str] = frozenset()
        version = False
        clause = node.for_in
        while clause is not None:
            self._bind_iteration(clause.target, clause.iter)
            for condition in clause.ifs:
                facts = self._facts(condition.test)
                present |= facts.when_true
                version = version or facts.version
            clause = clause.inner_for_in
        if present or version:
            guard = Guard(present=present, version=version)
            for part in ((node.key, node.value) if isinstance(node, cst.DictComp) else (node.elt,)):
                self._region(part, guard)

    def on_leave_comprehension(self) -> None:
        self._expression_scopes -= 1
        self.resolver.pop()

    def visit_ListComp(self, node: cst.ListComp) -> bool:
        self.on_visit_comprehension(node)
        return True

    def leave_ListComp(self, original_node: cst.ListComp) -> None:
        self.on_leave_comprehension()

    def visit_SetComp(self, node: cst.SetComp) -> bool:
        self.on_visit_comprehension(node)
        return True

    def leave_SetComp(self, original_node: cst.SetComp) -> None:
        self.on_leave_comprehension()

    def visit_GeneratorExp(self, node: cst.GeneratorExp) -> bool:
        self.on_visit_comprehension(node)
        return True

    def leave_GeneratorExp(self, original_node: cst.GeneratorExp) -> None:
        self.on_leave_comprehension()

    def visit_DictComp(self, node: cst.DictComp) -> bool:
        self.on_visit_comprehension(node)
        return True

    def leave_DictComp(self, original_node: cst.DictComp) -> None:
        self.on_leave_comprehension()


def bind_import(resolver: Resolver, node: cst.Import | cst.ImportFrom) -> None:
    """Bind the names an import statement introduces (one place for the detector and the pre-pass)."""
    if isinstance(node, cst.Import):
        for alias in node.names:
            parts = dotted_parts(alias.name)
            if parts and alias.asname and isinstance(alias.asname.name, cst.Name):
                resolver.bind(alias.asname.name.value, Binding(PATH, ".".join(parts)))
            elif parts:
                resolver.bind(parts[0], Binding(PATH, parts[0]))
        return
    module = resolver.absolute_module(node)
    if isinstance(node.names, cst.ImportStar):
        if module and module.split(".")[0] == "torch":
            resolver.star_roots.append(module)
        elif module and resolver.project is not None:
            for name, (kind, value) in resolver.project.star_names(module).items():
                resolver.bind(name, Binding(PATH, value) if kind == "path"
                              else Binding(FUNCTION, value))
        return
    own = resolver.project is not None and module is not None and module.split(".")[0] != "torch"
    for alias in node.names:
        name_parts = dotted_parts(alias.name)
        bound = alias.asname.name if alias.asname else alias.name
        if not name_parts or not isinstance(bound, cst.Name):
            continue
        handed = resolver.project.exported(module, name_parts[0]) if own else None
        if handed is not None:  # `from .utils import dist`, where utils has `import torch.distributed as dist`
            kind, value = handed
            resolver.bind(bound.value, Binding(PATH, value, origin=HANDED_ON) if kind == "path"
                          else Binding(FUNCTION, value))
            continue
        resolver.bind(bound.value, Binding(PATH, f"{module}.{name_parts[0]}") if module
                      else Binding(FOREIGN, "module"))  # a relative import outside a package


class _ModuleImports(Visitor):
    """Binds the module-level imports it meets. (A class here, not in the function: a class is
    its own cycle, and one made per file held the file's bindings for the cyclic collector.)"""

    def __init__(self, resolver: Resolver) -> None:
        self.resolver = resolver

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_Import(self, node: cst.Import) -> bool:
        bind_import(self.resolver, node)
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        bind_import(self.resolver, node)
        return False


def prebind_module_imports(resolver: Resolver, module: cst.Module) -> None:
    """Bind module-level imports first, so functions defined above an import still see it."""
    walk(module, _ModuleImports(resolver))


def _is_property(function: cst.FunctionDef) -> bool:
    """`@property`, read as an attribute: its getter runs on each read, whatever the instance
    holds (not `cached_property`, which an instance attribute of the same name hides)."""
    return any((dotted_parts(decorator.decorator) or [""])[-1] == "property" for decorator in function.decorators)


def _is_accessor(function: cst.FunctionDef) -> bool:
    """`@<name>.setter` or `@<name>.deleter` on a def of the same name: part of that property."""
    return any((dotted_parts(decorator.decorator) or [""])[-2:] == [function.name.value, end]
               for decorator in function.decorators for end in ("setter", "deleter"))
