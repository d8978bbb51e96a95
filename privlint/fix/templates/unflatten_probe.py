"""`_unflatten` → probe it, fall back to `init_device_mesh` with the same sizes and names.

Safe only where the receiver provably is a named 1-D world mesh (see `_proven_origin` and the
README); golden cases: tests/fixtures/fix/unflatten_*.in.py / .out.py and seed_*.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from privlint.detect import RawFinding
from privlint.fix.facts import FileFacts, bind_arguments, place
from privlint.fix.model import SAFE, UNSAFE, Fix, Plan, register
from privlint.fix.render import split_argument
from privlint.fix.scopes import top_statement
from privlint.resolve import dotted_parts, string_value
from privlint.versions import TargetRange

TEMPLATE = {
    "statement": '''
if hasattr({receiver}, "_unflatten"):
    {private}
else:
    {fallback}
''',
    "expression": '({private} if hasattr({receiver}, "_unflatten") else {fallback})',
    # The fallback call, argument by argument; it keeps the original call's layout.
    "fallback-callee": "torch.distributed.device_mesh.init_device_mesh",
    "fallback-args": ["{device}", "mesh_shape={sizes}", "mesh_dim_names={names}"],
    "fallback-backend-arg": "backend_override={backend}",
}
_UNFLATTEN_PARAMS = ("dim", "mesh_sizes", "mesh_dim_names", "backend_override")


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
    found, escapes = facts.bindings(scope, receiver.value)
    places = facts.statement_index(scope)
    use = top_statement(call, places, facts.parents)
    if escapes or len(found) != 1 or found[0].kind != "assign" or found[0].statement is None \
            or found[0].node.value is not origin_call or use is None \
            or places[id(found[0].statement)] >= places[id(use)]:
        return None, ("the receiver is not bound exactly once, by `init_device_mesh`, at the top of "
                      "this function before the call (a branch, loop or later assignment may "
                      "give it another mesh)")
    args = bind_arguments(origin_call, ("device_type", "mesh_shape", "mesh_dim_names", "backend_override"))
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
        inner, inner_escapes = facts.bindings(scope, callee_root)
        if inner or inner_escapes:
            return None, f"`{callee_root}` is bound in this function: the fallback cannot reuse it"
    outer, outer_escapes = facts.bindings(facts.module, callee_root)
    if outer_escapes or any(b.kind != "import" for b in outer):
        return None, (f"`{callee_root}` is bound by more than imports in this file: the fallback "
                      "cannot reuse it")
    device = args["device_type"].value
    fresh_device: cst.BaseExpression | None = None
    if isinstance(device, cst.SimpleString):
        fresh_device = device
    elif isinstance(device, cst.Name) and isinstance(scope, cst.FunctionDef):
        device_bindings, device_escapes = facts.bindings(scope, device.value)
        if not device_escapes and [b.kind for b in device_bindings] == ["param"]:
            fresh_device = device
    return _Origin(origin_call, names, fresh_device), ""


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


def _simple_receiver(node: cst.CSTNode) -> bool:
    """A name or a chain of attributes on a name: evaluating it twice is harmless."""
    while isinstance(node, cst.Attribute):
        node = node.value
    return isinstance(node, cst.Name)


@register("unflatten-probe")
def plan_unflatten(raw: RawFinding, facts: FileFacts, target: TargetRange) -> Plan:
    template = TEMPLATE
    call: cst.Call | None = raw.site.call
    receiver = raw.site.receiver
    if raw.in_lambda_or_comprehension:
        return Plan(None, "no automatic fix inside a lambda or comprehension; rewrite it by hand")
    if call is None or call.func is not raw.node or receiver is None:
        return Plan(None, "no automatic fix: `_unflatten` is not called here")
    args = bind_arguments(call, _UNFLATTEN_PARAMS)
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
    if string_value(dim) is not None:
        # A probe alone would not help: a string dim raises in 2.10-2.11, which have the member
        # (and the re-check would flag the probed call again, so the fix would never settle).
        return Plan(None, "no automatic fix: pass `dim` as an int (a string dim raises in torch "
                          "2.10–2.11), which privlint cannot find from the receiver here")
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
            local = facts.reserve("init_device_mesh")
            module_path, name = template["fallback-callee"].rsplit(".", 1)
            text = f"from {module_path} import {name}" + (f" as {local}" if local != name else "")
            prelude = cst.parse_statement(text + "\n", facts.module.config_for_parsing)
            callee = cst.Name(local)
    fallback = _fallback_call(call, callee, template_args, slots)
    placed = place(
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
