"""Hand libcst only the code a finding can depend on: the statements around the candidates.

The `ast` gate (astgate.py) says on which lines a finding may sit. A slice keeps the statements
holding those lines, and every statement their outcome can depend on, as whole lines; the
other lines are left out (libcst pays for every line, a blank one too), and each kept line
remembers its number in the file, so positions are the file's own. A compound statement that
is kept (a function, a class, an `if`, a loop, a `with`, a `try`'s body) is kept line by line
too: its header, and among the statements of its bodies the ones chosen by the same rules.
What a kept statement depends on, and is kept with it (repeated until nothing changes):

- a statement that binds a name a kept statement mentions: looked up as the detector's
  resolver does, in the statement's own function, then the functions around it, then the
  module (a class body is not seen from its methods); an import, an assignment, a `def`;
- `self.pg = ...` in any method of the class, when kept code reads `self.pg` and the store
  may change what the resolver keeps for it: the gate found `self.pg` may hold a tracked
  value, or the stored value may be a capability flag (a probe, a comparison, a name, a
  `self.<attribute>`, or a call by a name the file defines or assigns). The resolver keeps
  nothing else for an attribute, so any other store leaves it as it was;
- the `return`s of a function (without a return annotation) whose name kept code mentions:
  what they give types its calls;
- a statement that mentions a private name the candidates read (the gate's Reading.names: the
  members they read, for the detector's "the project sets `_x` itself", "make sure it exists"
  and a class's own `_x`, which read the whole file; and the private names a candidate gives a
  value, which may hold a private torch path that a use through them reaches);
- a guard with a candidate after it in its scope (`assert`; an `if` without `else` whose body
  leaves or sets attributes), kept whole, and a statement holding such a guard; `from
  __future__` and star imports (a line holding a private name the candidates read counts as
  a candidate's here: a use through such a name may be reported);
- the imports of a kept `try`'s body: a flag the `try` sets proves what they import;
- a guard that narrows a name (`assert isinstance(p, PG)`, `if not isinstance(...): return`),
  or a statement holding one, with any kept statement after it in its scope: what that
  statement gives a name or `self` depends on it;
- in a function, `global` and `nonlocal`; in a class, the statements that are not
  definitions or strings, kept whole.

A kept assignment of a list, dict, set or tuple display written one bracket to a line
(`TABLE = {` ... `}`) leaves out the lines between its brackets when none holds a candidate,
a private name the candidates use, or a walrus: the detector types any display as a plain
literal, whatever it holds.

Some statements are kept for the shape of the code: the last statement of an `if` without
`else` (whether its body "leaves" is read from it), a statement of every body (none can be
empty), and two of a function's statements when it has two or more (a one-statement function
`return hasattr(...)` is read as a capability predicate; a class's predicate method is kept
when kept code calls it through `self` or `cls`). A `try` with a candidate in a
handler, `else` or `finally` is kept whole (a handler's guard reads the whole try body); a
`match` is kept whole.

A star import of one of the project's modules is always kept (the names it binds are in no
statement here). Files the slice cannot keep whole-line faithful (carriage returns, a BOM) or
that star-import a torch module anywhere (the detector reads a name the file binds nowhere as
that module's, and "nowhere" needs the whole file) are not sliced.
"""

from __future__ import annotations

import ast
import re
import unicodedata
from bisect import bisect_left
from dataclasses import dataclass, field
from typing import Iterator

from privlint.astgate import BODIES, SelfStores, children, returns_in, walk
from privlint.prefilter import may_spell_a_name
from privlint.project import dotted_name
from privlint.prose import declares_another_encoding

_WORD = re.compile(rb"[A-Za-z_\x80-\xff][A-Za-z0-9_\x80-\xff]*")  # non-ASCII bytes are name bytes
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_OPENED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.If, ast.For, ast.AsyncFor,
           ast.While, ast.With, ast.AsyncWith, ast.Try, ast.TryStar)
# A `try` is kept line by line in its body only: its handlers guard it by what they catch and
# repeat, and a handler's guard reads the whole body (so a use in a handler keeps it whole).
_TRIES = (ast.Try, ast.TryStar)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)

MODULE, CLASS, FUNCTION = "module", "class", "function"
NEARLY_ALL = 0.9  # a slice keeping this share of the lines is not worth making
# `self.x`, and `(self).x`, `self  # a note` then `.x`, `self.\` then `x` (as the resolver reads them).
_SELF_ATTRIBUTE = re.compile(rb"\b(?:self|cls)(?:[\s\\)]|#[^\n]*+)*+\.(?:[\s\\]|#[^\n]*+)*+"
                             rb"([A-Za-z_\x80-\xff][A-Za-z0-9_\x80-\xff]*)")


@dataclass(eq=False)
class _Scope:
    """A scope of names, as the detector's resolver has them: a name a function mentions is
    its own or its enclosing functions' or the module's (a class body is not seen from its
    methods); `self.<attribute>` in a method is its class's."""

    kind: str
    end: int                             # its last line
    parent: "_Scope | None" = None       # where its free names are looked up (never a class)
    owner: "_Scope | None" = None        # the class whose `self` its code means
    named: bytes = b""                   # a function whose returns type calls by this name
    mentioned: set[bytes] = field(default_factory=set)
    binders: dict[bytes, list["_Unit"]] = field(default_factory=dict)
    # Statements that narrow a name for the code after them (`assert isinstance(p, PG)`),
    # not kept yet, and the first line of the last statement kept here: a narrowing matters
    # to every kept statement after it (`self.pg = p.inner()` types what another method reads).
    narrowing: list["_Unit"] = field(default_factory=list)
    latest: int = 0
    # A class's attributes read through `self`, and the statements that store each.
    needed: set[bytes] = field(default_factory=set)
    storers: dict[bytes, list["_Unit"]] = field(default_factory=dict)
    # A class's names read through `self` that a kept method may define as a predicate: every
    # other definition of such a name is kept too (the last one is the method that runs).
    predicates: set[bytes] = field(default_factory=set)
    # Where a call by `named` is looked up: the scope the `def` stands in (a class body's own
    # code calls its functions by name too: `group = make_group()`).
    namer: "_Scope | None" = None


