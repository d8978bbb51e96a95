"""Plan a fix for a finding: which template, where it goes, and whether it is safe.

A fix is *safe* only where privlint can prove the rewrite equivalent (see the README and
shared mesh semantics: the `init_device_mesh` fallback for `_unflatten` is right only for a
1-D mesh over the whole world). Anything else is *unsafe*: applied only with
`--unsafe-fixes`, and to be confirmed at run time with `privlint verify`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from privlint.catalog import Catalog, Rule
from privlint.detect import RawFinding
from privlint.resolve import dotted_parts, string_value
from privlint.templates import render_expression, render_statement, split_argument
from privlint.versions import TargetRange

SAFE, UNSAFE = "safe", "unsafe"
_STATEMENT_VALUES = (cst.Assign, cst.AnnAssign, cst.Return, cst.Expr)
_UNFLATTEN_PARAMS = ("dim", "mesh_sizes", "mesh_dim_names", "backend_override")


@dataclass
class Fix:
    applicability: str
    description: str
    target: cst.CSTNode  # the node to replace (a statement line, an import, an expression)
    replacement: cst.CSTNode
    imports: tuple[tuple[str, str], ...] = ()  # (module, name) pairs the new code needs
    verify_function: cst.FunctionDef | None = None  # for the `privlint verify` hint
    statement_key: int = 0  # one fix per statement per pass


@dataclass
class Plan:
    fix: Fix | None
    note: str = ""  # why there is no fix, when there is none


@dataclass
class FileFacts:
    """What fix planning needs to know about the whole file."""

    module: cst.Module
    imported: dict[tuple[str, str], str] = field(default_factory=dict)  # (module, name) -> local
    module_aliases: dict[str, str] = field(default_factory=dict)      # module path -> local

    @classmethod
    def of(cls, module: cst.Module) -> "FileFacts":
        facts = cls(module)
        for statement in module.body:
            if not isinstance(statement, cst.SimpleStatementLine):
                continue
            for small in statement.body:
                if isinstance(small, cst.ImportFrom) and small.module is not None and not small.relative \
                        and not isinstance(small.names, cst.ImportStar):
                    source = ".".join(dotted_parts(small.module) or [])
                    for alias in small.names:
                        name = ".".join(dotted_parts(alias.name) or [])
                        local = alias.asname.name.value if alias.asname else name
                        facts.imported[(source, name)] = local
                elif isinstance(small, cst.Import):
                    for alias in small.names:
                        path = ".".join(dotted_parts(alias.name) or [])
                        if alias.asname:
                            facts.module_aliases[path] = alias.asname.name.value
        return facts

    def reference(self, path: str) -> tuple[str, tuple[tuple[str, str], ...]]:
        """How to name `path` here: an existing import, or a new `from module import name`."""
        module, name = path.rsplit(".", 1)
        if (module, name) in self.imported:
            return self.imported[(module, name)], ()
        if module in self.module_aliases:
            return f"{self.module_aliases[module]}.{name}", ()
        return name, ((module, name),)


def _code(module: cst.Module, node: cst.CSTNode) -> str:
    return module.code_for_node(node)


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


def _origin_facts(raw: RawFinding) -> tuple[cst.Call, bool, tuple[str, ...] | None] | None:
    """For a receiver made here by init_device_mesh: (call, is 1-D, its literal dim names)."""
    binding = raw.context.get("binding")
    if binding is None or binding.origin is None or not raw.context.get("local"):
        return None
    call, _ = binding.origin
    if (dotted_parts(call.func) or [""])[-1] != "init_device_mesh":
        return None
    args = _bind_arguments(call, ("device_type", "mesh_shape", "mesh_dim_names", "backend_override"))
    if args is None or "mesh_shape" not in args:
        return None
    shape = args["mesh_shape"].value
    one_dim = isinstance(shape, (cst.Tuple, cst.List)) and len(shape.elements) == 1 \
        and not isinstance(shape.elements[0], cst.StarredElement)
    names = None
    if "mesh_dim_names" in args and isinstance(args["mesh_dim_names"].value, (cst.Tuple, cst.List)):
        values = [string_value(e.value) for e in args["mesh_dim_names"].value.elements]
        names = tuple(values) if all(values) else None  # type: ignore[arg-type]
    return call, one_dim, names


def _fallback_call(call: cst.Call, callee: str, template_args: list[str],
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
    return call.with_changes(func=cst.parse_expression(callee), args=new_args)


def _place(raw: RawFinding, facts: FileFacts, template: dict, expression: cst.CSTNode,
           statement_slots: dict, expression_slots: dict) -> tuple[cst.CSTNode, cst.CSTNode] | None:
    """(target, replacement): the statement template where it fits, else the expression one."""
    config = facts.module.config_for_parsing
    line = _statement_slot(raw, expression)
    if line is not None and "statement" in template:
        rendered = render_statement(template["statement"], statement_slots(line), config)
        return line, rendered.with_changes(leading_lines=line.leading_lines)
    if "expression" in template:
        return expression, render_expression(template["expression"], expression_slots, config)
    return None


def plan_unflatten(raw: RawFinding, facts: FileFacts, template: dict, target: TargetRange) -> Plan:
    call: cst.Call | None = raw.context.get("call")
    receiver = raw.context.get("receiver")
    if raw.in_lambda_or_comprehension:
        return Plan(None, "no automatic fix inside a lambda or comprehension; rewrite it by hand")
    if call is None or call.func is not raw.node or receiver is None:
        return Plan(None, "no automatic fix: `_unflatten` is not called here")
    args = _bind_arguments(call, _UNFLATTEN_PARAMS)
    if args is None or not {"dim", "mesh_sizes", "mesh_dim_names"} <= set(args):
        return Plan(None, "no automatic fix: the call's arguments are not all given explicitly")
    reasons: list[str] = []
    origin = _origin_facts(raw)
    if origin is None or not origin[1]:
        reasons.append("the receiver is not proven to be a 1-D mesh over the whole world "
                       "made by `init_device_mesh` in this function")
    private_call = call
    dim = args["dim"].value
    dim_name = string_value(dim)
    if dim_name is not None and origin is not None and origin[2] and dim_name in origin[2]:
        index = cst.Integer(str(origin[2].index(dim_name)))
        private_call = call.deep_replace(dim, index)  # string dims raise in torch 2.10-2.11
        dim = index
    if string_value(dim) is not None:
        # The probe alone would not help: a string dim raises in 2.10-2.11, which have the member.
        return Plan(None, "no automatic fix: pass `dim` as an int (a string dim raises in torch "
                          "2.10–2.11), which privlint cannot find from the receiver here")
    if not (isinstance(dim, cst.Integer) and dim.value == "0"):
        reasons.append("`dim` is not the literal 0")
    if origin is not None and raw.context.get("device_fresh"):
        device = origin[0].args[0].value.deep_clone()
    else:
        device = cst.Attribute(receiver.deep_clone(), cst.Name("device_type"))
        if origin is not None:
            reasons.append("the mesh's device argument may have changed; using `.device_type`")
    template_args = list(template["fallback-args"])
    slots = {"device": device, "sizes": args["mesh_sizes"].value.deep_clone(),
             "names": args["mesh_dim_names"].value.deep_clone()}
    if "backend_override" in args:
        template_args.append(template["fallback-backend-arg"])
        slots["backend"] = args["backend_override"].value.deep_clone()
        if any(minor < (2, 9) for minor in target.minors):
            reasons.append("`backend_override=` reaches `init_device_mesh` only in torch 2.9+")
    callee, imports = facts.reference(template["fallback-callee"])
    fallback = _fallback_call(call, callee, template_args, slots)
    placed = _place(
        raw, facts, template, call,
        lambda line: {"receiver": receiver.deep_clone(),
                      "private": line.deep_replace(call, private_call).with_changes(leading_lines=()),
                      "fallback": line.deep_replace(call, fallback).with_changes(leading_lines=())},
        {"receiver": receiver.deep_clone(), "private": private_call, "fallback": fallback})
    if placed is None:
        return Plan(None, "no automatic fix for this placement")
    applicability = UNSAFE if reasons else SAFE
    description = ("Probe `_unflatten`, fall back to `init_device_mesh` with the same sizes and names"
                   + (f" (unsafe: {'; '.join(reasons)})" if reasons else ""))
    return Plan(Fix(applicability, description, placed[0], placed[1], imports,
                    raw.context.get("function"), id(raw.statement or placed[0])))


def plan_import_probe(raw: RawFinding, facts: FileFacts, rule: Rule, template: dict,
                      target: TargetRange) -> Plan:
    statement = raw.context.get("statement_node")
    line = raw.statement
    if raw.context.get("star") or statement is None or not isinstance(line, cst.SimpleStatementLine) \
            or len(line.body) != 1:
        return Plan(None, "no automatic fix for this import form; import from "
                          f"`{rule.replacement}` by hand")
    used_module = raw.context.get("module") or ".".join(dotted_parts(statement.names[0].name) or [])
    if not used_module.startswith(rule.api):
        return Plan(None, "no automatic fix: the import does not name the module directly")
    public_module = rule.replacement + used_module[len(rule.api):]
    if isinstance(statement, cst.ImportFrom):
        names = [".".join(dotted_parts(a.name) or []) for a in statement.names]
        public = statement.with_changes(module=cst.parse_expression(public_module))
    else:
        if len(statement.names) != 1 or statement.names[0].asname is None:
            return Plan(None, "no automatic fix: only `import a._b as m` forms are rewritten")
        alias = statement.names[0].asname.name.value
        names = sorted(_attributes_of(facts.module, alias))
        public = statement.with_changes(names=[statement.names[0].with_changes(
            name=cst.parse_expression(public_module))])
    proven = used_module == rule.api and names and set(names) <= set(rule.public_names)
    applicability = SAFE if proven else UNSAFE
    why = "" if proven else " (unsafe: not every imported name is known to exist in the public module)"
    public_line = line.with_changes(body=[public], leading_lines=())
    if rule.replacement_since and all(minor >= rule.replacement_since for minor in target.minors):
        replacement = public_line.with_changes(leading_lines=line.leading_lines)
        description = f"Import from `{public_module}`{why}"
    else:
        replacement = render_statement(template["statement"], {
            "public": public_line, "private": line.with_changes(leading_lines=())},
            facts.module.config_for_parsing).with_changes(leading_lines=line.leading_lines)
        description = f"Import from `{public_module}`, falling back to `{used_module}`{why}"
    return Plan(Fix(applicability, description, line, replacement, (), None, id(line)))


def _attributes_of(module: cst.Module, name: str) -> set[str]:
    found: set[str] = set()

    class Collect(cst.CSTVisitor):
        def visit_Attribute(self, node: cst.Attribute) -> None:
            if isinstance(node.value, cst.Name) and node.value.value == name:
                found.add(node.attr.value)

    module.visit(Collect())
    return found


def _hasattr_chain(root: str, parts: list[str]) -> str:
    checks, owner = [], root
    for part in parts:
        checks.append(f'hasattr({owner}, "{part}")')
        owner = f"{owner}.{part}"
    return " and ".join(checks)


def plan_public_twin(raw: RawFinding, facts: FileFacts, rule: Rule, template: dict,
                     target: TargetRange) -> Plan:
    direct = rule.replacement_since is not None and all(
        minor >= rule.replacement_since for minor in target.minors)
    applicability = SAFE if rule.equivalent else UNSAFE
    public_module, public_name = rule.replacement.rsplit(".", 1)
    alias = raw.context.get("alias")
    line = raw.statement
    config = facts.module.config_for_parsing
    if alias is not None:  # `from owner import _private [as x]`
        statement = raw.context["statement_node"]
        if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1 \
                or len(statement.names) != 1:
            return Plan(None, "no automatic fix: split the import into one name per line first")
        bound = alias.asname.name.value if alias.asname else alias.name.value
        text = f"from {public_module} import {public_name}" + (
            f" as {bound}" if bound != public_name else "")
        public_line = line.with_changes(body=[cst.parse_statement(text, config).body[0]],
                                        leading_lines=())
        if direct:
            replacement = public_line.with_changes(leading_lines=line.leading_lines)
        else:
            replacement = render_statement(
                "try:\n    {public}\nexcept ImportError:\n    {private}\n",
                {"public": public_line, "private": line.with_changes(leading_lines=())},
                config).with_changes(leading_lines=line.leading_lines)
        return Plan(Fix(applicability, f"Import `{public_name}` from `{public_module}`", line,
                        replacement, (), None, id(line)))
    chain = raw.node
    parts = dotted_parts(chain)
    used = raw.context.get("used_path", "")
    if not parts or not used:
        return Plan(None, f"no automatic fix: use `{rule.replacement}` instead")
    root_path = used[: len(used) - len(".".join(parts[1:]))].rstrip(".")
    if not rule.replacement.startswith(root_path + "."):
        return Plan(None, f"no automatic fix: nothing imported here reaches `{rule.replacement}`")
    rest = rule.replacement[len(root_path) + 1:].split(".")
    public_expr = cst.parse_expression(".".join([parts[0]] + rest), config)
    call = raw.context.get("call")
    if rule.replacement_form == "value":
        if call is None or call.args:
            return Plan(None, f"no automatic fix: use `{rule.replacement}` instead")
        target_node, public_node = call, public_expr
    else:
        target_node, public_node = chain, public_expr
    description = f"Use `{rule.replacement}`"
    if direct:
        return Plan(Fix(applicability, description, target_node, public_node, (), None,
                        id(line or target_node)))
    if raw.in_lambda_or_comprehension:
        return Plan(None, "no automatic fix inside a lambda or comprehension; rewrite it by hand")
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
    return Plan(Fix(applicability, description + " where the build has it", placed[0], placed[1],
                    (), None, id(line or placed[0])))


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
