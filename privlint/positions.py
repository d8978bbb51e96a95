"""Line and column of a few nodes, from a plain code generation of what holds them.

libcst's PositionProvider records a position for every node of the tree and costs several
times the parse itself; privlint needs positions only for the handful of nodes it reports,
in files that have findings. This marks the wanted nodes during an ordinary codegen and
turns token offsets into 1-based lines and 0-based character columns afterwards.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field

import libcst as cst
from libcst._nodes.internal import CodegenState

from privlint.slicing import Starts

Span = tuple[int, int, int, int]  # start line, start column, end line, end column


# A context manager that records nothing, made once: CodegenState's own is a generator-based
# no-op, and making one for every expression was a fifth of a code generation.
_NOT_RECORDED = contextlib.nullcontext()


@dataclass
class _MarkingState(CodegenState):
    marks: dict[int, list[int]] = field(default_factory=dict)

    def record_syntactic_position(self, node: cst.CSTNode, *, start_node: cst.CSTNode | None = None,
                                  end_node: cst.CSTNode | None = None) -> contextlib.nullcontext:
        return _NOT_RECORDED

    def before_codegen(self, node: cst.CSTNode) -> None:
        slot = self.marks.get(id(node))
        if slot is not None:
            slot[0] = len(self.tokens)

    def after_codegen(self, node: cst.CSTNode) -> None:
        slot = self.marks.get(id(node))
        if slot is not None:
            slot[1] = len(self.tokens)


def spans(module: cst.Module, nodes: list[cst.CSTNode],
          tops: dict[int, cst.CSTNode] | None = None,
          starts: Starts | None = None,
          members: dict[int, cst.CSTNode] | None = None,
          inners: dict[int, cst.CSTNode] | None = None) -> dict[int, Span]:
    """id(node) -> (line, column, end_line, end_column) for each node, like PositionProvider.

    With `tops` (id(node) -> the module-level statement holding it) and `starts`, only the
    statements holding the nodes are generated: a large module with a few findings costs a
    few statements' worth. With `members` (id(node) -> the statement of a module-level
    class's body holding it), a finding in one method of a large class costs that method; with
    `inners` (id(node) -> the statement of that function's or method's body holding it), the
    statement of the body it is in."""
    if tops is not None and starts is not None and len(starts.statements) == len(module.body) \
            and all(id(node) in tops for node in nodes):
        index = {id(statement): i for i, statement in enumerate(module.body)}
        found: dict[int, Span] = {}
        for top, inside in _grouped(nodes, tops, index, module.body):
            at = index[id(top)]
            found.update(_generate_members(top, module, inside, starts, at, members, inners))
            rest = [node for node in inside if id(node) not in found]
            if rest:
                found.update(_generate_body(top, module, rest, starts, at, None, inners, ""))
                rest = [node for node in inside if id(node) not in found]
            if rest:
                found.update(_generate(top, module, rest, starts.statements[at]))
        return found
    return _generate(module, module, nodes, None)


def _grouped(nodes: list[cst.CSTNode], holders: dict[int, cst.CSTNode] | None,
             index: dict[int, int], statements) -> list[tuple[cst.CSTNode, list[cst.CSTNode]]]:
    """The nodes by the statement among `statements` (`index`: their ids' positions) that
    `holders` says holds each, in order; nodes it does not place are left out."""
    grouped: dict[int, list[cst.CSTNode]] = {}
    for node in nodes:
        holder = holders.get(id(node)) if holders else None
        if holder is not None and id(holder) in index:
            grouped.setdefault(id(holder), []).append(node)
    return [(statements[index[key]], inside) for key, inside in grouped.items()]


def _block_indent(block: cst.IndentedBlock, module: cst.Module) -> str:
    return block.indent if block.indent is not None else module.default_indent


def _generate_members(top: cst.CSTNode, module: cst.Module, nodes: list[cst.CSTNode],
                      starts: Starts, at: int, members: dict[int, cst.CSTNode] | None,
                      inners: dict[int, cst.CSTNode] | None) -> dict[int, Span]:
    """Positions of the nodes that sit in a statement of class `top`'s body (the module's
    statement `at`), from a code generation of that statement alone, indented as the body is
    (or of the statement of a method's body holding them)."""
    lines = starts.members.get(at)
    if not lines or not members or type(top) is not cst.ClassDef \
            or type(top.body) is not cst.IndentedBlock or len(lines) != len(top.body.body):
        return {}
    index = {id(statement): i for i, statement in enumerate(top.body.body)}
    indent = _block_indent(top.body, module)
    found: dict[int, Span] = {}
    for member, inside in _grouped(nodes, members, index, top.body.body):
        number = index[id(member)]
        found.update(_generate_body(member, module, inside, starts, at, number, inners, indent))
        rest = [node for node in inside if id(node) not in found]
        if rest:
            found.update(_generate(member, module, rest, lines[number], indent))
    return found


def _generate_body(function: cst.CSTNode, module: cst.Module, nodes: list[cst.CSTNode],
                   starts: Starts, at: int, member: int | None,
                   inners: dict[int, cst.CSTNode] | None, indent: str) -> dict[int, Span]:
    """Positions of the nodes that sit in a statement of `function`'s body (the module's
    statement `at`, or statement `member` of the class that is), from a code generation of
    that statement alone, indented as the body is; `indent`: the indentation of the block
    `function` sits in."""
    if not inners or type(function) is not cst.FunctionDef or type(function.body) is not cst.IndentedBlock:
        return {}
    lines = starts.body(at, member)
    if lines is None or len(lines) != len(function.body.body):
        return {}
    index = {id(statement): i for i, statement in enumerate(function.body.body)}
    inside_indent = indent + _block_indent(function.body, module)
    found: dict[int, Span] = {}
    for statement, inside in _grouped(nodes, inners, index, function.body.body):
        found.update(_generate(statement, module, inside, lines[index[id(statement)]], inside_indent))
    return found


def _generate(root: cst.CSTNode, module: cst.Module, nodes: list[cst.CSTNode],
              first_line: int | None, indent: str = "") -> dict[int, Span]:
    """Positions of `nodes` from a code generation of `root`; with `first_line`, `root` is a
    statement whose first line of code (after comments above it) is that line; `indent`:
    the indentation of the block `root` sits in."""
    state = _MarkingState(default_indent=module.default_indent,
                          default_newline=module.default_newline,
                          marks={id(node): [-1, -1] for node in nodes})
    if indent:
        state.increase_indent(indent)
    root._codegen(state)
    tokens = state.tokens
    offset = 0
    if first_line is not None:
        above = 0
        for text in "".join(tokens).split("\n"):
            stripped = text.strip()
            if stripped and not stripped.startswith("#"):
                break
            above += 1
        offset = first_line - 1 - above
    wanted: dict[int, list[tuple[int, int, bool]]] = {}  # token index -> (node id, slot, is_end)
    parens = {id(node): len(node.lpar) if isinstance(getattr(node, "lpar", None), (list, tuple))
              else 0 for node in nodes}  # an expression's own parentheses, not an import's
    for key, (start, end) in state.marks.items():
        # Leading and trailing layout, enclosing parentheses, and an alias's trailing comma are
        # not part of the node's syntactic span (PositionProvider's convention).
        opened = closed = parens[key]
        while start < end and (not tokens[start].strip() or (opened and tokens[start] == "(")):
            opened -= tokens[start] == "("
            start += 1
        while end > start and (tokens[end - 1].strip() in ("", ",")
                               or (closed and tokens[end - 1] == ")")):
            closed -= tokens[end - 1] == ")"
            end -= 1
        wanted.setdefault(start, []).append((key, 0, False))
        wanted.setdefault(end, []).append((key, 1, True))
    found: dict[int, list[int]] = {key: [0, 0, 0, 0] for key in state.marks}
    line, column = 1 + offset, 0
    for index in range(len(tokens) + 1):
        for key, slot, _ in wanted.get(index, ()):
            found[key][slot * 2] = line
            found[key][slot * 2 + 1] = column
        if index == len(tokens):
            break
        token = tokens[index]
        newlines = token.count("\n")
        if newlines:
            line += newlines
            column = len(token) - token.rfind("\n") - 1
        else:
            column += len(token)
    return {key: tuple(value) for key, value in found.items()}  # type: ignore[misc]