@dataclass(eq=False)
class _Body:
    start: int                 # the first line after what introduces it (a header, `else:`)
    units: list["_Unit"]


@dataclass(eq=False)
class _Unit:
    """One statement, or several that share a line (`a = 1; b = 2`)."""

    first: int                 # first line (decorators included), 1-based
    last: int
    statements: list[ast.stmt]
    scope: _Scope
    kept: bool = False
    whole: bool = False        # keep every line (a guard, a `try`)
    bodies: list[_Body] | None = None  # set when kept line by line
    stores: set[bytes] | None = None   # the attributes it stores on `self`, once asked
    inside: tuple[int, int] | None = None  # lines left out inside a kept display (`X = {`...`}`)
    words: frozenset[bytes] | None = None  # the names its lines mention, once asked


def _normalized(words: list[bytes], text: bytes) -> frozenset[bytes]:
    """The words found in `text`, and the form CPython gives each non-ASCII one (NFKC: `ｄist`
    is `dist`), as CPython's tree names what the text spells."""
    found = frozenset(words)
    if text.isascii():
        return found  # most code: one look at the text, not one at each word
    odd = [word for word in found if not word.isascii()]
    if not odd:
        return found
    return found | {unicodedata.normalize("NFKC", word.decode("utf-8", "replace")).encode() for word in odd}


def _first_line(statement: ast.stmt) -> int:
    decorators = getattr(statement, "decorator_list", None)
    return min([statement.lineno, *(d.lineno for d in decorators)]) if decorators else statement.lineno


def _units(body: list[ast.stmt], scope: _Scope) -> list[_Unit]:
    units: list[_Unit] = []
    for statement in body:
        first, last = _first_line(statement), statement.end_lineno or statement.lineno
        if units and first <= units[-1].last:
            units[-1].last = max(units[-1].last, last)
            units[-1].statements.append(statement)
        else:
            units.append(_Unit(first, last, [statement], scope))
    return units


# A statement's fields that hold only values. A name is bound inside a value only by a walrus
# or a comprehension's `for` target, so without `:=` or `for` in its text they are not walked.
_VALUE_FIELDS = frozenset({"value", "test", "iter", "context_expr", "subject", "guard",
                           "annotation", "exc", "cause", "msg", "returns", "decorator_list"})
_STATEMENT_LIKE = (ast.stmt, ast.withitem, ast.match_case, ast.excepthandler)


def _bound_names(statement: ast.stmt, text: bytes) -> set[bytes]:
    """Names a statement binds in the scope it runs in (not inside the functions and classes
    it defines). `text`: the statement's source, to skip its values when it has neither
    `:=` nor `for`."""
    found: set[bytes] = set()
    todo: list[ast.AST] = [statement]
    values = b":=" in text or b"for" in text
    while todo:
        node = todo.pop()
        if not values and isinstance(node, _STATEMENT_LIKE) \
                and type(node) not in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
                                       ast.Import, ast.ImportFrom):
            if type(node) is ast.ExceptHandler and node.name:
                found.add(node.name.encode())
            for name in node._fields:
                if name not in _VALUE_FIELDS:
                    child = getattr(node, name, None)
                    if type(child) is list:
                        todo.extend(item for item in child if isinstance(item, ast.AST))
                    elif isinstance(child, ast.AST):
                        todo.append(child)
            continue
        kind = type(node)
        if kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
            found.add(node.name.encode())
            continue
        if kind in (ast.Import, ast.ImportFrom):
            for alias in node.names:
                found.add((alias.asname or alias.name).split(".")[0].encode())
            continue
        if kind is ast.Name:
            if type(node.ctx) is not ast.Load:
                found.add(node.id.encode())
            continue
        if kind is ast.ExceptHandler and node.name:
            found.add(node.name.encode())
        todo.extend(children(node))
    return found


def _on_self(node: ast.AST) -> bool:
    return type(node) is ast.Attribute and type(node.value) is ast.Name \
        and node.value.id in ("self", "cls")


# `self.x =`, `(self).x =`, `self.x: T`, `self.a, self.b =`, `for self.x in`: more than
# stores (a call's argument `f(self.x, y)` looks the same), which `_stores_of` then tells apart.
# Over lines too, with comments between (`self.\` then `pg =`, `(self.pg  # c` then `) =`).
_STORE_LIKE = re.compile(rb"\b(?:self|cls)(?:[\s\\)]|#[^\n]*+)*+\.(?:[\s\\]|#[^\n]*+)*+"
                         rb"([A-Za-z_\x80-\xff][A-Za-z0-9_\x80-\xff]*)"
                         rb"(?:[\s\\]|#[^\n]*+)*+(?:=(?!=)|:|,|\)|\]|in\b)")


# `for` then `self` or `cls` as a loop's target: only space, brackets, line continuations and
# comments may stand between (a name spelled with other letters is read by CPython as NFKC:
# a text that is not ASCII is always walked).
_FOR_SELF = re.compile(rb"for(?:[\s\\(]|#[^\n]*+)*+(?:self|cls)\b")  # (`[0for self.pg in g]` is code)


def _stores_of(unit: "_Unit", lines: list[bytes]) -> set[bytes]:
    if unit.stores is None:
        text = b"\n".join(lines[unit.first - 1:unit.last])
        unit.stores = {name for s in unit.statements for name in _self_stores(s, text)}
    return unit.stores


def _statements_in(statements: list) -> "Iterator[ast.AST]":
    """These statements and every statement in their bodies, nested functions' and classes'
    too (and the `except` and `case` clauses that hold bodies). Expressions never hold a
    statement, so they are not walked."""
    pending = list(statements)
    while pending:
        node = pending.pop()
        yield node
        for name in BODIES:
            inner = getattr(node, name, None)
            if type(inner) is list:
                pending.extend(inner)


