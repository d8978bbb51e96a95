"""The read-only walk and its visitor base: the same calls, in the same order, as libcst's."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import libcst as cst

from privlint.walk import Visitor, walk

SOURCE = (Path(__file__).resolve().parent.parent / "privlint" / "slicing.py").read_text()


def _recording(base: type) -> type:
    class Recorder(base):  # type: ignore[misc, valid-type]
        def __init__(self) -> None:
            super().__init__()
            self.calls: list[tuple[str, str]] = []

        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            self.calls.append(("visit", node.name.value))
            return node.name.value != "_units"  # skip one function's body

        def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
            self.calls.append(("leave", original_node.name.value))

        def visit_Name(self, node: cst.Name) -> None:  # None, not False: children are walked
            self.calls.append(("name", node.value))

        def visit_Call(self, node: cst.Call) -> bool:
            self.calls.append(("call", type(node.func).__name__))
            return True

    return Recorder


def test_the_visitor_is_called_as_libcsts_visitor_is():
    module = cst.parse_module(SOURCE)
    ours, theirs = _recording(Visitor)(), _recording(cst.CSTVisitor)()
    module.visit(ours)
    module.visit(theirs)
    assert ours.calls == theirs.calls
    assert ("visit", "_units") in ours.calls and ("leave", "_units") in ours.calls
    assert ("name", "_units") in ours.calls
    assert ("name", "units") in theirs.calls


def test_the_walk_gives_the_visitor_the_same_calls_with_statements_in_order():
    module = cst.parse_module(SOURCE)
    walked, visited = _recording(Visitor)(), _recording(Visitor)()
    walk(module, walked)
    module.visit(visited)
    # The walk skips trivia (commas, whitespace), none of which these methods are for. Inside
    # an expression it follows the fields' order (`f(k=v)`: `v` before `k`), not the text's.
    assert Counter(walked.calls) == Counter(visited.calls)
    def statements(calls):
        return [call for call in calls if call[0] in ("visit", "leave")]
    assert statements(walked.calls) == statements(visited.calls)


def test_a_subclass_finds_its_own_methods_not_its_parents():
    class Parent(Visitor):
        def __init__(self) -> None:
            super().__init__()
            self.seen: list[str] = []

        def visit_Name(self, node: cst.Name) -> None:
            self.seen.append("parent")

    class Child(Parent):
        def visit_Name(self, node: cst.Name) -> None:
            self.seen.append("child")

    module = cst.parse_module("x = y\n")
    parent, child = Parent(), Child()
    walk(module, parent)  # the parent's table is filled first
    walk(module, child)
    assert parent.seen == ["parent", "parent"]
    assert child.seen == ["child", "child"]


def test_a_visitor_s_quiet_leaves_are_not_visited():
    from privlint.walk import quiet_leaves

    class Types(Visitor):
        def __init__(self) -> None:
            super().__init__()
            self.quiet = quiet_leaves(type(self))
            self.seen: list[str] = []

        def on_visit(self, node: cst.CSTNode) -> bool:
            self.seen.append(type(node).__name__)
            return super().on_visit(node)

        def visit_Integer(self, node: cst.Integer) -> None:  # a leaf it listens to
            pass

    assert cst.Integer not in quiet_leaves(Types) and cst.Name in quiet_leaves(Types)
    types = Types()
    walk(cst.parse_module("f(x, 'a', 1)\n"), types)
    assert "Call" in types.seen and "Integer" in types.seen
    assert "Name" not in types.seen and "SimpleString" not in types.seen
