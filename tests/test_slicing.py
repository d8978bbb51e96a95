"""Slicing (privlint/slicing.py): libcst sees only the statements around the candidates, and
the report is the one the whole file gives, finding for finding, position for position."""

from __future__ import annotations

import ast
import textwrap

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from privlint.astgate import gate_words, read
from privlint.catalog import load_catalog
from privlint.checker import Context, check_source
from privlint.config import Settings
from privlint.slicing import slice_source

CATALOG = load_catalog()
WORDS = gate_words(CATALOG)
SLICED = Context.build(CATALOG, Settings())
WHOLE = Context.build(CATALOG, Settings(), use_slicing=False)
UNFILTERED = Context.build(CATALOG, Settings(), use_prefilter=False)

FILLER = "\n".join(f"def helper_{i}(x):\n    return x + {i}\n" for i in range(30))


def _source(text: str) -> bytes:
    text = textwrap.dedent(text).lstrip("\n")
    return text.replace("@FILLER4@", textwrap.indent(FILLER, "    ")).replace("@FILLER@", FILLER).encode()


def _sliced(data: bytes) -> bytes | None:
    reading = read(data, WORDS)
    assert reading.maybe and reading.tree is not None
    piece = slice_source(data, reading.tree, reading.lines)
    return piece.source if piece is not None else None


def _report(data: bytes, ctx: Context) -> list:
    # A fingerprint (what baselines match on) is not part of a Finding's equality: compare it too.
    return [(finding, finding.fingerprint) for finding in check_source(data, "case.py", ctx).findings]


def _same_report(data: bytes) -> list:
    sliced = _report(data, SLICED)
    assert sliced == _report(data, WHOLE)
    assert sliced == _report(data, UNFILTERED)
    return [finding for finding, _ in sliced]


CASES = {
    "the use far below its import": """
        import torch.distributed as dist
        @FILLER@
        def gather(out, inp):
            dist._all_gather_base(out, inp)
    """,
    "a guard at the top of the module": """
        import torch.distributed as dist
        if not hasattr(dist, "_all_gather_base"):
            raise ImportError("too old")
        @FILLER@
        dist._all_gather_base(out, inp)
    """,
    "a version check at the top of the module": """
        import torch
        import torch.distributed as dist
        assert torch.__version__ >= "2.5"
        @FILLER@
        dist._all_gather_base(out, inp)
    """,
    "a flag set in another statement": """
        import torch.distributed as dist
        HAS_GATHER = hasattr(dist, "_all_gather_base")
        @FILLER@
        def gather(out, inp):
            if HAS_GATHER:
                dist._all_gather_base(out, inp)
    """,
    "a private name the file sets itself": """
        import torch.distributed as dist
        @FILLER@
        def patch(target):
            target._my_hook = print
        def use():
            dist._my_hook("x")
    """,
    "a method that types another method's attribute": """
        import torch.distributed as dist
        class Worker:
            def __init__(self):
                self.pg = dist.new_group()
        @FILLER4@
            def go(self):
                self.pg._allgather_base(a, b)
    """,
    "a local function's result": """
        import torch.distributed as dist
        def make():
            return dist.new_group()
        @FILLER@
        make()._allgather_base(a, b)
    """,
    "comments above a use, after code left out": """
        import torch
        @FILLER@
        def left_out():
            return 1
            # the footer of left_out's body
        # the use's own comment, part of its fingerprint
        limit = torch._dynamo.config.cache_size_limit
    """,
    "a noqa comment on the use": """
        import torch.distributed as dist
        @FILLER@
        dist._all_gather_base(out, inp)  # noqa: PRV303
        dist._reduce_scatter_base(out, inp)
    """,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_slice_reports_what_the_whole_file_reports(name):
    data = _source(CASES[name])
    sliced = _sliced(data)
    assert sliced is not None, "the case should be sliced"
    assert sliced.count(b"\n") == data.count(b"\n")
    assert b"helper_7" not in sliced  # the filler was left out
    _same_report(data)


def test_a_slice_keeps_kept_lines_where_they_were():
    data = _source(CASES["the use far below its import"])
    sliced = _sliced(data)
    for before, after in zip(data.split(b"\n"), sliced.split(b"\n")):
        assert after in (before, b"")
    ast.parse(sliced)
    findings = _same_report(data)
    assert [(f.line, f.column) for f in findings] == [(93, 5)]


def test_a_class_keeps_only_the_methods_the_use_depends_on():
    data = _source(CASES["a method that types another method's attribute"])
    sliced = _sliced(data).decode()
    assert "def __init__" in sliced and "def go" in sliced
    assert "helper_3" not in sliced


@pytest.mark.parametrize("data", [
    b"import torch\r\ntorch._C._foo()\r\n",              # carriage returns
    b"\xef\xbb\xbfimport torch\ntorch._C._foo()\n",      # a byte order mark
])
def test_files_a_slice_cannot_keep_faithful_are_parsed_whole(data):
    assert _sliced(data) is None
    _same_report(data)


NAMES = ["dist", "pg", "mesh", "x", "helper"]
STATEMENTS = [
    "import torch.distributed as dist",
    "from torch.distributed.device_mesh import init_device_mesh",
    "{a} = dist.new_group()",
    "{a} = init_device_mesh('cpu', (2,))",
    "{a} = {b}",
    "{a}._allgather_base(out, inp)",
    "{a}._flatten('x')",
    "{a}._private_thing = 1",
    "if not hasattr({a}, '_allgather_base'):\n    raise ImportError",
    "def {a}():\n    return {b}",
    "def use_{a}():\n    return {a}._allgather_base(out, inp)",
    "class K{a}:\n    def __init__(self):\n        self.{a} = {b}\n    def go(self):\n"
    "        return self.{a}._allgather_base(out, inp)",
    "filler = [i for i in range(3)]",
    "# a note on {a}",
    "@staticmethod\n# between decorators\n@property\ndef deco_{a}():\n    return {a}._allgather_base(out, inp)",
    "x_{a} = 1; y_{a} = {a}._allgather_base(out, inp)",
    "def left_{a}():\n    return 1\n    # the footer of left_{a}",
    "{a} = 1  # noqa: PRV900",
]


@st.composite
def programs(draw) -> str:
    lines = []
    for _ in range(draw(st.integers(2, 9))):
        template = draw(st.sampled_from(STATEMENTS))
        lines.append(template.format(a=draw(st.sampled_from(NAMES)), b=draw(st.sampled_from(NAMES))))
    return "\n".join(lines) + "\n"


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(programs())
def test_slicing_is_lossless_on_generated_programs(program):
    _same_report(program.encode())
