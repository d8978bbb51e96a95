"""A private module with a public home → import from the public home first, the private path on
older torch. Golden cases: tests/fixtures/fix/import_*.in.py / .out.py."""

from __future__ import annotations

import libcst as cst

from privlint.detect import RawFinding
from privlint.fix.facts import FileFacts
from privlint.fix.model import SAFE, UNSAFE, Fix, Plan, register
from privlint.fix.render import render_statement
from privlint.resolve import dotted_parts
from privlint.versions import TargetRange
from privlint.walk import walk

TEMPLATE = {
    "statement": '''
try:
    {public}
except ImportError:
    {private}
''',
    # `import a._b as m`: the public package may exist without the names (torch 2.4 has
    # torch.distributed.tensor without DTensor), so the probe also reads every name the file uses.
    "names-statement": '''
try:
    {public}
    {names}
except (ImportError, AttributeError):
    {private}
''',
}


def _alias_uses(module: cst.Module, name: str) -> tuple[set[str], bool]:
    """(attributes read as `name.X`, whether `name` is also used some other way)."""
    collect = _AliasUses(name)
    walk(module, collect)
    return collect.attributes, collect.other


class _AliasUses(cst.CSTVisitor):
    def __init__(self, name: str) -> None:
        self.name = name
        self.attributes: set[str] = set()
        self.other = False

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        if isinstance(node.value, cst.Name) and node.value.value == self.name:
            self.attributes.add(node.attr.value)
            return False
        return True

    def visit_Import(self, node) -> bool:
        return False

    def visit_ImportFrom(self, node) -> bool:
        return False

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == self.name:
            self.other = True


def reads_beyond(raw: RawFinding, target: TargetRange) -> tuple[str, ...]:
    """The plan reads the import and the rule, and for `import a._b as m` every use of `m`."""
    statement = raw.site.import_statement
    if isinstance(statement, cst.Import) and len(statement.names) == 1 \
            and statement.names[0].asname is not None:
        return (statement.names[0].asname.name.value,)
    return ()


@register("import-probe", reads_beyond)
def plan_import_probe(raw: RawFinding, facts: FileFacts, target: TargetRange) -> Plan:
    rule, template = raw.rule, TEMPLATE
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
    if used_module != rule.api:
        # Only the package's own public home is known: `_composable.fsdp.fully_shard` would become
        # `fsdp.fully_shard`, a function there, not a module; `fsdp._fully_shard` is private still.
        return Plan(None, f"no automatic fix: `{public_module}` is not known to be a public module; "
                          f"import what you need from `{rule.replacement}`")
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
