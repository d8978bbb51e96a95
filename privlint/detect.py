"""Find private torch API uses in one parsed module, and judge the guards around each.

One walk over the libcst tree, in source order. The Resolver (resolve.py) keeps track of
what names mean; this visitor keeps track of the guards in force (guards.py reads each
condition) and reports every private use the catalog covers that no guard protects.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from privlint.catalog import Catalog, Rule, is_private
from privlint.guards import (ATTRIBUTE, CALL, IMPORT, Bound, Facts, Guard, catches_every_import_error,
                             caught_kinds, condition_facts, ends_in_exit, is_type_checking, last_statement, leaves,
                             negate, version_bound)
from privlint.project import ProjectIndex
from privlint.tracking import ScopeTracking, bind_import, prebind_module_imports
from privlint.reading import (ModuleFacts, access_text, accessed, bound_names, call_arguments,
                              identifiers, rebound_at_top, sets_attributes)
from privlint.walk import Visitor, quiet_leaves, walk
from privlint.resolve import (INSTANCE, PATH, UNKNOWN,
                              Binding, ClassInfo, Resolver, dotted_parts, string_value)

_BLOCKS = frozenset({cst.Module, cst.IndentedBlock, cst.SimpleStatementSuite})
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
    # The version checks around it: (id of the check or None, branch taken, releases admitted).
    gates: tuple[tuple[int | None, bool, "Bound | None"], ...] = ()
    # What the version checks that choose it admit (after `_ungate_both_branches`); None for a
    # check that cannot be read. The checker narrows the supported range with these.
    bounds: tuple["Bound | None", ...] = ()
    keywords: tuple[str, ...] = ()            # arguments the call passes, for argument windows
    # Reached only on releases before this one: the `except` fallback of a try body that uses
    # APIs new in it (the checker drops the finding when every such release has the API).
    reached_before: "tuple[int, int] | None" = None
    top: cst.CSTNode | None = None  # the module-level statement holding it (for positions)
    member: cst.CSTNode | None = None  # the statement of a module-level class's body holding it
    # The statement of the body of the function `top` or `member` is holding it.
    inner: cst.CSTNode | None = None


def _binds_once(statements: "list[cst.BaseStatement]", name: str) -> bool:
    """Whether the module's own code (not its functions' and classes') binds `name` once, by a
    plain assignment among its top-level statements."""
    if not any(type(statement) is cst.SimpleStatementLine and any(
            type(small) is cst.Assign and any(type(target.target) is cst.Name and target.target.value == name
                                              for target in small.targets) for small in statement.body)
            for statement in statements):
        return False  # (most modules: nothing more to read)
    top = {id(statement) for statement in statements}
    count, plain = 0, False
    pending: list = list(statements)
    while pending:
        statement = pending.pop()
        kind = type(statement)
        if kind is cst.FunctionDef or kind is cst.ClassDef:
            continue
        if kind is cst.SimpleStatementLine or kind is cst.SimpleStatementSuite:
            for small in statement.body:
                if name in bound_names(small):
                    count += 1
                    plain = plain or (type(small) is cst.Assign and id(statement) in top)
            continue
        # A compound statement's header may bind it too (`for pytestmark in ...`, `with ... as`).
        inner = list(_inner_statements(statement))
        count += name in bound_names(statement) and not any(name in bound_names(s) for s in inner)
        pending.extend(inner)
    return count == 1 and plain


def _inner_statements(statement: cst.CSTNode):
    """The statements of a compound statement's blocks: an `if`'s and its `elif`s' and `else`'s,
    a loop's and its `else`'s, a `try`'s handlers' and `finally`'s, a `with`'s, a `match`'s cases'."""
    blocks = [handler.body for handler in getattr(statement, "handlers", ())]
    blocks += [case.body for case in getattr(statement, "cases", ())]
    for name in ("body", "orelse", "finalbody"):
        part = getattr(statement, name, None)
        while part is not None and not isinstance(part, cst.BaseSuite):
            if type(part) is cst.If:  # an `elif`
                blocks.append(part.body)
                part = part.orelse
            else:  # `else:`, `finally:`
                part = getattr(part, "body", None)
        if part is not None:
            blocks.append(part)
    for block in blocks:
        yield from (block.body if type(block) is cst.IndentedBlock else [block])


def _members(proven: frozenset[str]) -> frozenset[str]:
    """The members' names among what a condition proves (its dotted entries are paths)."""
    return frozenset(name for name in proven if "." not in name)