def _self_stores(statement: ast.stmt, text: bytes) -> set[bytes]:
    """The attributes a statement assigns on `self` (`self.pg = mesh.get_group()` types
    `self.pg` in every method of the class), a comprehension's target too (`[0 for self.mesh
    in meshes]`: the resolver binds it as a loop's). `text`: the statement's source; a
    comprehension is looked for only where it may show `for self.` (_FOR_SELF)."""
    stores: set[bytes] = set()
    for node in _statements_in([statement]):
        kind = type(node)
        if kind is ast.Assign:
            targets = node.targets
        elif kind is ast.AnnAssign or kind is ast.For or kind is ast.AsyncFor:
            targets = [node.target]
        else:
            continue
        for target in targets:
            if type(target) is not ast.Name:  # (most targets: a name holds no attribute)
                stores.update(part.attr.encode() for part in walk(target) if _on_self(part))
    if b"for" in text and (not text.isascii() or _FOR_SELF.search(text)):
        for node in walk(statement):
            if type(node) is ast.comprehension:
                stores.update(part.attr.encode() for part in walk(node.target) if _on_self(part))
    return stores


def _stored_values(statements: list[ast.stmt], attribute: str) -> "Iterator[ast.expr]":
    """The values these statements (and those in their bodies) assign to `self.<attribute>`
    or `cls.<attribute>` itself: a target inside a tuple or a subscript is given no value the
    resolver keeps, and a loop gives its elements, never a flag."""
    for node in _statements_in(statements):
        kind = type(node)
        if kind is ast.Assign:
            if any(_on_self(target) and target.attr == attribute for target in node.targets):
                yield node.value
        elif kind is ast.AnnAssign:
            if node.value is not None and _on_self(node.target) and node.target.attr == attribute:
                yield node.value


# Calls whose result the detector reads as a capability fact (guards.py's condition_facts).
_PROBES = frozenset({"hasattr", "getattr", "callable", "bool"})


def _may_be_a_flag(value: ast.expr, assigned: frozenset[str]) -> bool:
    """Whether the detector may read a capability flag from this value (guards.py's
    condition_facts, through `not`, `and`, `or`): a probe (`hasattr(...)`), a comparison, a
    name or a `self.<attribute>` (which may hold a flag), or a call by a name the file binds by
    a `def` or an assignment (`assigned`: only such a name may be a predicate; an imported one
    never is)."""
    todo = [value]
    while todo:
        node = todo.pop()
        kind = type(node)
        if kind is ast.UnaryOp:
            todo.append(node.operand)
        elif kind is ast.BoolOp:
            todo.extend(node.values)
        elif kind is ast.Compare or kind is ast.Name or (kind is ast.Attribute and _on_self(node)):
            return True
        elif kind is ast.Call and type(node.func) is ast.Name \
                and (node.func.id in _PROBES or node.func.id in assigned):
            return True
        elif kind is ast.Call and _on_self(node.func):
            return True  # `self.supported()`: a predicate method's call
    return False


def _may_be_predicate(unit: "_Unit", assigned: frozenset[str] | None) -> bool:
    """Whether a class's statement may define a predicate method the detector reads
    (tracking.py's `_predicate`), which a call `self.<name>()` in any method makes a
    capability fact. libcst reads a body by its lines, each judged by its first statement
    (`return pg; x = 1` is a return, `"doc"; x = 1` a string): a predicate has one line
    besides strings, and it starts with `return <flag>`. Every literal counts as a string
    here (libcst skips only a single one), which only keeps more. `assigned` None: any call
    by a name may be a predicate's."""
    statement = unit.statements[0]
    if len(unit.statements) != 1 or type(statement) not in _DEFS:
        return False
    firsts: list[ast.stmt] = []  # the first statement of each line of the body
    for inner in statement.body:
        if not firsts or inner.lineno != firsts[-1].lineno:
            firsts.append(inner)
    lines = [first for first in firsts if not _is_string_statement(first)]
    return len(lines) == 1 and type(lines[0]) is ast.Return and lines[0].value is not None \
        and (assigned is None or _may_be_a_flag(lines[0].value, assigned))


def _is_string_statement(statement: ast.stmt) -> bool:
    return type(statement) is ast.Expr and type(statement.value) is ast.Constant \
        and type(statement.value.value) in (str, bytes)


# Calls that never return: the process or the test module ends there (guards.leaves).
ENDING_CALLS = frozenset({"exit", "quit", "sys.exit", "os._exit", "pytest.skip", "pytest.exit",
                          "pytest.fail", "self.skipTest"})


def _is_guard(statement: ast.stmt) -> bool:
    """A statement whose guard holds for the code after it (detect.py's `leave_If`, `visit_Assert`),
    and a module's `pytestmark`, which guards its tests (the detector reads it where the module
    binds it once: its other bindings are kept as any binder of a name kept code mentions)."""
    if isinstance(statement, ast.Assert):
        return True
    if isinstance(statement, ast.ImportFrom) and (statement.module == "__future__"
                                                  or any(a.name == "*" for a in statement.names)):
        return True
    if type(statement) is ast.Assign and any(type(target) is ast.Name and target.id == "pytestmark"
                                             for target in statement.targets):
        return True
    if isinstance(statement, ast.If) and not statement.orelse:
        last = statement.body[-1]
        if isinstance(last, (ast.Return, ast.Raise, ast.Continue, ast.Break)) or (
                type(last) is ast.Expr and type(last.value) is ast.Call
                and dotted_name(last.value.func) in ENDING_CALLS):
            return True
        for statement_ in statement.body:
            for node in walk(statement_):
                if (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)) or (
                        isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                        and node.func.id == "setattr"):
                    return True
    return False


def _nested_guards(statement: ast.stmt):
    """The guards inside a compound statement's bodies (not inside the functions and classes
    it defines)."""
    todo = [child for name in BODIES for child in getattr(statement, name, ()) or ()]
    while todo:
        inner = todo.pop()
        if isinstance(inner, _SCOPES):
            continue
        if _is_guard(inner):
            yield inner
        todo.extend(child for name in BODIES for child in getattr(inner, name, ()) or ())


