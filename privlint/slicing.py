"""Hand libcst only the code a finding can depend on: the statements around the candidates.

The `ast` gate (astgate.py) says on which lines a finding may sit. A slice keeps the top-level
statements holding those lines, and every statement their outcome can depend on; it blanks
the other statements' lines, so that every kept line keeps its number and its columns and
libcst parses a fraction of the file. What a kept statement depends on, and is kept with it
(repeated until nothing changes):

- a statement that binds a name a kept statement mentions (an import, an assignment, a `def`
  whose result is typed, a flag) — scopes ignored, which only keeps more;
- a statement that mentions a private name a kept statement mentions (the detector's "the
  project sets `_x` itself" and "make sure it exists" read the whole file);
- module-level guards that hold for all the code below them: `assert`, and an `if` without
  `else` whose body leaves (`raise`) or sets attributes; `from __future__` and star imports.

Inside a kept class, the same choice is made among the class's own statements (methods that
set `self.pg` type `self.pg` in the others; private names set anywhere count). Files the
slice cannot keep whole-line faithful (carriage returns, a BOM) or that star-import a module
(whose names no statement shows) are not sliced.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

_WORD = re.compile(rb"[A-Za-z_\x80-\xff][A-Za-z0-9_\x80-\xff]*")  # non-ASCII bytes are name bytes
_BODIES = ("body", "orelse", "finalbody", "handlers", "cases")


@dataclass
class _Unit:
    """One statement, or several that share a line (`a = 1; b = 2`)."""

    first: int                                  # first line (decorators included), 1-based
    last: int
    statements: list[ast.stmt]
    words: frozenset[bytes] = frozenset()
    binds: frozenset[bytes] = frozenset()
    kept: bool = False
    inner: list["_Unit"] | None = field(default=None)  # a class's body, when sliced within


def _first_line(statement: ast.stmt) -> int:
    decorators = getattr(statement, "decorator_list", None)
    return min([statement.lineno, *(d.lineno for d in decorators)]) if decorators else statement.lineno


def _units(body: list[ast.stmt]) -> list[_Unit]:
    units: list[_Unit] = []
    for statement in body:
        first, last = _first_line(statement), statement.end_lineno or statement.lineno
        if units and first <= units[-1].last:
            units[-1].last = max(units[-1].last, last)
            units[-1].statements.append(statement)
        else:
            units.append(_Unit(first, last, [statement]))
    return units


def _bound_names(statement: ast.stmt) -> set[str]:
    """Names a statement binds in the scope it runs in (not inside the functions and classes
    it defines)."""
    found: set[str] = set()
    todo: list[ast.AST] = [statement]
    while todo:
        node = todo.pop()
        kind = type(node)
        if kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
            found.add(node.name)
            continue
        if kind in (ast.Import, ast.ImportFrom):
            for alias in node.names:
                found.add((alias.asname or alias.name).split(".")[0])
            continue
        if kind is ast.Name:
            if type(node.ctx) is not ast.Load:
                found.add(node.id)
            continue
        if kind is ast.ExceptHandler and node.name:
            found.add(node.name)
        for name in node._fields:
            value = getattr(node, name, None)
            if type(value) is list:
                todo.extend(item for item in value if isinstance(item, ast.AST))
            elif isinstance(value, ast.AST):
                todo.append(value)
    return found


_SELF_ATTRIBUTE = re.compile(rb"\b(?:self|cls)\s*\.\s*([A-Za-z_]\w*)")


def _on_self(node: ast.AST) -> bool:
    return type(node) is ast.Attribute and type(node.value) is ast.Name \
        and node.value.id in ("self", "cls")


def _self_stores(statement: ast.stmt) -> dict[bytes, set[bytes]]:
    """The attributes a method assigns on `self` (`self.pg = mesh.get_group()` types
    `self.pg`), each with the `self` attributes its value reads (`self.mesh` here)."""
    stores: dict[bytes, set[bytes]] = {}
    for node in ast.walk(statement):
        kind = type(node)
        if kind is ast.Assign:
            targets, value = node.targets, node.value
        elif kind is ast.AnnAssign:
            targets, value = [node.target], node.value
        elif kind is ast.For or kind is ast.AsyncFor:
            targets, value = [node.target], node.iter
        else:
            continue
        read = {child.attr.encode() for child in ast.walk(value) if _on_self(child)} \
            if value is not None else set()
        for target in targets:
            if _on_self(target):
                stores.setdefault(target.attr.encode(), set()).update(read)
    return stores


def _is_module_guard(statement: ast.stmt) -> bool:
    """A statement whose guard holds for the code after it (detect.py's `leave_If`, `visit_Assert`)."""
    if isinstance(statement, ast.Assert):
        return True
    if isinstance(statement, ast.ImportFrom) and (statement.module == "__future__"
                                                  or any(a.name == "*" for a in statement.names)):
        return True
    if isinstance(statement, ast.If) and not statement.orelse:
        if isinstance(statement.body[-1], (ast.Return, ast.Raise, ast.Continue, ast.Break)):
            return True
        for statement_ in statement.body:
            for node in ast.walk(statement_):
                if (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)) or (
                        isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                        and node.func.id == "setattr"):
                    return True
    return False


