"""A private API with a public twin → the public one, directly where every supported torch has it,
else behind a `hasattr` probe. Golden cases: tests/fixtures/fix/public_twins*.in.py / .out.py."""

from __future__ import annotations

import libcst as cst

from privlint.catalog import Rule
from privlint.detect import RawFinding
from privlint.fix.facts import FileFacts, name_uses, place, scripted, use_context
from privlint.fix.model import SAFE, UNSAFE, Fix, Plan, register, unsafe_note
from privlint.fix.render import render_statement
from privlint.resolve import dotted_parts
from privlint.versions import TargetRange

TEMPLATE = {
    "statement": '''
if {probe}:
    {public}
else:
    {private}
''',
    "expression": '({public} if {probe} else {private})',
    # `from owner import _private`: the public name imported under the same local name.
    "import-statement": '''
try:
    {public}
except ImportError:
    {private}
''',
}


def _hasattr_chain(root: str, parts: list[str]) -> str:
    checks, owner = [], root
    for part in parts:
        checks.append(f'hasattr({owner}, "{part}")')
        owner = f"{owner}.{part}"
    return " and ".join(checks)


def _call_fits(call: cst.Call, params: tuple[str, ...]) -> bool:
    """The call passes only parameters the public twin takes too."""
    positional = [a for a in call.args if a.keyword is None]
    return not any(a.star for a in call.args) and len(positional) <= len(params) and all(
        a.keyword.value in params for a in call.args if a.keyword is not None)


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


def _direct(rule: Rule, target: TargetRange) -> bool:
    """Every supported torch has the public twin: it replaces the private API outright."""
    return rule.replacement_since is not None and all(
        minor >= rule.replacement_since for minor in target.minors)


def reads_beyond(raw: RawFinding, target: TargetRange) -> tuple[str, ...]:
    """An import's plan reads every use of the name it binds (`_twin_limits`); a use's plan
    behind a probe asks whether TorchScript compiles its function, which a `jit.script(f)`
    call anywhere in the file may say (`scripted`)."""
    alias = raw.site.import_alias
    if alias is not None:
        return ((alias.asname.name if alias.asname else alias.name).value,)
    return () if _direct(raw.rule, target) else ("jit",)


@register("public-twin-probe", reads_beyond)
def plan_public_twin(raw: RawFinding, facts: FileFacts, target: TargetRange) -> Plan:
    rule, template = raw.rule, TEMPLATE
    direct = _direct(rule, target)
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
        forbidden, unsafe = _twin_limits(rule, name_uses(facts, bound), facts)
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
                        f"Import `{public_name}` from `{public_module}`" + unsafe_note(reasons),
                        line, replacement, None, id(line)))
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
    forbidden, unsafe = _twin_limits(rule, [(use_context(chain, facts), chain)], facts)
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
        return Plan(Fix(applicability, description + unsafe_note(reasons), target_node, public_node,
                        None, id(line or target_node)))
    if raw.in_lambda_or_comprehension:
        return Plan(None, "no automatic fix inside a lambda or comprehension; rewrite it by hand")
    if scripted(chain, facts):
        return Plan(None, "no automatic fix inside TorchScript: a `hasattr` probe does not script; "
                          f"use `{rule.replacement}` once every torch you support has it")
    probe = cst.parse_expression(_hasattr_chain(parts[0], rest), config)
    whole = call if (call is not None and rule.replacement_form == "callee"
                     and call.func is chain) else target_node
    placed = place(
        raw, facts, template, whole,
        lambda statement: {"probe": probe,
                           "public": statement.deep_replace(target_node, public_node)
                           .with_changes(leading_lines=()),
                           "private": statement.with_changes(leading_lines=())},
        {"probe": probe, "public": whole.deep_replace(target_node, public_node)
         if whole is not target_node else public_node, "private": whole})
    if placed is None:
        return Plan(None, f"no automatic fix: use `{rule.replacement}` instead")
    return Plan(Fix(applicability, description + " where the build has it" + unsafe_note(reasons),
                    placed[0], placed[1], None, id(line or placed[0])))


def _not_equivalent(rule: Rule) -> str:
    if rule.replacement_form == "value":
        return (f"`{rule.api.rsplit('.', 1)[-1]}()` raises where `{rule.replacement}` is None "
                "(no process group initialized)")
    return f"`{rule.replacement}` is not proven to behave like `{rule.api}`"