def _is_string(unit: _Unit, lines: list[bytes]) -> bool:
    """A bare string statement, as the detector's predicate reading skips one (a docstring): a
    single literal, text or bytes. Literals side by side are one constant to CPython and not
    one string to libcst, so the text tells them apart."""
    statement = unit.statements[0]
    if not _is_string_statement(statement):
        return False
    value = statement.value
    first, last = value.lineno, value.end_lineno or value.lineno
    text = b"\n".join(lines[first - 1:last])
    end = len(text) - len(lines[last - 1]) + (value.end_col_offset or 0)
    return _single_literal(text[value.col_offset:end])


def _single_literal(text: bytes) -> bool:
    """Whether `text`, a string constant's source, is one literal (`"a"`), not several (`"a" "b"`)."""
    body = text.lstrip(b"rRbBuU")
    quote = body[:3] if body[:3] in (b'"""', b"'''") else body[:1]
    close = body.find(quote, len(quote))
    while close >= 0:
        escapes = close - len(body[:close].rstrip(b"\\"))
        if not escapes % 2:  # a quote after an odd run of `\` never closes the literal, raw or not
            return close + len(quote) == len(body)
        close = body.find(quote, close + 1)
    return False


_ISINSTANCE = frozenset({b"isinstance"})


def _guarded_imports(tree: ast.Module) -> frozenset[bytes]:
    """The private names the imports inside a `try`'s body bind (`_dynamo` of `from torch
    import _dynamo`, `_dyn` of `import torch._dynamo as _dyn`)."""
    found: set[bytes] = set()
    for node in _statements_in(tree.body):
        if type(node) in _TRIES:
            for part in _statements_in(node.body):
                if type(part) is ast.Import or type(part) is ast.ImportFrom:
                    for alias in part.names:
                        name = (alias.asname or alias.name).split(".")[0]
                        if name[:1] == "_":
                            found.add(name.encode())
    return frozenset(found)


def _lines_holding(data: bytes, lines: list[bytes], names: frozenset[bytes]) -> frozenset[int]:
    """The numbers of the lines whose bytes hold one of `names`, and of every line that is not
    ASCII (it may spell one in other letters, as CPython reads names NFKC)."""
    starts: list[int] | None = None
    found: set[int] = set()
    for name in names:
        at = data.find(name)
        while at >= 0:
            if starts is None:
                starts = [0]
                for line in lines:
                    starts.append(starts[-1] + len(line) + 1)
            found.add(bisect_left(starts, at + 1))
            at = data.find(name, at + len(name))
    if names and not data.isascii():
        found.update(number for number, line in enumerate(lines, 1) if not line.isascii())
    return frozenset(found)


def _private(words: frozenset[bytes]) -> frozenset[bytes]:
    return frozenset(w for w in words if w[:1] == b"_" and not (w[:2] == b"__" and w[-2:] == b"__"))


def _quiet(text: bytes) -> bool:
    stripped = text.strip()
    return not stripped or stripped[:1] == b"#"