def _private(words: frozenset[bytes]) -> frozenset[bytes]:
    return frozenset(w for w in words if w[:1] == b"_" and not (w[:2] == b"__" and w[-2:] == b"__"))


def _words(lines: list[bytes], first: int, last: int) -> frozenset[bytes]:
    return frozenset(_WORD.findall(b"\n".join(lines[first - 1:last])))


def _has(unit: _Unit, candidates: frozenset[int]) -> bool:
    return any(unit.first <= line <= unit.last for line in candidates)


def _slice_class(unit: _Unit, lines: list[bytes], candidates: frozenset[int],
                 private: frozenset[bytes]) -> frozenset[bytes]:
    """Keep, within a class, the statements the candidates depend on; return the words of
    what is kept. A method's code sees the rest of its class only through `self.<attr>` (the
    detector types `self.pg` from `self.pg = ...` in any method) and the private names the
    class defines, so the class's other methods are left out."""
    statement = unit.statements[0]
    body = _units(statement.body)
    if body[0].first <= statement.lineno:
        unit.inner = None
        return _words(lines, unit.first, unit.last)  # `class A: x = 1` on one line: whole
    words = set(_words(lines, unit.first, body[0].first - 1))  # decorators, bases
    for inner in body:
        inner.words = _words(lines, inner.first, inner.last)
        defines = isinstance(inner.statements[0], (ast.FunctionDef, ast.AsyncFunctionDef,
                                                     ast.ClassDef))
        # Statements of the class body itself (attributes, docstrings) are kept: they are
        # small, and a candidate there reads the class scope like module code.
        inner.kept = not defines or _has(inner, candidates) or bool(inner.words & private)
    # The `self` attributes the candidates read, and what the statements that set them read.
    attributes: set[bytes] = set()
    for inner in body:
        if inner.kept:
            if len(inner.statements) == 1 and isinstance(inner.statements[0], ast.ClassDef):
                words |= _slice_class(inner, lines, candidates, private)
            else:
                words |= inner.words
            if _has(inner, candidates):
                attributes |= set(_SELF_ATTRIBUTE.findall(b"\n".join(
                    lines[inner.first - 1:inner.last])))
    stores: list[dict[bytes, set[bytes]] | None] = [None] * len(body)  # read when needed
    changed = True
    while changed:
        changed = False
        for number, inner in enumerate(body):
            if not attributes & inner.words or isinstance(inner.statements[0], ast.ClassDef):
                continue  # it does not even say the attribute's name
            sets = stores[number]
            if sets is None:
                sets = stores[number] = {k: v for s in inner.statements
                                         for k, v in _self_stores(s).items()}
            relevant = attributes.intersection(sets)
            if relevant:
                for name in relevant:
                    attributes |= sets.pop(name)
                changed = True
                if not inner.kept:
                    inner.kept = True
                    words |= inner.words
    if not any(inner.kept for inner in body):
        body[0].kept = True  # a class needs a body
        words |= body[0].words
    unit.inner = body
    return frozenset(words)


