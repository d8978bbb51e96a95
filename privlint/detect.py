"""Find private torch API uses in one parsed module, and judge the guards around each.

One walk over the libcst tree, in source order. The Resolver (resolve.py) keeps track of
what names mean; this visitor keeps track of the guards in force (guards.py reads each
condition) and reports every private use the catalog covers that no guard protects.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from privlint.catalog import Catalog, Rule, is_private
from privlint.guards import (ATTRIBUTE, IMPORT, Facts, Guard, caught_kinds, condition_facts,
                             ends_in_exit, is_type_checking)
from privlint.tracking import ScopeTracking, bind_import, prebind_module_imports
from privlint.walk import walk
from privlint.resolve import (INSTANCE, PATH, UNKNOWN,
                              Binding, Resolver, dotted_parts, string_value)

_BLOCKS = (cst.Module, cst.IndentedBlock, cst.SimpleStatementSuite)
_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)


@dataclass(frozen=True)
class Site:
    """Where a finding sits in the code: what a fix planner needs, and nothing computed for it."""

    call: cst.Call | None = None                 # the call whose callee is the finding's node
    receiver: cst.BaseExpression | None = None   # a member's object: `recv` in `recv._x`
    binding: Binding | None = None               # what the resolver knows the receiver to be
    import_statement: cst.Import | cst.ImportFrom | None = None
    import_alias: cst.ImportAlias | None = None  # `from m import _x [as y]`: that name
    module: str = ""                             # the module a from-import names
    star: bool = False                           # `from m import *`
    used_path: str = ""                          # the dotted path an attribute use resolves to
    function: cst.FunctionDef | None = None      # the innermost enclosing function


@dataclass
class RawFinding:
    node: cst.CSTNode
    rule: Rule
    api: str
    version_gated: bool
    statement: cst.CSTNode | None  # the statement line holding the node
    in_lambda_or_comprehension: bool = False
    site: Site = field(default_factory=Site)


class Detector(ScopeTracking, cst.CSTVisitor):
    def __init__(self, catalog: Catalog) -> None:
        super().__init__()
        self.catalog = catalog
        self.findings: list[RawFinding] = []
        self.resolver = Resolver(self.catalog)
        self._regions: dict[int, list[Guard]] = {}
        self._active: list[Guard] = []
        self._blocks: list[list[Guard]] = []
        self._statements: list[cst.CSTNode] = []
        self._handled_imports: list[tuple[str, str]] = []  # (private path imported, rule code)
        self._expression_scopes = 0
        self._calls: dict[int, cst.Call] = {}  # id(callee) -> the call, for fixes
        self._functions: list[cst.FunctionDef] = []

    # -- regions and blocks ----------------------------------------------------------------
    def _region(self, node: cst.CSTNode | None, guard: Guard) -> None:
        if node is not None:
            self._regions.setdefault(id(node), []).append(guard)

    def on_visit(self, node: cst.CSTNode) -> bool:
        self._active.extend(self._regions.get(id(node), ()))
        if isinstance(node, _BLOCKS):
            self._blocks.append([])
        elif isinstance(node, cst.SimpleStatementLine):
            self._statements.append(node)
        return super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        super().on_leave(original_node)
        if isinstance(original_node, _BLOCKS):
            self._blocks.pop()
        elif isinstance(original_node, cst.SimpleStatementLine):
            self._statements.pop()
        regions = self._regions.pop(id(original_node), ())
        if regions:
            del self._active[-len(regions):]

    def _guards(self):
        yield from self._active
        for block in self._blocks:
            yield from block

    def _facts(self, node: cst.BaseExpression) -> Facts:
        return condition_facts(node, self.resolver.lookup)

    # -- reporting -------------------------------------------------------------------------
    def _report(self, node: cst.CSTNode, rule: Rule, api: str, failure: str, **site) -> None:
        parts = api.split(".")
        rule_private = [i for i, p in enumerate(rule.api.rstrip("*").split(".")) if is_private(p)]
        start = rule_private[-1] if rule_private and rule.kind != "generic" else 0
        # A guard must probe the rule's own private component or something reached through it.
        names = set(parts[start:]) if start < len(parts) else {p for p in parts if is_private(p)}
        public = rule.replacement.rsplit(".", 1)[-1] if rule.replacement else ""
        gated = False
        for guard in self._guards():
            if guard.exempt or names & guard.present or failure in guard.catches:
                return
            if public and public in guard.probed_public:
                return
            gated = gated or guard.version
        statement = self._statements[-1] if self._statements else None
        site.setdefault("call", self._calls.get(id(node)))
        site.setdefault("function", self._functions[-1] if self._functions else None)
        self.findings.append(RawFinding(node, rule, api, gated, statement,
                                        self._expression_scopes > 0, Site(**site)))

    def _already_handled(self, path: str, rule: Rule) -> bool:
        for prefix, code in self._handled_imports:
            if code == rule.code and (path == prefix or path.startswith(prefix + ".")):
                return True
        return False

    # -- imports ---------------------------------------------------------------------------
    def _import_path(self, node: cst.CSTNode, path: str) -> None:
        if not path.startswith("torch.") or not any(is_private(p) for p in path.split(".")):
            return
        matched = self.catalog.match(path)
        if matched is None:
            return
        rule, api = matched
        self._handled_imports.append((path, rule.code))
        self._report(node, rule, api, IMPORT, import_statement=self._import_statement)

    def visit_Import(self, node: cst.Import) -> bool:
        self._import_statement = node
        bind_import(self.resolver, node)
        for alias in node.names:
            parts = dotted_parts(alias.name)
            if parts:
                self._import_path(alias, ".".join(parts))
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        self._import_statement = node
        bind_import(self.resolver, node)
        parts = dotted_parts(node.module) if node.module is not None and not node.relative else None
        names = [] if isinstance(node.names, cst.ImportStar) else list(node.names)
        if not parts:
            return False
        module = ".".join(parts)
        module_private = module.startswith("torch.") and any(is_private(p) for p in parts)
        module_match = self.catalog.match(module) if module_private else None
        if module_match is not None:
            self._handled_imports.append((module, module_match[0].code))
        statement_reported = False
        for alias in names:
            name_parts = dotted_parts(alias.name)
            if not name_parts:
                continue
            path = f"{module}.{name_parts[0]}"
            matched = self.catalog.match(path) if path.startswith("torch.") else None
            if matched is None or not (module_private or is_private(name_parts[0])):
                continue
            if module_match is not None and matched[0] is module_match[0]:
                if not statement_reported:  # one finding per statement for the private module
                    statement_reported = True
                    self._report(node, module_match[0], module_match[1], IMPORT,
                                 import_statement=node, module=module)
                continue
            self._handled_imports.append((path, matched[0].code))
            self._report(alias, matched[0], matched[1], IMPORT, import_statement=node,
                         import_alias=alias, module=module)
        if module_match is not None and not names:  # `from torch._x import *`
            self._report(node, module_match[0], module_match[1], IMPORT, import_statement=node,
                         star=True)
        return False

    # -- uses ------------------------------------------------------------------------------
    def _path_use(self, node: cst.CSTNode, path: str) -> None:
        if not any(is_private(p) for p in path.split(".")):
            return
        matched = self.catalog.match(path)
        if matched is None or self._already_handled(path, matched[0]):
            return
        self._report(node, matched[0], matched[1], ATTRIBUTE, used_path=path)

    def _member_use(self, node: cst.CSTNode, receiver: cst.BaseExpression, member: str) -> None:
        if not is_private(member):
            return
        binding = self.resolver.self_member(receiver, member)
        if binding is None:
            binding = self.resolver.infer(receiver)
        if binding is not None and binding.kind == PATH:
            self._path_use(node, f"{binding.value}.{member}")
            return
        candidates = self.catalog.member_rules(member)
        if not candidates:
            return
        receiver_site = {"receiver": receiver, "binding": binding}
        if binding is not None and binding.kind == INSTANCE:
            matched = self.catalog.match(f"{binding.value}.{member}")
            if matched is not None and matched[0].kind == "member":
                self._report(node, matched[0], matched[1], ATTRIBUTE, **receiver_site)
            return
        if binding is not None and binding.kind not in (UNKNOWN,):
            return  # known to be something else: a same-named member of another type
        for rule in candidates:
            if rule.distinctive:
                self._report(node, rule, rule.api, ATTRIBUTE, **receiver_site)
                return

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        parts = dotted_parts(node)
        if parts:
            binding = self.resolver.lookup(parts[0])
            if binding is not None and binding.kind == PATH:
                self._path_use(node, ".".join([binding.value] + parts[1:]))
                return False
        self._member_use(node, node.value, node.attr.value)
        return True

    def visit_Call(self, node: cst.Call) -> bool:
        self._calls[id(node.func)] = node
        name = node.func.value if isinstance(node.func, cst.Name) else ""
        if name == "getattr" and len(node.args) == 2:
            member = string_value(node.args[1].value)
            if member:
                self._member_use(node, node.args[0].value, member)
        elif (name == "hasattr" or name == "getattr") and len(node.args) >= 2:
            # The object a probe inspects is part of the guard, not a use to report.
            self._region(node.args[0], Guard(exempt=True))
        return True

    # -- guards ----------------------------------------------------------------------------
    def visit_If(self, node: cst.If) -> bool:
        if is_type_checking(node.test):
            self._region(node.body, Guard(exempt=True))
            return True
        facts = self._facts(node.test)
        self._region(node.body, Guard.branch(facts, True))
        self._region(node.orelse, Guard.branch(facts, False))
        return True

    def leave_If(self, original_node: cst.If) -> None:
        if original_node.orelse is None and ends_in_exit(original_node.body) and self._blocks:
            facts = self._facts(original_node.test)
            self._blocks[-1].append(Guard.branch(facts, False))

    def visit_IfExp(self, node: cst.IfExp) -> bool:
        facts = self._facts(node.test)
        self._region(node.body, Guard.branch(facts, True))
        self._region(node.orelse, Guard.branch(facts, False))
        return True

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> bool:
        facts = self._facts(node.left)
        self._region(node.right, Guard.branch(facts, isinstance(node.operator, cst.And)))
        return True

    def visit_Assert(self, node: cst.Assert) -> bool:
        if self._blocks:
            self._blocks[-1].append(Guard.branch(self._facts(node.test), True))
        return True

    def _try(self, node: cst.Try | cst.TryStar) -> bool:
        caught = frozenset()
        for handler in node.handlers:
            kinds = caught_kinds(handler.type)
            caught |= kinds
            # The handler of a failed probe is the fallback path: it runs when the other is absent.
            self._region(handler.body, Guard(catches=kinds))
        self._region(node.body, Guard(catches=caught))
        return True

    def visit_Try(self, node: cst.Try) -> bool:
        return self._try(node)

    def visit_TryStar(self, node: cst.TryStar) -> bool:
        return self._try(node)

    def visit_With(self, node: cst.With) -> bool:
        caught = frozenset()
        for item in node.items:
            call = item.item
            if isinstance(call, cst.Call):
                parts = dotted_parts(call.func)
                if parts and parts[-1] == "suppress":
                    for arg in call.args:
                        caught |= caught_kinds(arg.value)
        if caught:
            self._region(node.body, Guard(catches=caught))
        for item in node.items:
            if item.asname and isinstance(item.asname.name, cst.Name):
                self.resolver.bind(item.asname.name.value, None)
        return True

def detect(module: cst.Module, catalog: Catalog) -> list[RawFinding]:
    detector = Detector(catalog)
    prebind_module_imports(detector.resolver, module)
    walk(module, detector)
    return detector.findings