class _Slicer:
    """Chooses what to keep: a work list of kept statements, each read once (whole, or opened
    into its bodies), and per scope an index from names to the statements that bind them."""

    def __init__(self, lines: list[bytes], module: list[_Unit], candidates: frozenset[int],
                 private: frozenset[bytes], stars: list[int], scopes: list[_Scope],
                 stores: SelfStores | None = None):
        self.lines = lines
        self.module = module  # the module's statements
        self.stores = stores  # what the gate knows the stores on `self` may type
        self.candidates = sorted(candidates)
        self.private = private
        self.stars = stars  # the lines of the project's star imports: what they bind is unseen
        self.scopes = scopes  # every scope opened, for slice_source to release
        self.todo: list[_Unit] = []
        self.functions: list[_Body] = []  # the bodies of the functions opened
        self.bodies: list[_Body] = []

    def words(self, first: int, last: int) -> frozenset[bytes]:
        text = b"\n".join(self.lines[first - 1:last])
        return _normalized(_WORD.findall(text), text)

    def unit_words(self, unit: _Unit) -> frozenset[bytes]:
        if unit.words is None:
            unit.words = self.words(unit.first, unit.last)
        return unit.words

    def mentions(self, unit: _Unit, names: frozenset[bytes]) -> bool:
        """Whether the unit mentions one of `names`. Its text is looked at first: most units
        mention none, and an ASCII text (which NFKC leaves as it is) holds a name as a word
        only where it holds the name's bytes."""
        if unit.words is None:
            text = b"\n".join(self.lines[unit.first - 1:unit.last])
            if text.isascii() and not any(name in text for name in names):
                return False
            unit.words = _normalized(_WORD.findall(text), text)
        return bool(unit.words & names)

    def has_candidate(self, unit: _Unit) -> bool:
        return self.has_candidate_in(unit.first, unit.last)

    def has_candidate_in(self, first: int, last: int) -> bool:
        index = bisect_left(self.candidates, first)
        return index < len(self.candidates) and self.candidates[index] <= last

    def _holds_star(self, unit: _Unit) -> bool:
        """A star import binds names no statement shows: it is kept, and what holds it."""
        index = bisect_left(self.stars, unit.first)
        return index < len(self.stars) and self.stars[index] <= unit.last

    def keep(self, unit: _Unit) -> None:
        if not unit.kept:
            unit.kept = True
            self.todo.append(unit)
            scope = unit.scope
            if scope.kind == CLASS and _may_be_predicate(unit, None):
                # Kept for another reason (it mentions a private name): a later binding of the
                # name (a plain method of the same name) must come too, as the last one runs.
                text = b"\n".join(self.lines[unit.first - 1:unit.last])
                scope.predicates |= {name for s in unit.statements for name in _bound_names(s, text)}
            if unit.first > scope.latest:
                scope.latest = unit.first
                pending, scope.narrowing = scope.narrowing, []
                for narrowing in pending:
                    if narrowing.first < unit.first:
                        self.keep(narrowing)
                    else:
                        scope.narrowing.append(narrowing)

    def mention(self, scope: _Scope, first: int, last: int, own: bytes = b"") -> None:
        """Lines `first`..`last` of code running in `scope` are kept: what they mention is
        looked up there and in the scopes around it, and `self.<attribute>` in its class.
        `own`: the name a `def` on these lines binds, which its own line does not mention (a
        call by that name elsewhere does: then what the function returns is kept)."""
        text = b"\n".join(self.lines[first - 1:last])
        spelled = _WORD.findall(text)
        words: set[bytes] = set(_normalized(spelled, text))
        if own and spelled.count(own) == 1:
            words.discard(own)
        # `self.<attribute>` read in a method, or in code the class body runs itself (a
        # lambda, a default argument, a decorator), which the resolver reads in the class too.
        owner = scope if scope.kind == CLASS else scope.owner
        if owner is not None:
            self.need(owner, set(_normalized(_SELF_ATTRIBUTE.findall(text), text)))
        current: _Scope | None = scope  # a class body's own code sees its names (methods do not)
        while current is not None and words:
            words -= current.mentioned  # an enclosing scope has every name its inner ones have
            current.mentioned |= words
            for word in words:
                for unit in current.binders.pop(word, ()):
                    self.keep(unit)
            current = current.parent

    def need(self, owner: _Scope, attributes: set[bytes]) -> None:
        attributes -= owner.needed
        owner.needed |= attributes
        assigned = self._assigned()
        for attribute in attributes:
            for unit in owner.storers.pop(attribute, ()):
                if attribute in _stores_of(unit, self.lines) and self._store_matters(unit, attribute):
                    self.keep(unit)
            units = owner.binders.get(attribute, ())
            if attribute in owner.predicates or any(_may_be_predicate(unit, assigned) for unit in units):
                owner.predicates.add(attribute)  # `self.<attribute>()` may call a predicate method
                for unit in units:
                    self.keep(unit)

    def _defines_predicate(self, unit: _Unit, binds: set[bytes]) -> bool:
        """Whether a class's statement binding names its methods read through `self` may
        define a predicate method, or redefine one that may (the last definition runs)."""
        if binds & unit.scope.predicates:
            return True
        if _may_be_predicate(unit, self._assigned()):
            unit.scope.predicates |= binds & unit.scope.needed
            return True
        return False

    def _assigned(self) -> frozenset[str] | None:
        """The names a predicate may be called by (SelfStores.assigned); None: not worked out."""
        return self.stores.assigned if self.stores is not None else None

    def _store_matters(self, unit: _Unit, attribute: bytes) -> bool:
        """Whether what `unit` stores on `self.<attribute>` may change what the detector reads
        there. The resolver keeps for an attribute only a tracked value or a capability flag
        (the last such store); any other store leaves it as it was. So a store matters when
        the gate found the attribute may hold a tracked value (or did not work that out), or
        when a stored value may be a flag (_may_be_a_flag)."""
        stores = self.stores
        if stores is None or not attribute.isascii() or attribute.decode() in stores.typed:
            return True  # (a name spelled with other letters is kept: CPython reads it NFKC)
        return any(_may_be_a_flag(value, stores.assigned)
                   for value in _stored_values(unit.statements, attribute.decode()))

    def add(self, units: list[_Unit]) -> None:
        """Read a body's statements: keep those kept for their own sake, index the others."""
        for unit in units:
            scope = unit.scope
            statement = unit.statements[0]
            definition = isinstance(statement, (*_DEFS, ast.ClassDef))
            guard = any(_is_guard(s) for s in unit.statements)
            # A guard inside a compound statement narrows names for the rest of the scope too
            # (`if c: assert isinstance(p, PG)`): such a statement is kept, to reach it.
            nested = not guard and not definition and self.has_candidate_in(unit.first, scope.end) \
                and any(self.has_candidate_in((inner.end_lineno or inner.lineno) + 1, scope.end)
                        for s in unit.statements for inner in _nested_guards(s))
            unit.whole = guard or (scope.kind == CLASS and not definition) \
                or any(type(s) is ast.Match for s in unit.statements) \
                or (type(statement) in _TRIES and self.has_candidate_in(
                    statement.body[-1].end_lineno + 1, unit.last))
            # A guard holds for the code after it, up to the end of its scope (a narrowing
            # `assert isinstance(p, DTensor)` too): it matters when a candidate is there.
            keep = self.has_candidate(unit) or nested or self._holds_star(unit) \
                or (guard and self.has_candidate_in(unit.last + 1, scope.end)) \
                or (scope.kind == CLASS and not definition and not _is_string(unit, self.lines)) \
                or self.mentions(unit, self.private)
            if scope.kind == FUNCTION and not keep:
                keep = any(type(s) in (ast.Global, ast.Nonlocal) for s in unit.statements)
                if not keep and scope.named and next(returns_in(unit.statements), None) is not None:
                    # What the returns give types a call of the function by its name.
                    if scope.named in scope.namer.mentioned:
                        keep = True
                    else:
                        scope.namer.binders.setdefault(scope.named, []).append(unit)
            if not keep and self.mentions(unit, _ISINSTANCE) and (guard or (
                    not definition and any(True for s in unit.statements for _ in _nested_guards(s)))):
                # A narrowing (`assert isinstance(p, PG)`, `if not isinstance(...): return`,
                # or one inside this statement) holds for the code after it in its scope.
                if scope.latest > unit.first:
                    keep = True
                else:
                    scope.narrowing.append(unit)
            if keep:
                self.keep(unit)
                continue
            owner = scope if scope.kind == CLASS else scope.owner
            # What it may store on `self`, read from the text (a tree walk only when it matters).
            text = b"\n".join(self.lines[unit.first - 1:unit.last])
            stores = set() if owner is None or isinstance(statement, ast.ClassDef) \
                else set(_normalized(_STORE_LIKE.findall(text), text))
            binds = {name for s in unit.statements for name in _bound_names(s, text)}
            needed = stores & owner.needed if stores else ()
            if needed:  # (the tree is walked for what it stores only when such a store is read)
                needed &= _stores_of(unit, self.lines)
            if binds & scope.mentioned or any(self._store_matters(unit, attribute) for attribute in needed) \
                    or (scope.kind == CLASS and binds & scope.needed and self._defines_predicate(unit, binds)):
                self.keep(unit)
                continue
            for name in binds:
                scope.binders.setdefault(name, []).append(unit)
            for name in stores:
                owner.storers.setdefault(name, []).append(unit)

    def run(self) -> None:
        while True:
            while self.todo:
                self.read(self.todo.pop())
            if not self._shape():
                return

    def read(self, unit: _Unit) -> None:
        statement = unit.statements[0]
        if unit.whole or len(unit.statements) > 1 or not isinstance(statement, _OPENED):
            unit.inside = self._display_inside(unit)
            if unit.inside is None:
                self.mention(unit.scope, unit.first, unit.last)
            else:
                self.mention(unit.scope, unit.first, unit.inside[0] - 1)
                self.mention(unit.scope, unit.inside[1] + 1, unit.last)
            return
        outer = unit.scope
        if isinstance(statement, _DEFS):
            # The returns type a call by the function's name where the `def` stands (`self.m()`
            # is untyped to the detector, but a class body may call `m()` itself).
            named = statement.name.encode() if statement.returns is None else b""
            scope = _Scope(FUNCTION, unit.last, outer if outer.kind != CLASS else outer.parent,
                           outer if outer.kind == CLASS else outer.owner, named, namer=outer)
        elif isinstance(statement, ast.ClassDef):
            scope = _Scope(CLASS, unit.last, outer if outer.kind != CLASS else outer.parent)
        else:
            scope = outer
        if scope is not outer:
            self.scopes.append(scope)
        blocks = [statement.body]
        if getattr(statement, "orelse", None) and type(statement) not in _TRIES:
            blocks.append(statement.orelse)
        bodies: list[_Body] = []
        floor = unit.first
        for block in blocks:
            units = _units(block, scope)
            start = units[0].first
            while start - 1 > floor and _quiet(self.lines[start - 2]):
                start -= 1
            bodies.append(_Body(start, units))
            floor = units[-1].last
        unit.bodies = bodies
        # The header (decorators, signature, test) runs in the scope around the statement.
        if isinstance(statement, _DEFS):
            if statement.lineno > unit.first:
                self.mention(outer, unit.first, statement.lineno - 1)  # the decorators
            self.mention(outer, statement.lineno, bodies[0].start - 1, own=statement.name.encode())
        else:
            self.mention(outer, unit.first, bodies[0].start - 1)
        for before, body in zip(bodies, bodies[1:]):
            self.mention(outer, before.units[-1].last + 1, body.start - 1)
        if bodies[-1].units[-1].last < unit.last:  # a try's handlers, `else:` and `finally:`
            self.mention(outer, bodies[-1].units[-1].last + 1, unit.last)
        for body in bodies:
            self.add(body.units)
            self.bodies.append(body)
        if type(statement) in _TRIES:
            # What a flag the try sets proves is what every import of its body imports.
            for inner in bodies[0].units:
                if any(type(s) is ast.Import or type(s) is ast.ImportFrom for s in inner.statements):
                    self.keep(inner)
        if isinstance(statement, _DEFS):
            self.functions.append(bodies[0])
        elif isinstance(statement, ast.If) and not statement.orelse:
            self.keep(bodies[0].units[-1])  # the detector reads a body's last statement: does it leave?

    def _display_inside(self, unit: _Unit) -> tuple[int, int] | None:
        """The lines between the brackets of a list, dict, set or tuple that an assignment
        gives (`TABLE = {` ... `}`), when nothing there can matter: the detector types any such
        display as a plain literal, whatever it holds. None when that cannot be told."""
        if len(unit.statements) > 1 or self.has_candidate(unit):
            return None
        statement = unit.statements[0]
        value = getattr(statement, "value", None) if type(statement) in (ast.Assign, ast.AnnAssign) else None
        if type(value) not in (ast.Dict, ast.List, ast.Set, ast.Tuple) \
                or value.end_lineno - value.lineno < 3 or value.end_lineno != statement.end_lineno:
            return None
        opening, closing = self.lines[value.lineno - 1], self.lines[value.end_lineno - 1]
        if opening.rstrip()[-1:] not in (b"[", b"{", b"(") \
                or len(opening.rstrip()) != value.col_offset + 1 \
                or closing.lstrip()[:1] not in (b"]", b"}", b")") \
                or len(closing) - len(closing.lstrip()) != value.end_col_offset - 1:
            return None  # not one bracket alone at the end of the first line, at the start of the last
        if self.unit_words(unit) & self.private or any(
                type(node) is ast.NamedExpr or (type(node) is ast.comprehension and any(
                    _on_self(part) for part in walk(node.target))) for node in walk(value)):
            return None  # a private name the candidates use; a walrus binds a name; `for self.x in`
        return value.lineno + 1, value.end_lineno - 1

    def _shape(self) -> bool:
        """Keep what the shape of the code needs; True if that kept anything. A function keeps
        its only statement, or two of two or more (a function of one `return hasattr(...)` is
        read as a predicate); every body keeps a statement (it cannot be empty)."""
        added = False
        for body in self.functions:
            code = [unit for unit in body.units if not _is_string(unit, self.lines)]
            if sum(unit.kept for unit in code) < min(2, len(code)):
                self.keep(min((unit for unit in code if not unit.kept),
                              key=lambda unit: unit.last - unit.first))
                added = True
        for body in self.bodies:
            if not any(unit.kept for unit in body.units):
                self.keep(min(body.units, key=lambda unit: unit.last - unit.first))
                added = True
        for units in (self.module, *(body.units for body in self.bodies)):
            for unit in self._footers_taken(units):
                self.keep(unit)
                added = True
        return added

    def _footers_taken(self, units: list[_Unit]) -> list[_Unit]:
        """The statements to keep so that no kept statement's leading comments become the
        footer of a block kept above it: a comment indented as deep as that block's body,
        after a statement that ends none (`x = 1` then `        # note`), is the next
        statement's, until that statement is left out. The one left out just before is kept."""
        taken: list[_Unit] = []
        above: _Unit | None = None  # the last kept statement
        for index, unit in enumerate(units):
            if not unit.kept:
                continue
            if above is not None and not units[index - 1].kept:
                block = _last_block_indent(above, self.lines)  # the block it ends with, if any
                start = _footer_end(units[index - 1], unit, self.lines)
                if block is not None and any(line.startswith(block) for line in self.lines[start:unit.first - 1]):
                    taken.append(units[index - 1])
            above = unit
        return taken