def _proves(present: frozenset[str], paths: tuple[str, str], depth: int) -> bool:
    """Whether a path a guard proves present (a dotted entry: what a try flag's import
    imported) holds one of these paths and reaches their part at `depth` (the rule's private
    name: `import torch._C` proves `torch._C`, not `torch._C._host_emptyCache`)."""
    return any("." in proven and proven.count(".") >= depth
               and (path == proven or path.startswith(proven + "."))
               for proven in present for path in paths)


def _stands_in(twin: str, probed: frozenset[str]) -> bool:
    """Whether a probed path is the public twin `twin` (`c10d.get_global_rank`) or its
    re-export from the package just above (`torch.distributed.get_global_rank`; never from
    `torch` itself, which re-exports few of its subpackages' names)."""
    module, _, name = twin.rpartition(".")
    parent = module.rpartition(".")[0]
    return any(path.rpartition(".")[2] == name and (
        path.rpartition(".")[0] == module or path.rpartition(".")[0] == parent not in ("", "torch"))
        for path in probed)


def _body_ids(statement: cst.CSTNode, kind: type) -> set[int]:
    """The ids of the statements of `statement`'s indented body, when it is a `kind`."""
    if type(statement) is kind and type(statement.body) is cst.IndentedBlock:
        return {id(inside) for inside in statement.body.body}
    return set()


