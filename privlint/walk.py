"""A read-only walk over a libcst tree, several times faster than `node.visit(visitor)`.

libcst's own traversal rebuilds every node on the way back up (it is shared with
transformers) and dispatches through generic child visitors; a linter that only reads
needs neither. This walk reads each node type's dataclass fields once, keeps the ones that
can hold code (not whitespace, commas or brackets), and calls the visitor's `on_visit` /
`on_leave` hooks as libcst would: statements in source order, and the parts of an expression
in its fields' order, which is the source's but for a keyword argument's name (after its
value) and a conditional expression's test (before its body).
"""

from __future__ import annotations

import dataclasses
import functools
import re
from typing import Callable, ClassVar, Optional, Protocol

import libcst as cst

_TRIVIA = re.compile(
    r"whitespace|leading_lines|lines_after_decorators|^lpar$|^rpar$|comma|semicolon|^equal$|^dot$"
    r"|colon$|bracket|brace|^header$|^footer$|^indent$|^operator$|^star$|^asynchronous$"
    r"|^newline$|^default_|^encoding$|^has_trailing_newline$|^posonly_ind$|^relative$|^value_text$")

# Where a node's field order is not its source order.
_ORDER = {
    cst.FunctionDef: ("decorators", "name", "type_parameters", "params", "returns", "body"),
    cst.ClassDef: ("decorators", "name", "type_parameters", "bases", "keywords", "body"),
    cst.ExceptHandler: ("type", "name", "body"),
    cst.MatchCase: ("pattern", "guard", "body"),
}
_FIELDS: dict[type, tuple[str, ...]] = {}


class Hooks(Protocol):
    def on_visit(self, node: cst.CSTNode) -> bool: ...
    def on_leave(self, original_node: cst.CSTNode) -> None: ...


def _fields(kind: type) -> tuple[str, ...]:
    names = _FIELDS.get(kind)
    if names is None:
        names = _ORDER.get(kind) or tuple(
            f.name for f in dataclasses.fields(kind) if not _TRIVIA.search(f.name))
        _FIELDS[kind] = names
    return names


_IS_NODE: dict[type, bool] = {}


def _is_node(kind: type) -> bool:
    """`issubclass(kind, CSTNode)`, remembered: libcst's nodes are ABCs, and an `isinstance`
    against an ABC costs several times a dictionary lookup (it was a fifth of the walk)."""
    known = _IS_NODE.get(kind)
    if known is None:
        known = _IS_NODE[kind] = issubclass(kind, cst.CSTNode)
    return known


def children(node: cst.CSTNode):
    """The code-bearing children of a node, in source order (cheaper than `node.children`)."""
    for name in _fields(type(node)):
        value = getattr(node, name)
        kind = type(value)
        if kind is tuple or kind is list:
            for item in value:
                if _is_node(type(item)):
                    yield item
        elif _is_node(kind):
            yield value


# Nodes with no code below them. Most of a tree is these, and most visitors have nothing to
# do for them: a visitor lists in `quiet` those whose visits it can do without.
LEAVES = (cst.Name, cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString)


def _method(kind: type, name: str) -> Callable[..., object] | None:
    """A visitor class's own method `name`, None where it has only libcst's empty stub (every
    `CSTVisitor` inherits one `visit_`/`leave_` per node type, which does nothing)."""
    found = getattr(kind, name, None)
    return None if found is None or found is getattr(cst.CSTVisitor, name, None) else found


@functools.lru_cache(maxsize=None)
def quiet_leaves(kind: type) -> frozenset[type]:
    """The leaf node types a visitor class has no `visit_`/`leave_` method for: what it may
    declare `quiet` when its `on_visit`/`on_leave` do nothing else a leaf could notice."""
    return frozenset(leaf for leaf in LEAVES if _method(kind, f"visit_{leaf.__name__}") is None
                     and _method(kind, f"leave_{leaf.__name__}") is None)


def walk(node: cst.CSTNode, hooks: Hooks) -> None:
    """Call `hooks.on_visit`/`on_leave` for `node` and the nodes below it, but for those of a
    type in `hooks.quiet` (if it has one), which are not visited at all."""
    _walk(node, hooks.on_visit, hooks.on_leave, getattr(hooks, "quiet", frozenset()))


def _walk(node: cst.CSTNode, on_visit, on_leave, quiet: frozenset[type]) -> None:
    if on_visit(node):
        for name in _FIELDS.get(type(node)) or _fields(type(node)):
            value = getattr(node, name)
            kind = type(value)
            if kind is tuple or kind is list:
                for item in value:
                    kind = type(item)
                    if kind not in quiet and _is_node(kind):
                        _walk(item, on_visit, on_leave, quiet)
            elif kind not in quiet and _is_node(kind):
                _walk(value, on_visit, on_leave, quiet)
    on_leave(node)


_Hook = Optional[Callable[..., object]]


class Visitor(cst.CSTVisitor):
    """A `CSTVisitor` that finds its `visit_<Node>` and `leave_<Node>` methods once per node
    type, in a table of its class, instead of formatting a name for a `getattr` on every node
    (libcst's way), and calls none where it has only libcst's empty stub: the detector has a
    method for few of the node types it sees."""

    _hooks: ClassVar[dict[type, tuple[_Hook, _Hook]]] = {}

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        cls._hooks = {}  # each class its own: a subclass may add or override methods

    @classmethod
    def _find(cls, kind: type) -> tuple[_Hook, _Hook]:
        found = (_method(cls, f"visit_{kind.__name__}"), _method(cls, f"leave_{kind.__name__}"))
        cls._hooks[kind] = found
        return found

    def on_visit(self, node: cst.CSTNode) -> bool:
        kind = type(node)
        hooks = type(self)._hooks.get(kind) or type(self)._find(kind)
        # As libcst's: the children are skipped only when the method returns False itself.
        return hooks[0] is None or hooks[0](self, node) is not False

    def on_leave(self, original_node: cst.CSTNode) -> None:
        kind = type(original_node)
        hooks = type(self)._hooks.get(kind) or type(self)._find(kind)
        if hooks[1] is not None:
            hooks[1](self, original_node)