@dataclass(frozen=True)
class Starts:
    """First lines of statements, decorators included, from CPython's `ast`: of each
    module-level statement (`a; b` is one, as libcst has it), and of each statement in the body
    of a module-level class, by the class's index among the module's statements; and, when
    asked (body), of each statement in the body of a module-level function or method."""

    statements: list[int]
    members: dict[int, list[int]] = field(default_factory=dict)
    units: list[_Unit] = field(default_factory=list, repr=False, compare=False)  # of `statements`
    # A file's line -> the line in the source these lines are of (a slice's), if not the same.
    where: dict[int, int] | None = field(default=None, repr=False, compare=False)

    def body(self, at: int, member: int | None = None) -> list[int] | None:
        """The first lines of the statements in the body of the function that is the
        module-level statement `at`, or statement `member` of the class that is; None when it is
        not a function or a line is not known."""
        if at >= len(self.units):
            return None
        unit = self.units[at]
        if member is not None:
            inside = _class_members(unit) if type(unit.statements[0]) is ast.ClassDef else []
            if member >= len(inside):
                return None
            unit = inside[member]
        if len(unit.statements) != 1 or not isinstance(unit.statements[0], _DEFS):
            return None
        body = [inner for inner in unit.bodies[0].units if inner.kept] if unit.bodies is not None \
            else _units(unit.statements[0].body, unit.scope)
        lines = [inner.first if self.where is None else self.where.get(inner.first) for inner in body]
        return None if None in lines else lines  # type: ignore[return-value]


