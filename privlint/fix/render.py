"""Render fix templates (Python text with `{slots}`, each planner's TEMPLATE) into libcst nodes.

Each slot becomes a placeholder identifier, the text is parsed with the target file's own
indentation and newline style, and the placeholders are then swapped for real nodes cut
from the user's code, so whatever those nodes carry (comments, line breaks) survives.
"""

from __future__ import annotations

import re

import libcst as cst

_SLOT = re.compile(r"\{(\w+)\}")


def _placeholder(name: str) -> str:
    return f"__privlint_slot_{name}__"


class _Fill(cst.CSTTransformer):
    def __init__(self, slots: dict[str, cst.CSTNode]) -> None:
        super().__init__()
        self.slots = {_placeholder(k): v for k, v in slots.items()}

    def leave_SimpleStatementLine(self, original_node, updated_node):
        body = updated_node.body
        if len(body) == 1 and isinstance(body[0], cst.Expr) and isinstance(body[0].value, cst.Name):
            slot = self.slots.get(body[0].value.value)
            if isinstance(slot, cst.BaseStatement):
                return slot
        return updated_node

    def leave_Name(self, original_node, updated_node):
        slot = self.slots.get(updated_node.value)
        if isinstance(slot, cst.BaseExpression):
            return slot
        return updated_node


def _prepare(text: str) -> str:
    return _SLOT.sub(lambda m: _placeholder(m.group(1)), text.strip("\n"))


def render_statement(text: str, slots: dict[str, cst.CSTNode],
                     config: cst.PartialParserConfig) -> cst.BaseStatement:
    statement = cst.parse_statement(_prepare(text) + "\n", config=config)
    return statement.visit(_Fill(slots))


def render_expression(text: str, slots: dict[str, cst.CSTNode],
                      config: cst.PartialParserConfig) -> cst.BaseExpression:
    expression = cst.parse_expression(_prepare(text), config=config)
    return expression.visit(_Fill(slots))


def split_argument(text: str) -> tuple[str | None, str]:
    """'mesh_shape={sizes}' -> ('mesh_shape', 'sizes'); '{device}' -> (None, 'device')."""
    keyword, _, value = text.rpartition("=")
    slot = _SLOT.fullmatch(value.strip())
    if not slot:
        raise ValueError(f"template argument {text!r} is not `name={{slot}}` or `{{slot}}`")
    return (keyword.strip() or None), slot.group(1)