class Detector(ScopeTracking, Visitor):
    def __init__(self, catalog: Catalog, module: cst.Module) -> None:
        super().__init__()
        # Names, numbers and strings are read by their parents' methods, never by their own:
        # their visits would only push and pop bookkeeping nothing reads (walk.py skips them).
        self.quiet = quiet_leaves(type(self))
        self.catalog = catalog
        self.findings: list[RawFinding] = []
        self.resolver = Resolver(self.catalog)
        self._regions: dict[int, list[Guard]] = {}
        self._active: list[Guard] = []
        self._blocks: list[list[Guard]] = []
        self._statements: list[cst.CSTNode] = []
        # Bindings made by a private import already reported (or guarded): a use through
        # one of them is that import's use, not a new one. Kept alive so ids stay unique.
        # id -> (binding, the import's rule, the imported path, where): `import torch._x.y`
        # binds `torch`, and only uses under `torch._x.y` are that import's. `where`: None,
        # or the id of the `try` whose handler lets the import's failure pass; then only the
        # uses in that try's body or `else` are the import's (elsewhere the name may lack it).
        self._handled: dict[int, tuple[Binding, str, str, int | None]] = {}
        self._tries: dict[int, cst.Try | cst.TryStar] = {}
        self._expression_scopes = 0
        self._calls: dict[int, cst.Call] = {}  # id(callee) -> the call, for fixes
        self._functions: list[cst.FunctionDef] = []
        # A class's predicate methods, read at its `class` line and known from its body on.
        self._class_predicates: dict[int, tuple[ClassInfo, dict[str, Binding]]] = {}
        # Bindings of a literal True or False ((name, binding, "True"/"False")), and the names
        # holding one as each `try` began: a flag the try sets may start from its default.
        self._literals: list[tuple[str, Binding, str]] = []
        self._try_literals: dict[int, dict[str, str]] = {}
        self._test_marks: list[Guard] = []  # what a module's `pytestmark` lets its tests run on
        # pytest reads the module's last `pytestmark`: it is read only when bound once, at the top.
        self._pytestmark_once = _binds_once(module.body, "pytestmark")
        self._loops = 0  # loops around the code being walked, in its function
        self._outer_loops: list[int] = []
        self._returns: list[list | None] = []  # per function: what its returns gave (unannotated)
        self._depth = 0  # def/lambda nesting: a try's handlers guard only code that runs inside it
        self._stores: set[int] = set()  # attributes being assigned to: not uses
        # `if isinstance(p, DTensor):` types `p` inside the branch: id(branch) -> (name, binding)
        self._narrowings: dict[int, tuple[str, Binding]] = {}
        self._saved: list[tuple[int, str, Binding | None]] = []
        self._probed_objects: set[int] = set()  # first arguments of hasattr/getattr
        self._own: frozenset[str] = frozenset()  # private names the project sets on objects itself
        self._rebound_at_top: frozenset[str] = frozenset()  # reading.rebound_at_top
        self._future_annotations = False
        self._unevaluated: set[int] = set()  # annotations Python never evaluates
        self._tops = {id(statement) for statement in module.body}  # module-level statements
        self._top: cst.CSTNode | None = None
        self._members: set[int] = set()  # the statements of the current top-level class's body
        self._member: cst.CSTNode | None = None
        self._inners: set[int] = set()  # the statements of that top-level function's or method's body
        self._inner: cst.CSTNode | None = None

    # -- regions and blocks ----------------------------------------------------------------
    def _region(self, node: cst.CSTNode | None, guard: Guard) -> None:
        if node is not None:
            self._regions.setdefault(id(node), []).append(guard)

    def on_visit(self, node: cst.CSTNode) -> bool:
        if id(node) in self._tops:
            self._top, self._member, self._inner = node, None, None
            self._members = _body_ids(node, cst.ClassDef)
            self._inners = _body_ids(node, cst.FunctionDef)
        elif id(node) in self._members:
            self._member, self._inner = node, None
            self._inners = _body_ids(node, cst.FunctionDef)
        elif id(node) in self._inners:
            self._inner = node
        self._active.extend(self._regions.get(id(node), ()))
        narrowed = self._narrowings.get(id(node))
        if narrowed is not None:
            name, binding = narrowed
            self._saved.append((id(node), name, self.resolver.scopes[-1].names.get(name)))
            self.resolver.bind(name, binding)
        kind = type(node)  # exact types: libcst's node classes are ABCs, slow in isinstance
        if kind in _BLOCKS:
            self._blocks.append([])
        elif kind is cst.SimpleStatementLine:
            self._statements.append(node)
        return super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        super().on_leave(original_node)
        if self._saved and self._saved[-1][0] == id(original_node):
            _, name, previous = self._saved.pop()
            if previous is None:
                self.resolver.scopes[-1].names.pop(name, None)
            else:
                self.resolver.scopes[-1].names[name] = previous
        kind = type(original_node)
        if kind in _BLOCKS:
            self._blocks.pop()
        elif kind is cst.SimpleStatementLine:
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
        # An untracked private name's public twin, where it would stand (`c10d._get_global_rank`,
        # `c10d.get_global_rank`): the fallback for a probe of the public name, which replaced it.
        twin = ".".join(parts[:-1] + [parts[-1].lstrip("_")]) \
            if rule.kind == "generic" and parts[-1].startswith("_") else ""
        paths = (api, site.get("used_path") or api)
        call = site.setdefault("call", self._calls.get(id(node)))
        keywords = call_arguments(call, rule.params) if isinstance(call, cst.Call) else ()
        # A keyword newer than the API itself: a probe for the member proves too little, and
        # the call fails with a TypeError, which only a handler of TypeError catches.
        late = any(k in keywords and (rule.since is None or first > rule.since)
                   for k, first in rule.keywords)
        if late:
            failure = CALL
        gates = []
        written = access_text(node, site.get("module"))
        # A path a try flag proves holds what is below it, down to the rule's own private name.
        depth = start if rule.kind != "generic" else max(
            (at for at, part in enumerate(parts) if is_private(part)), default=0)
        for guard in self._guards():
            if guard.exempt or (not late and (names & guard.present or _proves(guard.present, paths, depth))):
                return
            # A try body whose handler repeats this very access, or a handler that repeats
            # its body's, fails the same way twice: neither guards it.
            if failure in guard.catches and guard.depth == self._depth \
                    and written not in guard.repeats:
                return
            if (public and public in guard.probed_public or twin and _stands_in(twin, guard.probed_public)) \
                    and written not in guard.repeats:
                return
            if guard.version:
                gate, taken = guard.gate or (None, True)
                gates.append((gate, taken, guard.bound))
        statement = self._statements[-1] if self._statements else None
        site.setdefault("function", self._functions[-1] if self._functions else None)
        self.findings.append(RawFinding(node, rule, api, bool(gates), statement,
                                        self._expression_scopes > 0, Site(**site),
                                        gates=tuple(gates), keywords=keywords,
                                        reached_before=self._reached_before(), top=self._top,
                                        member=self._member, inner=self._inner))

    def _handle(self, names: list[str], rule: Rule, imported: str = "", reported: bool = False,
                statement: frozenset[str] = frozenset()) -> None:
        """Mark the bindings an import just made: uses through them of the same rule are the
        import's use (another rule reached through them, `_mesh_resources.<member>`, is not).
        An import not `reported` whose failure a handler lets pass covers only the uses its
        `try` makes before that handler could run (_failure_passes; `statement`: the names the
        whole import statement binds)."""
        within = None if reported else self._failure_passes(statement)
        for name in names:
            binding = self.resolver.lookup(name)
            if binding is not None:
                self._handled[id(binding)] = (binding, rule.code, imported or binding.value, within)

    def _failure_passes(self, statement: frozenset[str]) -> int | None:
        """The id of the innermost `try` around this import (in this function) that catches its
        ImportError, when one of its handlers for it goes on below the `try` (`except
        ImportError: pass`); None when none does. A handler that binds a name the import
        statement binds sets a sentinel (`except ImportError: _b = None`, then `if _b is not
        None:`) that the code below may test before it uses any of the statement's names: the
        import then covers them all, as any guarded import does."""
        for guard in reversed(self._active):
            if guard.within is None or IMPORT not in guard.catches or guard.depth != self._depth:
                continue
            raised = False  # a handler raises again: a `try` further out may let it pass
            for handler in self._tries[guard.within].handlers:
                if IMPORT not in caught_kinds(handler.type):
                    continue
                if not (ends_in_exit(handler.body) or leaves(handler.body)) \
                        and not bound_names(handler.body) & statement:
                    return guard.within
                raised = raised or type(last_statement(handler.body)) is cst.Raise
                if catches_every_import_error(handler.type):
                    break  # the handlers below it never see an ImportError
            if not raised:
                return None
        return None

    def _inside(self, statement: int) -> bool:
        return any(guard.within == statement for guard in self._active)

    # -- imports ---------------------------------------------------------------------------
    def _import_path(self, node: cst.CSTNode, path: str) -> Rule | None:
        if not path.startswith("torch.") or not any(is_private(p) for p in path.split(".")):
            return None
        matched = self.catalog.match(path)
        if matched is None:
            return None
        rule, api = matched
        self._report(node, rule, api, IMPORT, import_statement=self._import_statement)
        return rule

    def visit_Import(self, node: cst.Import) -> bool:
        self._import_statement = node
        bind_import(self.resolver, node)
        statement = bound_names(node)
        for alias in node.names:
            parts = dotted_parts(alias.name)
            before = len(self.findings)
            rule = self._import_path(alias, ".".join(parts)) if parts else None
            if rule is not None:
                bound = alias.asname.name if alias.asname else None
                self._handle([bound.value if isinstance(bound, cst.Name) else parts[0]], rule,
                             ".".join(parts), reported=len(self.findings) > before,
                             statement=statement)
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
        statement_reported = False
        before = len(self.findings)
        statement = bound_names(node)
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
            else:
                self._report(alias, matched[0], matched[1], IMPORT, import_statement=node,
                             import_alias=alias, module=module)
            bound = alias.asname.name if alias.asname else alias.name
            if isinstance(bound, cst.Name):
                self._handle([bound.value], matched[0], reported=len(self.findings) > before,
                             statement=statement)
        if module_match is not None and not names:  # `from torch._x import *`
            self._report(node, module_match[0], module_match[1], IMPORT, import_statement=node,
                         star=True)
        return False

    # -- uses ------------------------------------------------------------------------------
    def _path_use(self, node: cst.CSTNode, path: str,
                  imported: tuple[Binding, str, str] | None = None) -> None:
        parts = path.split(".")
        if not any(is_private(p) for p in parts):
            return
        matched = self.catalog.match(path)
        if matched is None:
            return
        if imported is not None and matched[0].code == imported[1] \
                and (path == imported[2] or path.startswith(imported[2] + ".")) \
                and (imported[3] is None or self._inside(imported[3])):
            return  # the import that made this name was the use
        if matched[0].kind == "generic" and parts[-1] in self._own:
            return  # `nn.Module._old_apply = nn.Module.apply`: the project's name, not torch's
        if id(node) in self._probed_objects and matched[1] == matched[0].api \
                and all(matched[0].window.has(m) for m in self.catalog.known_releases):
            return  # ... except the very module a rule names when every release has it (`torch._C`)
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
        if not candidates and (binding is None or binding.kind != INSTANCE):
            return
        receiver_site = {"receiver": receiver, "binding": binding}
        if binding is not None and binding.kind == INSTANCE:
            # A private member of a tracked torch type: its rule, or the generic one when the
            # catalog has none (`pg._allgather_base` on a ProcessGroup).
            matched = self.catalog.match(f"{binding.value}.{member}")
            if matched is not None and matched[0].kind in ("member", "generic"):
                self._report(node, matched[0], matched[1], ATTRIBUTE, **receiver_site)
            return
        if binding is not None and binding.kind not in (UNKNOWN,):
            return  # known to be something else: a same-named member of another type
        if member in self._own:
            return  # an untyped receiver whose `_x` this file sets itself (a stand-in, a store)
        for rule in candidates:
            if rule.distinctive:
                self._report(node, rule, rule.api, ATTRIBUTE, **receiver_site)
                return

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        if id(node) in self._stores:
            return True  # `x._m = ...` sets an attribute; what `x` is still gets read
        parts = dotted_parts(node)
        if parts:
            binding = self.resolver.root(parts[0])
            if binding is not None and binding.kind == PATH:
                # A use is reported where the code writes a private name: `fc.all_reduce`
                # through `fc`, an alias of a private module, is the import's use (reported
                # where the import is written, here or in the module that hands `fc` on).
                if any(is_private(part) for part in parts):
                    self._path_use(node, ".".join([binding.value] + parts[1:]),
                                   self._handled.get(id(binding)))
                return False
        self._member_use(node, node.value, node.attr.value)
        return True

    def visit_AssignTarget(self, node: cst.AssignTarget) -> bool:
        if isinstance(node.target, cst.Attribute):
            self._stores.add(id(node.target))
        return True

    def visit_AnnAssign(self, node: cst.AnnAssign) -> bool:
        if isinstance(node.target, cst.Attribute):
            self._stores.add(id(node.target))
        if self.resolver.scopes[-1].kind == "function":
            self._unevaluated.add(id(node.annotation))  # local annotations are never evaluated
        return True

    def visit_Del(self, node: cst.Del) -> bool:
        if isinstance(node.target, cst.Attribute):
            self._stores.add(id(node.target))
        return True

    def visit_Annotation(self, node: cst.Annotation) -> bool:
        # The names an annotation uses still type the code (resolver.annotation), but an
        # annotation that never runs cannot crash: under `from __future__ import annotations`,
        # and on local variables. The import that brings its names in is judged on its own.
        return not (self._future_annotations or id(node) in self._unevaluated)

    def visit_Call(self, node: cst.Call) -> bool:
        self._calls[id(node.func)] = node
        name = node.func.value if isinstance(node.func, cst.Name) else ""
        if name == "getattr" and len(node.args) == 2:
            member = string_value(node.args[1].value)
            if member:
                self._member_use(node, node.args[0].value, member)
        elif (name == "hasattr" or name == "getattr") and len(node.args) >= 2:
            # The object a probe inspects is evaluated, so it is a use like any other (the
            # `torch._C._cpu` in `hasattr(torch._C._cpu, "_x")` can be missing) ...
            self._probed_objects.add(id(node.args[0].value))
        return True

    # -- guards ----------------------------------------------------------------------------
    def visit_If(self, node: cst.If) -> bool:
        if is_type_checking(node.test):
            self._region(node.body, Guard(exempt=True))
            return True
        facts = self._facts(node.test)
        self._region(node.body, Guard.branch(facts, True, id(node)))
        self._region(node.orelse, Guard.branch(facts, False, id(node)))
        self._narrow(node.test, node.body)
        return True

    def _narrow(self, test: cst.BaseExpression, region: cst.CSTNode, negated: bool = False) -> None:
        """`isinstance(p, DTensor)`: inside the region where it holds, `p` is a DTensor."""
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            return self._narrow(test.expression, region, not negated)
        # Two positional arguments, the only call of `isinstance` that runs (it takes no
        # keywords), as the `ast` gate reads it too. `None`, `True` and `False` are names to
        # libcst, but no value of theirs is ever narrowed (and the gate reads them as constants).
        if negated or not (isinstance(test, cst.Call) and isinstance(test.func, cst.Name)
                           and test.func.value == "isinstance" and len(test.args) == 2
                           and all(arg.keyword is None and not arg.star for arg in test.args)
                           and isinstance(test.args[0].value, cst.Name)
                           and test.args[0].value.value not in ("None", "True", "False")):
            return None
        binding = self.resolver.annotation(test.args[1].value)
        if binding is not None and binding.kind == INSTANCE:
            self._narrowings[id(region)] = (test.args[0].value.value, binding)
        return None

    def leave_If(self, original_node: cst.If) -> None:
        if original_node.orelse is not None or not self._blocks:
            return
        facts = self._facts(original_node.test)
        if ends_in_exit(original_node.body) or leaves(original_node.body, branches=False):
            self._blocks[-1].append(Guard.branch(facts, False))
            test = original_node.test
            if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
                self._narrow(test.expression, original_node)
                narrowed = self._narrowings.pop(id(original_node), None)
                if narrowed is not None:  # `if not isinstance(p, DTensor): return`
                    self.resolver.bind(*narrowed)
        elif (members := _members(facts.when_false)) and members <= sets_attributes(original_node.body):
            # `if not hasattr(m, "_x"): m._x = {}`: from here on `_x` exists either way.
            self._blocks[-1].append(Guard(present=members))

    def visit_IfExp(self, node: cst.IfExp) -> bool:
        facts = self._facts(node.test)
        self._region(node.body, Guard.branch(facts, True, id(node)))
        self._region(node.orelse, Guard.branch(facts, False, id(node)))
        self._narrow(node.test, node.body)
        return True

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> bool:
        facts = self._facts(node.left)
        self._region(node.right, Guard.branch(facts, isinstance(node.operator, cst.And)))
        if isinstance(node.operator, cst.And):
            self._narrow(node.left, node.right)
        return True

    def visit_Assert(self, node: cst.Assert) -> bool:
        if self._blocks:
            self._blocks[-1].append(Guard.branch(self._facts(node.test), True))
        self._narrow(node.test, node)
        narrowed = self._narrowings.pop(id(node), None)
        if narrowed is not None:  # `assert isinstance(w, DTensor)`: from here on, w is one
            self.resolver.bind(*narrowed)
        return True

    def _try(self, node: cst.Try | cst.TryStar) -> bool:
        caught = frozenset()
        used = identifiers(node.body)
        reached = accessed(node.body)
        newest = max((r.since for name in used for r in self.catalog.member_rules(name)
                      if r.since is not None), default=None)
        fallback: set[str] = set()
        for handler in node.handlers:
            kinds = caught_kinds(handler.type)
            caught |= kinds
            # A handler runs when its body failed: it is the fallback for the public APIs the
            # body tried, unless it repeats the body's own private access; and it runs only on
            # releases older than the newest member the body uses.
            if kinds:
                fallback |= accessed(handler.body)
                self._region(handler.body, Guard(probed_public=used | self._resolved(reached), repeats=reached,
                                                 before=newest))
        # A body whose handler repeats a private access fails the same way: no guard for it.
        self._region(node.body, Guard(catches=caught, depth=self._depth,
                                      repeats=frozenset(fallback), within=id(node)))
        if node.orelse is not None:
            self._region(node.orelse, Guard(within=id(node)))  # runs only if the body did
        self._tries[id(node)] = node
        self._literals_at(node)
        return True

    def _resolved(self, accesses: frozenset[str]) -> frozenset[str]:
        """Accesses as written (`dist.get_global_rank`), with their head resolved where it
        names a path (`torch.distributed.get_global_rank`)."""
        found = set(accesses)
        for access in accesses:
            head, dot, rest = access.partition(".")
            binding = self.resolver.lookup(head) if dot and head != "*" else None
            if binding is not None and binding.kind == PATH:
                found.add(f"{binding.value}.{rest}")
        return frozenset(found)

    def _reached_before(self) -> "tuple[int, int] | None":
        bounds = [guard.before for guard in self._guards() if guard.before is not None]
        return min(bounds) if bounds else None

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
            self._region(node.body, Guard(catches=caught, depth=self._depth))
        for item in node.items:
            if item.asname and isinstance(item.asname.name, cst.Name):
                self.resolver.bind(item.asname.name.value, None)
        return True

    # -- scopes where handlers stop guarding ---------------------------------------------------
    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        for decorator in node.decorators:
            guard = self._decorator_guard(decorator.decorator, id(decorator))
            if guard is not None:
                self._region(node.body, guard)
        if node.name.value.startswith("test") and not self._functions:  # what pytest collects
            # (a helper, or a test defined inside a function, may run at import)
            for guard in self._test_marks:
                self._region(node.body, guard)
        super().visit_FunctionDef(node)
        self._depth += 1  # the body runs when called, outside any try around the def
        return True

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        for decorator in node.decorators:  # `@unittest.skipIf(not HAS_X, ...)` on a test class
            guard = self._decorator_guard(decorator.decorator, id(decorator))
            if guard is not None and type(node.body) is cst.IndentedBlock:
                for statement in node.body.body:  # its tests; the class body runs at import
                    if type(statement) is cst.FunctionDef:
                        self._region(statement.body, guard)
        return super().visit_ClassDef(node)

    def leave_Assign(self, original_node: cst.Assign) -> None:
        super().leave_Assign(original_node)
        if self._pytestmark_once and len(original_node.targets) == 1 \
                and type(original_node.targets[0].target) is cst.Name \
                and original_node.targets[0].target.value == "pytestmark" \
                and self.resolver.scopes[-1].kind == "module":  # (the one binding, at the top)
            # `pytestmark = pytest.mark.skipif(...)`: the module's tests run only where it lets them.
            value = original_node.value
            marks = [element.value for element in value.elements] \
                if type(value) in (cst.List, cst.Tuple) else [value]
            self._test_marks = [guard for mark in marks
                                if (guard := self._decorator_guard(mark, id(mark))) is not None]

    def _decorator_guard(self, decorator: cst.BaseExpression, key: int) -> Guard | None:
        """A test decorator that runs the body only on some builds: `pytest.mark.skipif(cond)`,
        `unittest.skipUnless(cond)`, lightning's `RunIf(min_torch="2.4")`."""
        if not isinstance(decorator, cst.Call):
            return None
        name = (dotted_parts(decorator.func) or [""])[-1]
        if name in ("skipif", "skipIf", "skipUnless") and decorator.args \
                and decorator.args[0].keyword is None:
            facts = self._facts(decorator.args[0].value)
            return Guard.branch(facts, name == "skipUnless", key)
        if name == "RunIf":
            # `min_torch` and `max_torch` together run the test on the releases both admit.
            bounds: list[Bound | None] = []
            for arg in decorator.args:
                keyword = arg.keyword.value if arg.keyword else ""
                if keyword in ("min_torch", "max_torch"):
                    text = string_value(arg.value)
                    bound = version_bound(cst.parse_expression(f"torch_min_version({text!r})"),
                                          self.resolver.lookup) if text else None
                    bounds.append(negate(bound) if bound is not None and keyword == "max_torch" else bound)
            if bounds:
                whole = None if None in bounds else bounds[0]
                for bound in bounds[1:] if whole is not None else ():
                    whole = ("and", (whole, bound))
                return Guard(version=True, gate=(key, True), bound=whole)
        return None

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        super().leave_FunctionDef(original_node)
        self._depth -= 1

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        super().visit_Lambda(node)
        self._depth += 1
        return True

    def leave_Lambda(self, original_node: cst.Lambda) -> None:
        super().leave_Lambda(original_node)
        self._depth -= 1