def _choose(units: list[_Unit], lines: list[bytes], candidates: frozenset[int],
            private: frozenset[bytes]) -> None:
    """Mark the module's statements to keep: those with candidates, and what they depend on."""
    mentioned: set[bytes] = set()
    for unit in units:
        unit.words = _words(lines, unit.first, unit.last)
        unit.binds = frozenset(n.encode() for s in unit.statements for n in _bound_names(s))
        unit.kept = _has(unit, candidates) or bool(unit.words & private) \
            or any(_is_module_guard(s) for s in unit.statements)
    done: set[int] = set()
    changed = True
    while changed:
        changed = False
        for index, unit in enumerate(units):
            if not unit.kept and unit.binds & mentioned:
                unit.kept = True
            if unit.kept and index not in done:
                done.add(index)
                changed = True
                if len(unit.statements) == 1 and isinstance(unit.statements[0], ast.ClassDef):
                    mentioned |= _slice_class(unit, lines, candidates, private)
                else:
                    mentioned |= unit.words


@dataclass(frozen=True)
class Slice:
    source: bytes
    starts: list[int]  # the first line of each module-level statement kept (decorators included)


def statement_starts(tree: ast.Module) -> list[int]:
    """The first line of each module-level statement as libcst sees them (`a; b` is one)."""
    return [unit.first for unit in _units(tree.body)]


def slice_source(data: bytes, tree: ast.Module, candidates: frozenset[int]) -> Slice | None:
    """The file with every line outside the kept statements blanked; None to parse it whole."""
    if b"\r" in data or data.startswith(b"\xef\xbb\xbf"):
        return None
    lines = data.split(b"\n")
    units = _units(tree.body)
    if not units or not candidates or any(
            type(s) is ast.ImportFrom and s.names[0].name == "*" for s in tree.body):
        return None  # a star import binds names no statement shows (the detector's star roots)
    # The private names the candidates use: whatever else mentions them is kept, so the
    # detector's whole-file reading of those names ("set here first", probes) is unchanged.
    private = _private(frozenset(w for line in candidates if 0 < line <= len(lines)
                                 for w in _WORD.findall(lines[line - 1])))
    _choose(units, lines, candidates, private)
    keep = bytearray(len(lines) + 1)
    _mark(units, keep, lines, 1)
    if sum(keep) * 10 >= len(lines) * 9:
        return None  # nearly everything: the whole file parses as fast
    return Slice(b"\n".join(line if keep[number] else b"" for number, line in enumerate(lines, 1)),
                 [unit.first for unit in units if unit.kept])


def _mark(units: list[_Unit], keep: bytearray, lines: list[bytes], start: int) -> None:
    """Mark the lines of the kept statements, with the comments that libcst gives them (a
    finding's fingerprint hashes its statement with the comments above it). `start`: the
    first line after what comes before these statements (the previous statement, a header)."""
    previous_end = start - 1
    for unit in units:
        if unit.kept:
            # The comments above a statement are its own, except those indented deeper than it
            # right after a block: the footer of the block before (kept with it, or not).
            indent = len(lines[unit.first - 1]) - len(lines[unit.first - 1].lstrip())
            footer = previous_end < unit.first - 1
            for number in range(previous_end + 1, unit.first):
                text = lines[number - 1]
                stripped = text.lstrip()
                if footer and stripped and len(text) - len(stripped) > indent:
                    continue
                footer = footer and not stripped
                keep[number] = 1
            if unit.inner is None:
                keep[unit.first:unit.last + 1] = b"\x01" * (unit.last - unit.first + 1)
            else:
                header_end = unit.inner[0].first  # decorators and the `class ...:` line(s)
                keep[unit.first:header_end] = b"\x01" * (header_end - unit.first)
                _mark(unit.inner, keep, lines, header_end)
        previous_end = unit.last
