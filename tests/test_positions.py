"""privlint's own position finder agrees with libcst's PositionProvider."""

from __future__ import annotations

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from privlint.positions import spans

SOURCE = '''\
# header comment
import torch, torch._C as C  # two aliases
from torch.distributed import (
    _functional_collectives as funcol,
    device_mesh,
)

class A:
    """Doc — with a non-ASCII dash."""

    def f(self, mesh):
        x = (mesh._unflatten)(0, (2, 2), ("a", "b"))
        if True:
            y = mesh["dp"]._flatten("z"); z = getattr(mesh, "_layout")
        return torch._C._distributed_c10d._resolve_process_group(
            "g",
        )
'''


def test_spans_match_position_provider():
    module = cst.parse_module(SOURCE)
    wanted = []

    class Collect(cst.CSTVisitor):
        def on_visit(self, node):
            if isinstance(node, (cst.Attribute, cst.ImportAlias, cst.ImportFrom, cst.Call,
                                 cst.SimpleString)):
                wanted.append(node)
            return True

    module.visit(Collect())
    assert len(wanted) > 20
    ours = spans(module, wanted)
    theirs = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    for node in wanted:
        expected = theirs[node]
        got = ours[id(node)]
        code = module.code_for_node(node)
        if isinstance(node, cst.ImportAlias):
            # PositionProvider counts an alias's trailing comma; a finding should not.
            assert got[:2] == (expected.start.line, expected.start.column), code
            continue
        assert got == (expected.start.line, expected.start.column, expected.end.line,
                       expected.end.column), code


CLASSES = '''\
import torch


class Wide:
  """Two-space indentation, comments and decorators above members."""

  table = {"a": torch._C}

  # a comment above the method belongs to it
  @staticmethod
  @torch.no_grad()
  def first(mesh):
      return mesh._flatten("x")

  def second(self, mesh):  # trailing comment
      if mesh:
          return torch._C._get_tracing_state()
      x = 1; y = mesh._layout
      return x, y

  class Inner:
    def third(self):
        return torch._C._log_api_usage_once

  def fourth(self, mesh):
        # six spaces; a comment above the statement belongs to it
        text = """a string over lines
x._not_code
"""; y = mesh._layout

        @torch.no_grad()
        def nested():
            return mesh._flatten("y")
        for m in (mesh,
                  mesh._root):
            m._unflatten(0, (2,), ("a",))
x = torch._C._jit_pass_lint


def top(mesh):

	# tabs; a blank line and a comment above the first statement
	if mesh._flatten:
		return mesh._layout
	x = 1; y = mesh._layout
	return torch._C._get_tracing_state(
		x, y)
'''


def _anchors(module: cst.Module):
    """id(node) -> the module-level statement, the class member and the statement of a
    function's body holding it, by walking (each visit overwrites the outer one's anchors)."""
    tops, members, inners, wanted = {}, {}, {}, []

    class Collect(cst.CSTVisitor):
        def on_visit(self, node):
            if isinstance(node, (cst.Attribute, cst.Call, cst.SimpleString)):
                wanted.append(node)
                tops[id(node)] = self.top
                if self.member is not None:
                    members[id(node)] = self.member
                if self.inner is not None:
                    inners[id(node)] = self.inner
            return True

    def visit_body(function):
        if isinstance(function, cst.FunctionDef):
            for inner in function.body.body:
                collect.inner = inner
                inner.visit(collect)
            collect.inner = None

    collect = Collect()
    for top in module.body:
        collect.top, collect.member, collect.inner = top, None, None
        top.visit(collect)
        visit_body(top)
        if isinstance(top, cst.ClassDef):
            for member in top.body.body:
                collect.member = member
                member.visit(collect)
                visit_body(member)
    return tops, members, inners, list({id(n): n for n in wanted}.values())


def test_spans_of_class_members_generated_alone_match_position_provider():
    """A finding in one method of a large class is placed from that method's code generation,
    indented as the class body is, at the first line CPython gives the method."""
    import ast

    from privlint.slicing import statement_starts

    module = cst.parse_module(CLASSES)
    starts = statement_starts(ast.parse(CLASSES))
    assert starts.members == {1: [5, 7, 10, 15, 21, 25]}
    tops, members, _, wanted = _anchors(module)
    assert len(members) > 10
    ours = spans(module, wanted, tops, starts, members)
    theirs = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    for node in wanted:
        expected = theirs[node]
        assert ours[id(node)] == (expected.start.line, expected.start.column, expected.end.line,
                                  expected.end.column), module.code_for_node(node)


def test_spans_of_function_bodies_generated_alone_match_position_provider():
    """A finding in a long function or method is placed from a code generation of the
    statement of its body holding it, indented as that body is, at the first line CPython
    gives that statement (comments, decorators, tabs and a string over lines above it)."""
    import ast

    from privlint.slicing import statement_starts

    module = cst.parse_module(CLASSES)
    starts = statement_starts(ast.parse(CLASSES))
    assert starts.body(1, 5) == [27, 31, 34]  # the method `fourth`: decorators included
    assert starts.body(3) == [43, 45, 46]     # the function `top`
    assert starts.body(0) is None and starts.body(1, 0) is None  # not functions
    tops, members, inners, wanted = _anchors(module)
    assert len(inners) > 10
    ours = spans(module, wanted, tops, starts, members, inners)
    theirs = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    for node in wanted:
        expected = theirs[node]
        assert ours[id(node)] == (expected.start.line, expected.start.column, expected.end.line,
                                  expected.end.column), module.code_for_node(node)