def _ungate_both_branches(findings: list[RawFinding]) -> None:
    """A version check whose both branches use the same API does not choose it; the use is
    still version-gated when another check around it does (`if/elif/else` chains)."""
    branches: dict[tuple[str, int], set[bool]] = {}
    for finding in findings:
        for gate, taken, _ in finding.gates:
            if gate is not None:
                branches.setdefault((finding.api, gate), set()).add(taken)
    for finding in findings:
        finding.bounds = tuple(bound for gate, _, bound in finding.gates
                               if gate is None or len(branches[(finding.api, gate)]) < 2)
        finding.version_gated = bool(finding.bounds)


def detect(module: cst.Module, catalog: Catalog, project: ProjectIndex | None = None,
           module_name: tuple[str, bool] | None = None) -> list[RawFinding]:
    detector = Detector(catalog, module)
    detector.resolver.project = project
    detector.resolver.module = module_name
    facts = ModuleFacts()
    walk(module, facts)
    detector._future_annotations = facts.future_annotations
    detector.resolver.defined = frozenset(facts.defined)
    # Private names the file itself assigns (a project attribute set on a torch object, a test
    # double's member, a default made by "make sure it exists"): the project's, not torch's.
    detector._own = facts.own
    detector._rebound_at_top = rebound_at_top(module)
    prebind_module_imports(detector.resolver, module)
    walk(module, detector)
    _ungate_both_branches(detector.findings)
    return detector.findings