@dataclass(frozen=True)
class Slice:
    """The kept lines, in order, with the others left out: libcst's parser pays for every line,
    blank ones too (a blank line is a node). Columns are the file's own; lines are mapped back."""

    source: bytes
    starts: Starts      # the first lines of the statements kept, in `source`
    numbers: list[int]  # the file's line number of each line of `source`

    def original(self, line: int) -> int:
        return self.numbers[line - 1] if 0 < line <= len(self.numbers) else line


def statement_starts(tree: ast.Module) -> Starts:
    """The first line of each module-level statement as libcst sees them (`a; b` is one), and
    of each statement in a module-level class's body."""
    units = _units(tree.body, _Scope(MODULE, 0))
    members = {}
    for at, unit in enumerate(units):
        if type(unit.statements[0]) is ast.ClassDef:
            members[at] = [member.first for member in _class_members(unit)]
    return Starts([unit.first for unit in units], members, units)


def _class_members(unit: _Unit) -> list[_Unit]:
    """The statements of a class's body, as units: the kept ones when the class is kept line
    by line."""
    if unit.bodies is not None:
        return [member for member in unit.bodies[0].units if member.kept]
    return _units(unit.statements[0].body, _Scope(CLASS, 0))


def _star_imports(tree: ast.Module) -> list[ast.ImportFrom]:
    """`from m import *` statements: at module level, in its `if`s and `try`s too (Python
    allows them nowhere else, so function and class bodies are not walked)."""
    found: list[ast.ImportFrom] = []
    pending = list(tree.body)
    while pending:
        node = pending.pop()
        if type(node) is ast.ImportFrom:
            if node.names[0].name == "*":
                found.append(node)
        elif not isinstance(node, _SCOPES):
            for name in BODIES:
                inner = getattr(node, name, None)
                if type(inner) is list:
                    pending.extend(inner)
    return found


def slice_source(data: bytes, tree: ast.Module, candidates: frozenset[int],
                 inside_torch: bool = False, stores: SelfStores | None = None,
                 names: frozenset[str] | None = None) -> Slice | None:
    """The kept lines of the file (see Slice); None to parse it whole. `inside_torch`: the
    file is a module of torch's own package, where a relative import names torch's modules.
    `stores`: what the gate worked out of the values stored on `self` (None: any may type).
    `names`: the private names the candidate uses read (the gate's Reading.names); None: every
    private word on the candidates' lines."""
    scopes: list[_Scope] = []
    try:
        return _slice(data, tree, candidates, inside_torch, scopes, stores, names)
    finally:
        # A scope's indexes point at its statements and each statement at its scope: left as
        # they are, these cycles keep every file's trees (CPython's too) for the cyclic
        # collector (about 3% of a cold run's CPU). Emptied, reference counting frees them.
        for scope in scopes:
            scope.binders.clear()
            scope.storers.clear()
            scope.narrowing.clear()


