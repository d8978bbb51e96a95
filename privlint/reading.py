"""What a piece of code reads, writes and passes: small questions the detector asks of a
subtree (a try body, a handler, an if body, a call), and one cheap pass over the module
before the detector's walk.
"""

from __future__ import annotations

import libcst as cst

from privlint.catalog import is_private
from privlint.resolve import dotted_parts, string_value
from privlint.walk import LEAVES, children


def call_arguments(call: cst.Call, params: tuple[str, ...]) -> tuple[str, ...]:
    """The parameters a call passes (`name`, and `name:str` for a string literal), as far as
    keywords and the rule's positional parameter names tell."""
    passed = []
    position = 0
    for arg in call.args:
        if arg.star:
            break  # `*args`/`**kw`: what follows cannot be placed
        if arg.keyword is not None:
            name = arg.keyword.value
        elif position < len(params):
            name, position = params[position], position + 1
        else:
            continue
        passed.append(name)
        if isinstance(arg.value, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
            passed.append(f"{name}:str")
    return tuple(passed)


def access_text(node: cst.CSTNode, module: str | None = None) -> str:
    """How a private access is written (`dist._all_gather_base`, `torch.x._y.name` for an
    import), to tell whether an `except` handler repeats what its try body did."""
    if isinstance(node, cst.Attribute):
        parts = dotted_parts(node)
        return ".".join(parts) if parts else f"*.{node.attr.value}"
    if isinstance(node, cst.ImportAlias):
        name = ".".join(dotted_parts(node.name) or ())
        return f"{module}.{name}" if module else name
    if isinstance(node, cst.ImportFrom):
        return ".".join(dotted_parts(node.module) or ()) if node.module is not None else ""
    return ""


def accessed(node: cst.CSTNode) -> frozenset[str]:
    """The accesses a piece of code makes, as `access_text` writes them (not the names it
    assigns: `except ImportError: _x = None` is a fallback, not a second access)."""
    found: set[str] = set()
    for current in _descendants(node):
        if isinstance(current, cst.Attribute):
            found.add(access_text(current))
        elif isinstance(current, cst.Import):
            found.update(access_text(alias) for alias in current.names)
        elif isinstance(current, cst.ImportFrom):
            module = access_text(current)
            found.add(module)
            if not isinstance(current.names, cst.ImportStar):
                found.update(access_text(alias, module) for alias in current.names)
    return frozenset(found)


def _descendants(node: cst.CSTNode):
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(children(current))


def target_names(target: cst.CSTNode) -> list[str]:
    """The names an assignment target binds (`a, (b, *c)`: a, b, c)."""
    if type(target) is cst.Name:
        return [target.value]
    if type(target) in (cst.Tuple, cst.List):
        return [name for element in target.elements for name in target_names(element.value)]
    if type(target) is cst.StarredElement:
        return target_names(target.value)
    return []


def bound_names(node: cst.CSTNode) -> frozenset[str]:
    """The names a piece of code may bind (or unbind, by `del`): assignment, loop, `with ... as`
    and walrus targets, imports, `def`s and classes, `except ... as`, and `global`/`nonlocal`
    declarations (which hand the name to code the reading cannot see)."""
    found: set[str] = set()
    for current in _descendants(node):
        kind = type(current)
        if kind is cst.AssignTarget or kind is cst.AnnAssign or kind is cst.AugAssign:
            found.update(target_names(current.target))
        elif kind is cst.For or kind is cst.CompFor:
            found.update(target_names(current.target))
        elif kind is cst.NamedExpr:
            found.update(target_names(current.target))
        elif kind is cst.AsName:
            found.update(target_names(current.name))
        elif kind is cst.FunctionDef or kind is cst.ClassDef:
            found.add(current.name.value)
        elif kind is cst.Import:
            for alias in current.names:
                if alias.asname is None:
                    found.add((dotted_parts(alias.name) or [""])[0])
        elif kind is cst.ImportFrom:
            if isinstance(current.names, cst.ImportStar):
                found.add("*")
            else:
                found.update((dotted_parts(alias.name) or [""])[0] for alias in current.names
                             if alias.asname is None)
        elif kind is cst.Global or kind is cst.Nonlocal:
            found.update(item.name.value for item in current.names)
        elif kind is cst.Del:  # unbinds it: no longer what was bound
            found.update(target_names(current.target))
        elif (kind is cst.MatchAs or kind is cst.MatchStar) and current.name is not None:
            found.add(current.name.value)
        elif kind is cst.MatchMapping and current.rest is not None:
            found.add(current.rest.value)
    return frozenset(found)


def rebound_at_top(module: cst.Module) -> frozenset[str]:
    """The names the module's own code (not its functions' or classes' bodies) binds more than
    once: each statement that binds one counts, in every branch and loop body (`if c: OK = a`
    / `else: OK = b`), so that what such a name holds depends on which ran."""
    counts: dict[str, int] = {}

    def count(names) -> None:
        for name in names:
            counts[name] = counts.get(name, 0) + 1

    todo: list[cst.CSTNode] = list(module.body)
    while todo:
        statement = todo.pop()
        kind = type(statement)
        if kind is cst.SimpleStatementLine:
            todo.extend(statement.body)
            continue
        if isinstance(statement, cst.BaseSmallStatement):
            # (`global` at module level binds nothing; `x: bool` without a value neither)
            if kind is not cst.Global and kind is not cst.Nonlocal \
                    and not (kind is cst.AnnAssign and statement.value is None):
                count(bound_names(statement))
            continue
        if kind is cst.FunctionDef or kind is cst.ClassDef:
            count([statement.name.value])
            continue
        if isinstance(getattr(statement, "target", None), cst.CSTNode):  # a loop's target
            count(target_names(statement.target))
        for field in ("test", "subject"):  # a walrus in a test
            part = getattr(statement, field, None)
            if isinstance(part, cst.CSTNode):
                count(bound_names(part))
        for item in getattr(statement, "items", ()):  # `with ... as name`
            count(bound_names(item))
        for field in ("body", "orelse", "finalbody"):
            part = getattr(statement, field, None)
            if isinstance(part, cst.BaseSuite):  # (a one-line suite holds small statements)
                todo.extend(part.body)
            elif isinstance(part, cst.If):  # an `elif`
                todo.append(part)
            elif part is not None:  # an `else:` or `finally:` clause
                todo.extend(part.body.body)
        # (A `case` pattern's captures are not counted: the slicer does not keep a `match` for
        # them, and a count that differed between a slice and its file would change findings.)
        for clause in [*getattr(statement, "handlers", ()), *getattr(statement, "cases", ())]:
            if getattr(clause, "name", None) is not None:  # `except E as name`
                count(target_names(clause.name.name))
            todo.extend(clause.body.body)
    return frozenset(name for name, seen in counts.items() if seen > 1)


def identifiers(node: cst.CSTNode) -> frozenset[str]:
    """Every name and attribute name a piece of code mentions (imported names included)."""
    return frozenset(n.value if type(n) is cst.Name else n.attr.value
                     for n in _descendants(node) if type(n) is cst.Name or type(n) is cst.Attribute)


def sets_attributes(body: cst.CSTNode) -> frozenset[str]:
    """Attribute names a block assigns to (`m._x = {}`, `setattr(m, "_x", {})`)."""
    found: set[str] = set()
    for current in _descendants(body):
        if isinstance(current, (cst.AssignTarget, cst.AnnAssign)) \
                and isinstance(current.target, cst.Attribute):
            found.add(current.target.attr.value)
        elif isinstance(current, cst.Call) and isinstance(current.func, cst.Name) \
                and current.func.value == "setattr" and len(current.args) >= 2:
            member = string_value(current.args[1].value)
            if member:
                found.add(member)
    return frozenset(found)


_READ = frozenset({cst.ImportFrom, cst.Attribute, cst.Assign, cst.AnnAssign, cst.For,
                   cst.FunctionDef, cst.ClassDef, cst.Call})


class ModuleFacts(cst.CSTVisitor):
    """One cheap pass before the walk: the __future__ import, names bound, attributes set."""

    quiet = frozenset(LEAVES)  # `on_visit` reads none of them (walk.py skips them)

    def __init__(self) -> None:
        self.future_annotations = False
        self.defined: set[str] = set()
        self.stored: set[str] = set()
        self.read_first: set[str] = set()  # private attributes read before any assignment
        self._targets: set[int] = set()

    @property
    def own(self) -> frozenset[str]:
        """Private attribute names this file creates: assigned, and never read before that."""
        return frozenset(self.stored - self.read_first)

    def on_visit(self, node: cst.CSTNode) -> bool:
        kind = type(node)  # exact types first: libcst's node classes are ABCs, slow in isinstance
        if kind not in _READ:
            return True
        if kind is cst.ImportFrom:
            self._import_from(node)
            return False
        if kind is cst.Attribute and id(node) not in self._targets \
                and is_private(node.attr.value) and node.attr.value not in self.stored:
            self.read_first.add(node.attr.value)  # `orig = dist._x` before `dist._x = wrap(orig)`
        if kind is cst.Assign:
            # `dist._x = wrap(dist._x)` wraps what torch has: a use, not the project's own name.
            read = identifiers(node.value)
            for target in node.targets:
                self._target(target.target, read)
        elif kind is cst.AnnAssign or kind is cst.For:
            self._target(node.target)
        elif kind is cst.FunctionDef or kind is cst.ClassDef:
            self.defined.add(node.name.value)
        elif kind is cst.Call and type(node.func) is cst.Name \
                and node.func.value == "setattr" and len(node.args) >= 2:
            member = string_value(node.args[1].value)
            if member and is_private(member):
                self.stored.add(member)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        pass

    def _import_from(self, node: cst.ImportFrom) -> None:
        if isinstance(node.module, cst.Name) and node.module.value == "__future__" \
                and not isinstance(node.names, cst.ImportStar) \
                and any(isinstance(a.name, cst.Name) and a.name.value == "annotations"
                        for a in node.names):
            self.future_annotations = True

    def _target(self, target: cst.BaseExpression, read: frozenset[str] = frozenset()) -> None:
        self._targets.add(id(target))
        if isinstance(target, cst.Name):
            self.defined.add(target.value)
        elif isinstance(target, cst.Attribute) and is_private(target.attr.value) \
                and target.attr.value not in read \
                and not (isinstance(target.value, cst.Name) and target.value.value in ("self", "cls")):
            self.stored.add(target.attr.value)  # `self._x` is the class's own member already
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._target(element.value, read)
