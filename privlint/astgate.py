"""The second lossless prefilter: prove with CPython's `ast` that a file holds no candidate use.

libcst's parse is most of privlint's time, and CPython's parser is several times faster. Most
files that mention torch use no private API at all, and a coarse reading of the `ast`
proves it. The reading over-approximates what the detector (detect.py) can report, and
answers "maybe" whenever it is unsure:

- an import of a private path under a catalog root (`from torch._C import ...`);
- a private attribute or `getattr(x, "_name")` whose name is a member some rule covers
  (`._unflatten`, on any receiver: the detector may know the receiver's type);
- a private attribute on a chain rooted at a name that may hold a catalog path: a name an
  import from a catalog root binds, or a name assigned from an expression mentioning one
  (repeated until nothing changes; scopes are ignored, which only adds names);
- `getattr(x, "_name")` with any private string.

Anything CPython cannot parse (a syntax error, newer syntax than this Python, a null byte)
is "maybe": libcst then parses it and reports, as before. So is what libcst may fail on where
CPython does not (runs of thousands of string literals), so that a PRV002 is never lost
either; files the hostile-input screen flags never reach the gate (checker.py).
"""

from __future__ import annotations

import ast
import gc
import warnings
from dataclasses import dataclass

from privlint.catalog import Catalog, is_private

# libcst rejects a run of more than 3,000 adjacent string literals that CPython accepts (and
# merges into one constant, so the ast cannot count them); such a run needs 6,002 quotes.
MANY_QUOTES = 6000


@dataclass(frozen=True)
class GateWords:
    roots: frozenset[str]       # first segments of every rule's API: {"torch"}
    members: frozenset[str]     # every member name a member rule covers
    # Short names of the tracked torch types: a file that names one (`inner: ProcessGroup`,
    # `class W(dist.ProcessGroup)`) can type a receiver whose private member is then reported.
    types: frozenset[str] = frozenset()


def gate_words(catalog: Catalog) -> GateWords:
    return GateWords(catalog.roots, catalog.member_names,
                     frozenset(name.rsplit(".", 1)[-1] for name in catalog.types))


_NO_ATTRIBUTES = (ast.expr_context, ast.operator, ast.boolop, ast.unaryop, ast.cmpop)


def _nodes(tree: ast.AST):
    """Every node, in no particular order; a quarter faster than ast.walk (no contexts or operators)."""
    todo: list = [tree]
    pop, push, extend = todo.pop, todo.append, todo.extend
    while todo:
        node = pop()
        if not isinstance(node, ast.AST):
            continue  # lists hold None (dict unpacking) and str (global names) too
        yield node
        for name in node._fields:
            value = getattr(node, name, None)
            if type(value) is list:
                extend(value)
            elif isinstance(value, ast.AST) and not isinstance(value, _NO_ATTRIBUTES):
                push(value)


def _root_name(node: ast.expr) -> str | None:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _names_in(node: ast.AST) -> set[str]:
    return {child.id for child in _nodes(node) if isinstance(child, ast.Name)}


def _private_string_argument(call: ast.Call) -> bool:
    """Any argument a private string: the detector reads the second of two arguments,
    keyword and starred ones included (`getattr(torch, n="_C")` is nonsense, but reported)."""
    for argument in (*call.args, *(keyword.value for keyword in call.keywords)):
        if isinstance(argument, ast.Starred):
            argument = argument.value
        if isinstance(argument, ast.Constant) and isinstance(argument.value, str) \
                and is_private(argument.value):
            return True
    return False


def may_have_findings(data: bytes, words: GateWords) -> bool:
    """False only when the detector cannot report anything in this file."""
    if data.count(b"'") + data.count(b'"') >= MANY_QUOTES:
        return True  # libcst may fail where CPython does not: libcst's turn
    # A parse makes many objects and no cycles: the cyclic collector only costs time here.
    collecting = gc.isenabled()
    gc.disable()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escapes and the like: not ours to report
            tree = ast.parse(data)
        return _reading(tree, words)
    except (SyntaxError, ValueError, RecursionError, MemoryError, UnicodeError, OverflowError):
        return True
    finally:
        if collecting:
            gc.enable()


def _reading(tree: ast.Module, words: GateWords) -> bool:
    roots, members = words.roots, words.members
    path_names: set[str] = set()               # names an import from a catalog root binds
    assignments: list[tuple[list[str], ast.expr]] = []
    chain_roots: set[str] = set()              # roots of chains with a private attribute
    star_import = False
    names_a_type = False
    for node in _nodes(tree):
        if isinstance(node, ast.Attribute):
            attr = node.attr
            if attr[0] == "_" and is_private(attr):
                if attr in members:
                    return True
                root = _root_name(node.value)
                if root is not None:
                    chain_roots.add(root)
            elif attr in words.types:
                names_a_type = True
        elif isinstance(node, ast.Name):
            if node.id in words.types:
                names_a_type = True
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] in roots:
                    if any(is_private(part) for part in parts):
                        return True
                    path_names.add(alias.asname or parts[0])
        elif isinstance(node, ast.ImportFrom):
            if node.level or not node.module or node.module.split(".")[0] not in roots:
                # The project's own modules can hand on torch names (`from .utils import dist`,
                # `from .utils import *`): the detector follows them, so the gate keeps them.
                for alias in node.names:
                    if alias.name == "*":
                        star_import = True
                    elif node.level:
                        path_names.add(alias.asname or alias.name)
                continue
            parts = node.module.split(".")
            if any(is_private(part) for part in parts):
                return True
            for alias in node.names:
                if is_private(alias.name):
                    return True
                if alias.name != "*":
                    path_names.add(alias.asname or alias.name)
                else:
                    star_import = True
        elif isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name) and node.func.id == "getattr" \
                    and _private_string_argument(node):
                return True
        elif isinstance(node, ast.Assign):
            targets = [t.id for t in node.targets if isinstance(t, ast.Name)]
            if targets:
                assignments.append((targets, node.value))
        elif isinstance(node, (ast.AnnAssign, ast.NamedExpr)):
            if isinstance(node.target, ast.Name) and node.value is not None:
                assignments.append(([node.target.id], node.value))
    if not chain_roots:
        return False
    if star_import or names_a_type or chain_roots & path_names:
        return True  # a star import may bind any root; a tracked type may type any receiver
    # Names that may hold a catalog path through assignments, to a fixed point.
    pending = [(targets, _names_in(value)) for targets, value in assignments]
    changed = True
    while changed:
        changed = False
        remaining = []
        for targets, mentioned in pending:
            if mentioned & path_names:
                path_names.update(targets)
                changed = True
            else:
                remaining.append((targets, mentioned))
        pending = remaining
        if chain_roots & path_names:
            return True
    return False