def _slice(data: bytes, tree: ast.Module, candidates: frozenset[int], inside_torch: bool,
           scopes: list[_Scope], stores: SelfStores | None, names: frozenset[str] | None) -> Slice | None:
    if b"\r" in data or data.startswith(b"\xef\xbb\xbf"):
        return None
    if declares_another_encoding(data):
        return None  # the slice would leave out the declaration, and be read as UTF-8
    if may_spell_a_name(data):
        return None  # a string that spells a name (`"\x64ist.PG"`, `"\x5ffoo"`) no word shows
    lines = data.split(b"\n")
    module = _Scope(MODULE, len(lines))
    scopes.append(module)
    units = _units(tree.body, module)
    if not units or not candidates:
        return None
    stars = _star_imports(tree)
    if any(inside_torch if star.level else (star.module or "").split(".")[0] == "torch"
           for star in stars):
        # The detector reads any name the file binds nowhere as the star-imported module's
        # (its star roots), and "nowhere" is the whole file's answer, not a slice's.
        return None
    # The private names the candidates read: whatever else mentions them is kept, so the
    # detector's whole-file reading of those names ("set here first", probes, a class's own
    # member, a use through a name that may hold a private path) is unchanged. Another private
    # word on a candidate's line (`f(_GROUP)`) is a name like any other: its bindings are kept.
    private = _private(frozenset(name.encode() for name in names) if names is not None else frozenset(
        w for line in candidates if 0 < line <= len(lines) for w in _WORD.findall(lines[line - 1])))
    # A use through a private name a guarded import binds (`_dynamo.optimize(...)` after `try:
    # from torch import _dynamo`) is no candidate of the gate's, and may still be reported (the
    # import's handler may have let its failure pass): the guards before it are kept as a
    # candidate's are.
    slicer = _Slicer(lines, units, candidates | _lines_holding(data, lines, _guarded_imports(tree) & private),
                     private, sorted(star.lineno for star in stars), scopes, stores)
    slicer.add(units)
    slicer.run()
    first = next((index for index, unit in enumerate(units) if unit.kept), 0)
    if first and any(line.lstrip().startswith(b"#") for line in lines[
            _footer_end(units[first - 1], units[first], lines):units[first].first - 1]):
        # Comments at the top of a file are the module's header to libcst, and comments after
        # a statement are the next statement's own (its fingerprint hashes them): the file's
        # first statement is kept, so that those comments stay the next statement's.
        slicer.keep(units[0])
        slicer.run()
    keep = bytearray(len(lines) + 1)
    _mark(units, keep, lines, 1)
    numbers = [number for number in range(1, len(lines) + 1) if keep[number]]
    if len(numbers) >= len(lines) * NEARLY_ALL:
        return None  # nearly everything: the whole file parses as fast
    source = b"\n".join(lines[number - 1] for number in numbers)
    if data.endswith(b"\n") and not source.endswith(b"\n"):
        source += b"\n"
    where = {number: index for index, number in enumerate(numbers, 1)}
    kept = [unit for unit in units if unit.kept]
    starts = [where.get(unit.first) for unit in kept]
    if None in starts:
        return None  # a statement whose first line is not kept: never expected, but then whole
    members = {}
    for at, unit in enumerate(kept):
        if type(unit.statements[0]) is ast.ClassDef:
            firsts = [where.get(member.first) for member in _class_members(unit)]
            if None not in firsts:
                members[at] = firsts
    return Slice(source, Starts(starts, members, kept, where), numbers)  # type: ignore[arg-type]


def fixable_outside_try(data: bytes, tree: ast.Module | None, candidates: frozenset[int],
                        fixable: tuple[frozenset[bytes], ...]) -> bool:
    """Whether a candidate line holds every word of a fixable rule (`_dynamo` and `disable`)
    outside a `try` (where the use is most often a guarded fallback, which needs no fix): such
    a file is worth analysing whole at once, as its fix is planned on the whole file."""
    lines = data.split(b"\n")
    found = [line for line in candidates if 0 < line <= len(lines)
             and any(needed <= set(_WORD.findall(lines[line - 1])) for needed in fixable)]
    if not found or tree is None:
        return bool(found)
    tries = [(node.lineno, node.end_lineno or node.lineno) for node in _statements_in(tree.body)
             if type(node) in _TRIES]
    return any(not any(first <= line <= last for first, last in tries) for line in found)


def _span(keep: bytearray, first: int, last: int) -> None:
    if last >= first:
        keep[first:last + 1] = b"\x01" * (last - first + 1)


def _mark(units: list[_Unit], keep: bytearray, lines: list[bytes], start: int) -> None:
    """Mark the lines of the kept statements, with the comments that libcst gives them (a
    finding's fingerprint hashes its statement with the comments above it). `start`: the
    first line after what introduces these statements (the file's start, a header)."""
    previous_end = start - 1
    previous: _Unit | None = None
    for unit in units:
        footer_end = previous_end if previous is None else _footer_end(previous, unit, lines)
        if previous is not None and previous.kept:
            _span(keep, previous_end + 1, footer_end)  # a footer goes with its statement
        if unit.kept:
            _span(keep, footer_end + 1, unit.first - 1)
            if unit.bodies is None and unit.inside is not None:
                _span(keep, unit.first, unit.inside[0] - 1)
                _span(keep, unit.inside[1] + 1, unit.last)
            elif unit.bodies is None:
                _span(keep, unit.first, unit.last)
            else:
                bodies = unit.bodies
                _span(keep, unit.first, bodies[0].start - 1)  # decorators, the header
                for index, body in enumerate(bodies):
                    if index:  # `else:` and the comments around it
                        _span(keep, bodies[index - 1].units[-1].last + 1, body.start - 1)
                    _mark(body.units, keep, lines, body.start)
                _span(keep, bodies[-1].units[-1].last + 1, unit.last)  # a try's handlers
        previous_end = unit.last
        previous = unit


def _footer_end(previous: _Unit, unit: _Unit, lines: list[bytes]) -> int:
    """The last line of the footer `previous` ends with, before `unit` (`previous.last` when it
    has none). The lines between two statements are the later one's, except the footer of the
    block the earlier one ends with: libcst gives that block every line up to the last one that
    starts with the block's indentation."""
    end = previous.last
    indent = _last_block_indent(previous, lines)
    if indent is not None:
        for number in range(previous.last + 1, unit.first):
            if lines[number - 1].startswith(indent):
                end = number
    return end


def _last_block_indent(unit: _Unit, lines: list[bytes]) -> bytes | None:
    """The indentation of the block a statement ends with (`def f():` then its body's), None
    when it ends with none (`x = 1`, `if c: pass`)."""
    statement = unit.statements[-1]
    while True:
        kind = type(statement)
        if kind in _TRIES:  # body, handlers, `else`, `finally`: the last one present ends it
            block = statement.finalbody or statement.orelse \
                or (statement.handlers[-1].body if statement.handlers else statement.body)
        elif kind is ast.Match:  # libcst gives a `match` its own footer, at its cases' indentation
            text = lines[statement.cases[-1].pattern.lineno - 1]
            return text[:len(text) - len(text.lstrip(b" \t\x0c"))]
        elif isinstance(statement, _OPENED):
            block = getattr(statement, "orelse", None) or statement.body
        else:
            return None
        first = block[0]
        text = lines[first.lineno - 1]
        indent = text[:first.col_offset]
        if indent.strip():
            return None  # on its header's line (`if c: pass`): no indented block
        if kind is ast.If and block is statement.orelse and len(block) == 1 \
                and type(first) is ast.If and text[first.col_offset:].startswith(b"elif"):
            statement = first  # `elif`: the chain's last block is that `if`'s
            continue
        return indent
