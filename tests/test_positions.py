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
