"""Plan a fix for a finding: which template, where it goes, and whether it is safe.

A fix is *safe* only where privlint can prove the rewrite behaves exactly like the original on
every torch build (see the README's "Fixing" section; the execution oracle in
tests/test_fix_oracle.py runs every fix on torch as installed, with the private API hidden, and on
an old torch). Anything else is *unsafe*: applied only with `--unsafe-fixes`, to be confirmed at
run time with `privlint verify`; and where even that would not import and run, there is no fix.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import libcst as cst

from privlint.catalog import Catalog, Rule, is_private
from privlint.detect import RawFinding
from privlint.resolve import dotted_parts, string_value
from privlint.scopes import (bindings, enclosing_scope, fresh_name, names_in, parents_of,
                             scope_body, top_statement)
from privlint.templates import render_expression, render_statement, split_argument
from privlint.versions import TargetRange

SAFE, UNSAFE = "safe", "unsafe"
_STATEMENT_VALUES = (cst.Assign, cst.AnnAssign, cst.Return, cst.Expr)
_UNFLATTEN_PARAMS = ("dim", "mesh_sizes", "mesh_dim_names", "backend_override")
_INIT_DEVICE_MESH = "torch.distributed.device_mesh.init_device_mesh"
_SCRIPTING = ("jit.script", "jit.script_method", "jit.export", "jit.interface")


@dataclass
class Fix:
    applicability: str
    description: str
    target: cst.CSTNode  # the node to replace (a statement line, an import, an expression)
    replacement: cst.CSTNode | cst.FlattenSentinel
    verify_function: cst.FunctionDef | None = None  # for the `privlint verify` hint
    statement_key: int = 0  # one fix per statement per pass


@dataclass
class Plan:
    fix: Fix | None
    note: str = ""  # why there is no fix, when there is none


@dataclass
class FileFacts:
    """What fix planning needs to know about the whole file (computed on first use)."""

    module: cst.Module
    _taken: set[str] = field(default_factory=set)

    @classmethod
    def of(cls, module: cst.Module) -> "FileFacts":
        return cls(module)

    @cached_property
    def parents(self) -> dict[int, cst.CSTNode]:
        return parents_of(self.module)

    @cached_property
    def names(self) -> set[str]:
        return names_in(self.module)

    def scope_of(self, node: cst.CSTNode) -> cst.CSTNode:
        return enclosing_scope(node, self.parents, self.module)

    @cached_property
    def module_imports(self) -> list[cst.Import | cst.ImportFrom]:
        """Import statements at module level, guarded ones (in try/if/with) included."""
        found: list[cst.Import | cst.ImportFrom] = []

        class Collect(cst.CSTVisitor):
            def visit_FunctionDef(self, node) -> bool:
                return False

            def visit_ClassDef(self, node) -> bool:
                return False

            def visit_Import(self, node: cst.Import) -> None:
                found.append(node)

            def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
                found.append(node)

        self.module.visit(Collect())
        return found

    def _only_imports(self, local: str, scope: cst.CSTNode, accept) -> bool:
        """`local` is bound at module level only by imports `accept` approves (or `= None` in a
        guard's fallback), nothing re-binds it, and `scope` does not bind it itself."""
        found, escapes = bindings(self.module, local, self.parents)
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
            inner, inner_escapes = bindings(scope, local, self.parents)
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
        return fresh_name(base, self.names | self._taken)


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


def _statement_slot(raw: RawFinding, expression: cst.CSTNode) -> cst.SimpleStatementLine | None:
    """The statement line whose whole value is `expression` (assignment, return, bare call)."""
    line = raw.statement
    if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
        return None
    small = line.body[0]
    return line if isinstance(small, _STATEMENT_VALUES) and small.value is expression else None


def _bind_arguments(call: cst.Call, names: tuple[str, ...]) -> dict[str, cst.Arg] | None:
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


@dataclass
class _Origin:
    call: cst.Call
    names: tuple[str, ...]
    device: cst.BaseExpression | None  # the device argument, when it provably still means the same


def _proven_origin(raw: RawFinding, facts: FileFacts, call: cst.Call) -> tuple[_Origin | None, str]:
    """The receiver's one reaching definition, `name = init_device_mesh(dev, (n,), names)`; or why
    that is not proven."""
    receiver = raw.site.receiver
    binding = raw.site.binding
    not_proven = "the receiver is not proven to be a 1-D mesh over the whole world made by " \
                 "`init_device_mesh` in this function"
    if not isinstance(receiver, cst.Name) or binding is None or binding.origin is None:
        return None, not_proven
    origin_call, _ = binding.origin
    if (dotted_parts(origin_call.func) or [""])[-1] != "init_device_mesh":
        return None, not_proven
    scope = facts.scope_of(call)
    found, escapes = bindings(scope, receiver.value, facts.parents)
    body = scope_body(scope)
    use = top_statement(call, {id(s) for s in body}, facts.parents)
    if escapes or len(found) != 1 or found[0].kind != "assign" or found[0].statement is None \
            or found[0].node.value is not origin_call or use is None \
            or _index(body, found[0].statement) >= _index(body, use):
        return None, ("the receiver is not bound exactly once, by `init_device_mesh`, at the top of "
                      "this function before the call (a branch, loop or later assignment may "
                      "give it another mesh)")
    args = _bind_arguments(origin_call, ("device_type", "mesh_shape", "mesh_dim_names", "backend_override"))
    if args is None or "mesh_shape" not in args or "device_type" not in args:
        return None, not_proven
    shape = args["mesh_shape"].value
    if not (isinstance(shape, (cst.Tuple, cst.List)) and len(shape.elements) == 1
            and not isinstance(shape.elements[0], cst.StarredElement)):
        return None, "the receiver is not a 1-D mesh"
    names: tuple[str, ...] = ()
    if "mesh_dim_names" in args and isinstance(args["mesh_dim_names"].value, (cst.Tuple, cst.List)):
        values = [string_value(e.value) for e in args["mesh_dim_names"].value.elements]
        names = tuple(v for v in values if v) if all(values) else ()
    if not names:
        return None, ("the receiver's mesh has no literal dim names (on an unnamed mesh "
                      "`_unflatten` raises in torch 2.13, while the fallback would succeed)")
    callee_root = (dotted_parts(origin_call.func) or [""])[0]
    if scope is not facts.module:
        inner, inner_escapes = bindings(scope, callee_root, facts.parents)
        if inner or inner_escapes:
            return None, f"`{callee_root}` is bound in this function: the fallback cannot reuse it"
    device = args["device_type"].value
    fresh_device: cst.BaseExpression | None = None
    if isinstance(device, cst.SimpleString):
        fresh_device = device
    elif isinstance(device, cst.Name) and isinstance(scope, cst.FunctionDef):
        device_bindings, device_escapes = bindings(scope, device.value, facts.parents)
        if not device_escapes and [b.kind for b in device_bindings] == ["param"]:
            fresh_device = device
    return _Origin(origin_call, names, fresh_device), ""


def _index(body: list[cst.CSTNode], statement: cst.CSTNode) -> int:
    return next(i for i, s in enumerate(body) if s is statement)


def _fallback_call(call: cst.Call, callee: cst.BaseExpression, template_args: list[str],
                   slots: dict[str, cst.BaseExpression]) -> cst.Call:
    """The fallback call, laid out like the original: each argument keeps its position's commas."""
    new_args = []
    for index, text in enumerate(template_args):
        keyword, slot = split_argument(text)
        layout = call.args[index] if index < len(call.args) else None
        comma = layout.comma if layout is not None else cst.MaybeSentinel.DEFAULT
        if index == len(template_args) - 1 and index < len(call.args) - 1:
            comma = call.args[-1].comma  # keep (or drop) the original trailing comma
        arg = cst.Arg(value=slots[slot], comma=comma)
        if keyword:
            arg = arg.with_changes(keyword=cst.Name(keyword), equal=cst.AssignEqual(
                whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")))
        new_args.append(arg)
    return call.with_changes(func=callee, args=new_args)


def _place(raw: RawFinding, facts: FileFacts, template: dict, expression: cst.CSTNode,
           statement_slots, expression_slots: dict,
           prelude: cst.BaseStatement | None = None) -> tuple[cst.CSTNode, cst.CSTNode] | None:
    """(target, replacement): the statement template where it fits, else the expression one.

    `prelude`: a statement the rewrite needs just before it (a local import); it can only be
    placed where the finding sits in a statement line of its own block."""
    config = facts.module.config_for_parsing
    line = _statement_slot(raw, expression)
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


def _simple_receiver(node: cst.CSTNode) -> bool:
    """A name or a chain of attributes on a name: evaluating it twice is harmless."""
    while isinstance(node, cst.Attribute):
        node = node.value
    return isinstance(node, cst.Name)


def plan_unflatten(raw: RawFinding, facts: FileFacts, template: dict, target: TargetRange) -> Plan:
    call: cst.Call | None = raw.site.call
    receiver = raw.site.receiver
    if raw.in_lambda_or_comprehension:
        return Plan(None, "no automatic fix inside a lambda or comprehension; rewrite it by hand")
    if call is None or call.func is not raw.node or receiver is None:
        return Plan(None, "no automatic fix: `_unflatten` is not called here")
    args = _bind_arguments(call, _UNFLATTEN_PARAMS)
    if args is None or not {"dim", "mesh_sizes", "mesh_dim_names"} <= set(args):
        return Plan(None, "no automatic fix: the call's arguments are not all given explicitly")
    reasons: list[str] = []
    origin, why = _proven_origin(raw, facts, call)
    if origin is None:
        reasons.append(why)
    scope = facts.scope_of(call)
    # The receiver is evaluated once: a call or subscript is bound to a fresh name first.
    if _simple_receiver(receiver):
        probe_receiver, receiver_name = receiver.deep_clone(), receiver
    else:
        temporary = cst.Name(facts.fresh("unflatten_receiver"))
        facts._taken.add(temporary.value)
        probe_receiver = cst.NamedExpr(temporary, receiver.deep_clone(),
                                       lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        receiver_name = temporary
    private_call = call.with_changes(func=call.func.with_changes(value=receiver_name)) \
        if receiver_name is not receiver else call
    dim = args["dim"].value
    dim_name = string_value(dim)
    if dim_name is not None and origin is not None and dim_name in origin.names:
        index = cst.Integer(str(origin.names.index(dim_name)))
        private_call = private_call.deep_replace(private_call.args[list(call.args).index(args["dim"])].value,
                                                 index)  # string dims raise in torch 2.10-2.11
        dim = index
    if not (isinstance(dim, cst.Integer) and dim.value == "0"):
        reasons.append("`dim` is not the literal 0")
    if origin is not None and origin.device is not None:
        device = origin.device.deep_clone()
    else:
        device = cst.Attribute(receiver_name.deep_clone(), cst.Name("device_type"))
        if origin is not None:
            reasons.append("the mesh's device argument may have changed; using `.device_type`")
    template_args = list(template["fallback-args"])
    slots = {"device": device, "sizes": args["mesh_sizes"].value.deep_clone(),
             "names": args["mesh_dim_names"].value.deep_clone()}
    if "backend_override" in args:
        if all(minor >= (2, 9) for minor in target.minors):
            template_args.append(template["fallback-backend-arg"])
            slots["backend"] = args["backend_override"].value.deep_clone()
        else:
            reasons.append("the fallback is built without `backend_override=` (`init_device_mesh` "
                           "takes it only from torch 2.9), so its groups use the default backend")
    # The fallback's callee: the very expression that made the receiver, else a binding the file
    # already has, else a local import just before the statement (never earlier than the file
    # imports torch, never shadowed by a later definition).
    prelude = None
    if origin is not None:
        callee: cst.BaseExpression = origin.call.func.deep_clone()
    else:
        existing = facts.reference(template["fallback-callee"], scope, module_loaded=True)
        if existing is not None:
            callee = cst.parse_expression(existing)
        else:
            local = "init_device_mesh" if "init_device_mesh" not in facts.names | facts._taken \
                else facts.fresh("init_device_mesh_public")
            facts._taken.add(local)
            module_path, name = template["fallback-callee"].rsplit(".", 1)
            text = f"from {module_path} import {name}" + (f" as {local}" if local != name else "")
            prelude = cst.parse_statement(text + "\n", facts.module.config_for_parsing)
            callee = cst.Name(local)
    fallback = _fallback_call(call, callee, template_args, slots)
    placed = _place(
        raw, facts, template, call,
        lambda line: {"receiver": probe_receiver,
                      "private": line.deep_replace(call, private_call).with_changes(leading_lines=()),
                      "fallback": line.deep_replace(call, fallback).with_changes(leading_lines=())},
        {"receiver": probe_receiver, "private": private_call, "fallback": fallback}, prelude)
    if placed is None:
        return Plan(None, "no automatic fix for this placement")
    applicability = UNSAFE if reasons else SAFE
    description = ("Probe `_unflatten`, fall back to `init_device_mesh` with the same sizes and names"
                   + (f" (unsafe: {'; '.join(reasons)})" if reasons else ""))
    return Plan(Fix(applicability, description, placed[0], placed[1],
                    raw.site.function, id(raw.statement or placed[0])))


def _alias_uses(module: cst.Module, name: str) -> tuple[set[str], bool]:
    """(attributes read as `name.X`, whether `name` is also used some other way)."""
    attributes: set[str] = set()
    other = [False]

    class Collect(cst.CSTVisitor):
        def visit_Attribute(self, node: cst.Attribute) -> bool:
            if isinstance(node.value, cst.Name) and node.value.value == name:
                attributes.add(node.attr.value)
                return False
            return True

        def visit_Import(self, node) -> bool:
            return False

        def visit_ImportFrom(self, node) -> bool:
            return False

        def visit_Name(self, node: cst.Name) -> None:
            if node.value == name:
                other[0] = True

    module.visit(Collect())
    return attributes, other[0]


def plan_import_probe(raw: RawFinding, facts: FileFacts, rule: Rule, template: dict,
                      target: TargetRange) -> Plan:
    statement = raw.site.import_statement
    line = raw.statement
    if raw.site.star or statement is None or not isinstance(line, cst.SimpleStatementLine) \
            or len(line.body) != 1:
        return Plan(None, "no automatic fix for this import form; import from "
                          f"`{rule.replacement}` by hand")
    used_module = raw.site.module or ".".join(dotted_parts(statement.names[0].name) or [])
    if not used_module.startswith(rule.api):
        return Plan(None, "no automatic fix: the import does not name the module directly")
    public_module = rule.replacement + used_module[len(rule.api):]
    if any(is_private(part) for part in public_module.split(".")):
        return Plan(None, f"no automatic fix: `{used_module}` has no public counterpart; import "
                          f"what `{rule.replacement}` exports from there instead")
    config = facts.module.config_for_parsing
    probe_names: cst.BaseStatement | None = None
    bare = False
    if isinstance(statement, cst.ImportFrom):
        names = [".".join(dotted_parts(a.name) or []) for a in statement.names]
        public = statement.with_changes(module=cst.parse_expression(public_module))
    else:
        if len(statement.names) != 1 or statement.names[0].asname is None:
            return Plan(None, "no automatic fix: only `import a._b as m` forms are rewritten")
        alias = statement.names[0].asname.name.value
        attributes, bare = _alias_uses(facts.module, alias)
        names = sorted(attributes)
        if not names:
            return Plan(None, f"no automatic fix: `{alias}` is used as a module, not through its "
                              f"names; import what you need from `{public_module}`")
        public = statement.with_changes(names=[statement.names[0].with_changes(
            name=cst.parse_expression(public_module))])
        # The public package may exist without the names (torch 2.4 has torch.distributed.tensor
        # without DTensor): the probe reads every name this file uses.
        probe_names = cst.parse_statement(", ".join(f"{alias}.{n}" for n in names) + "\n", config)
    proven = used_module == rule.api and names and set(names) <= set(rule.public_names) and not bare
    applicability = SAFE if proven else UNSAFE
    why = "" if proven else (" (unsafe: the module object itself is used, not only its names)" if bare
                             else " (unsafe: not every imported name is known to exist in the public module)")
    public_line = line.with_changes(body=[public], leading_lines=())
    if rule.replacement_since and all(minor >= rule.replacement_since for minor in target.minors):
        replacement = public_line.with_changes(leading_lines=line.leading_lines)
        description = f"Import from `{public_module}`{why}"
    else:
        if probe_names is None:
            text, slots = template["statement"], {"public": public_line,
                                                  "private": line.with_changes(leading_lines=())}
        else:
            text, slots = template["names-statement"], {
                "public": public_line, "names": probe_names,
                "private": line.with_changes(leading_lines=())}
        replacement = render_statement(text, slots, config).with_changes(leading_lines=line.leading_lines)
        description = f"Import from `{public_module}`, falling back to `{used_module}`{why}"
    return Plan(Fix(applicability, description, line, replacement, None, id(line)))


def _hasattr_chain(root: str, parts: list[str]) -> str:
    checks, owner = [], root
    for part in parts:
        checks.append(f'hasattr({owner}, "{part}")')
        owner = f"{owner}.{part}"
    return " and ".join(checks)


def _scripted(node: cst.CSTNode, facts: FileFacts) -> bool:
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


def _scripted_names(facts: FileFacts) -> set[str]:
    found: set[str] = set()

    class Collect(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            text = ".".join(dotted_parts(node.func) or [])
            if text.endswith("jit.script") and node.args and isinstance(node.args[0].value, cst.Name):
                found.add(node.args[0].value.value)

    facts.module.visit(Collect())
    return found


def _call_fits(call: cst.Call, params: tuple[str, ...]) -> bool:
    """The call passes only parameters the public twin takes too."""
    positional = [a for a in call.args if a.keyword is None]
    return not any(a.star for a in call.args) and len(positional) <= len(params) and all(
        a.keyword.value in params for a in call.args if a.keyword is not None)


def _use_context(node: cst.CSTNode, facts: FileFacts) -> str:
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


def _name_uses(facts: FileFacts, name: str) -> list[tuple[str, cst.CSTNode]]:
    uses: list[tuple[str, cst.CSTNode]] = []

    class Collect(cst.CSTVisitor):
        def visit_Import(self, node) -> bool:
            return False

        def visit_ImportFrom(self, node) -> bool:
            return False

        def visit_Attribute(self, node: cst.Attribute) -> bool:
            node.value.visit(self)
            return False

        def visit_Name(self, node: cst.Name) -> None:
            if node.value == name:
                uses.append((_use_context(node, facts), node))

    facts.module.visit(Collect())
    return uses


def _twin_limits(rule: Rule, uses: list[tuple[str, cst.CSTNode]], facts: FileFacts) -> tuple[str | None, str | None]:
    """(why there must be no fix, why the fix is unsafe) for these uses of the private API."""
    public = rule.replacement
    unsafe = None
    for context, node in uses:
        if rule.replacement_relation == "subclass":
            if context != "base":
                return (f"`{rule.api.rsplit('.', 1)[-1]}` is a subclass of `{public}`, not an alias: "
                        "replacing it here changes which objects match", None)
            unsafe = ("instances of the class are no longer instances of "
                      f"`{rule.api.rsplit('.', 1)[-1]}`")
        elif rule.equivalent_params:
            if context == "call":
                call = facts.parents[id(node)]
                if not _call_fits(call, rule.equivalent_params):
                    extra = [a.keyword.value for a in call.args
                             if a.keyword is not None and a.keyword.value not in rule.equivalent_params]
                    return (f"`{public}` takes no {', '.join(f'`{e}=`' for e in extra) or 'such arguments'}", None)
            elif context != "decorator":
                unsafe = (f"`{public}` takes only {', '.join(rule.equivalent_params)}: calls through "
                          "this reference must pass nothing else")
    return None, unsafe


def plan_public_twin(raw: RawFinding, facts: FileFacts, rule: Rule, template: dict,
                     target: TargetRange) -> Plan:
    direct = rule.replacement_since is not None and all(
        minor >= rule.replacement_since for minor in target.minors)
    reasons = [] if rule.equivalent else [_not_equivalent(rule)]
    public_module, public_name = rule.replacement.rsplit(".", 1)
    alias = raw.site.import_alias
    line = raw.statement
    config = facts.module.config_for_parsing
    if alias is not None:  # `from owner import _private [as x]`
        statement = raw.site.import_statement
        if rule.replacement_form == "value":
            return Plan(None, f"no automatic fix: `{rule.api.rsplit('.', 1)[-1]}` is a function and "
                              f"`{rule.replacement}` a value; import the public one by hand")
        if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1 \
                or len(statement.names) != 1:
            return Plan(None, "no automatic fix: split the import into one name per line first")
        bound = alias.asname.name.value if alias.asname else alias.name.value
        forbidden, unsafe = _twin_limits(rule, _name_uses(facts, bound), facts)
        if forbidden:
            return Plan(None, f"no automatic fix: {forbidden}")
        if unsafe:
            reasons.append(unsafe)
        text = f"from {public_module} import {public_name}" + (
            f" as {bound}" if bound != public_name else "")
        public_line = line.with_changes(body=[cst.parse_statement(text, config).body[0]],
                                        leading_lines=())
        if direct:
            replacement = public_line.with_changes(leading_lines=line.leading_lines)
        else:
            replacement = render_statement(
                template["import-statement"],
                {"public": public_line, "private": line.with_changes(leading_lines=())},
                config).with_changes(leading_lines=line.leading_lines)
        return Plan(Fix(UNSAFE if reasons else SAFE,
                        f"Import `{public_name}` from `{public_module}`" + _unsafe_note(reasons),
                        line, replacement, raw.site.function, id(line)))
    chain = raw.node
    parts = dotted_parts(chain)
    used = raw.site.used_path
    if not parts or not used:
        return Plan(None, f"no automatic fix: use `{rule.replacement}` instead")
    root_path = used[: len(used) - len(".".join(parts[1:]))].rstrip(".")
    if not rule.replacement.startswith(root_path + "."):
        return Plan(None, f"no automatic fix: nothing imported here reaches `{rule.replacement}`")
    rest = rule.replacement[len(root_path) + 1:].split(".")
    public_expr = cst.parse_expression(".".join([parts[0]] + rest), config)
    call = raw.site.call
    forbidden, unsafe = _twin_limits(rule, [(_use_context(chain, facts), chain)], facts)
    if forbidden:
        return Plan(None, f"no automatic fix: {forbidden}")
    if unsafe:
        reasons.append(unsafe)
    if rule.replacement_form == "value":
        if call is None or call.args:
            return Plan(None, f"no automatic fix: use `{rule.replacement}` instead")
        target_node, public_node = call, public_expr
    else:
        target_node, public_node = chain, public_expr
    description = f"Use `{rule.replacement}`"
    applicability = UNSAFE if reasons else SAFE
    if direct:
        return Plan(Fix(applicability, description + _unsafe_note(reasons), target_node, public_node,
                        raw.site.function, id(line or target_node)))
    if raw.in_lambda_or_comprehension:
        return Plan(None, "no automatic fix inside a lambda or comprehension; rewrite it by hand")
    if _scripted(chain, facts):
        return Plan(None, "no automatic fix inside TorchScript: a `hasattr` probe does not script; "
                          f"use `{rule.replacement}` once every torch you support has it")
    probe = cst.parse_expression(_hasattr_chain(parts[0], rest), config)
    whole = call if (call is not None and rule.replacement_form == "callee"
                     and call.func is chain) else target_node
    placed = _place(
        raw, facts, template, whole,
        lambda statement: {"probe": probe,
                           "public": statement.deep_replace(target_node, public_node)
                           .with_changes(leading_lines=()),
                           "private": statement.with_changes(leading_lines=())},
        {"probe": probe, "public": whole.deep_replace(target_node, public_node)
         if whole is not target_node else public_node, "private": whole})
    if placed is None:
        return Plan(None, f"no automatic fix: use `{rule.replacement}` instead")
    return Plan(Fix(applicability, description + " where the build has it" + _unsafe_note(reasons),
                    placed[0], placed[1], raw.site.function, id(line or placed[0])))


def _not_equivalent(rule: Rule) -> str:
    if rule.replacement_form == "value":
        return (f"`{rule.api.rsplit('.', 1)[-1]}()` raises where `{rule.replacement}` is None "
                "(no process group initialized)")
    return f"`{rule.replacement}` is not proven to behave like `{rule.api}`"


def _unsafe_note(reasons: list[str]) -> str:
    return f" (unsafe: {'; '.join(reasons)})" if reasons else ""


def plan(raw: RawFinding, facts: FileFacts, catalog: Catalog, target: TargetRange) -> Plan:
    rule = raw.rule
    if not rule.fix:
        return Plan(None)
    template = catalog.templates[rule.fix].data
    if rule.fix == "unflatten-probe":
        return plan_unflatten(raw, facts, template, target)
    if rule.fix == "import-probe":
        return plan_import_probe(raw, facts, rule, template, target)
    if rule.fix == "public-twin-probe":
        return plan_public_twin(raw, facts, rule, template, target)
    return Plan(None)
