"""Property tests: `check` never raises; `--fix --unsafe-fixes` output parses, compiles and is
idempotent — on generated programs (hypothesmith) and on generated torch-heavy code."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from privlint.catalog import load_catalog
from privlint.checker import Context, check_source
from privlint.config import Settings

hypothesmith = pytest.importorskip("hypothesmith")
CTX = Context.build(load_catalog(), Settings())
FAST = settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))

USES = [
    "mesh._unflatten(0, (2, ws // 2), ('rep', 'shard'))",
    "mesh._unflatten('dp', (2, ws // 2), ('rep', 'shard'), backend_override={'rep': 'fake'})",
    "mesh['dp']._flatten('x')",
    "mesh._get_root_mesh()",
    "dist._all_gather_base(out, inp)",
    "dist.distributed_c10d._get_default_group()",
    "torch._C._host_emptyCache()",
    "torch._dynamo.reset()",
    "[m._unflatten(0, (2,), ('a',)) for m in meshes]",
    "(lambda: mesh._unflatten(0, (2,), ('a',)))()",
    "f(mesh._unflatten(0, (2, 2), ('a', 'b')), 1)",
]
IMPORTS = [
    "from torch.distributed._tensor import DTensor, Shard",
    "from torch.distributed._composable.fsdp import fully_shard",
    "import torch.distributed._tensor as dt",
    "from torch.optim.lr_scheduler import _LRScheduler",
]
WRAPPERS = ["{x}", "y = {x}", "return {x}", "if cond:\n    y = {x}", "try:\n    y = {x}\nexcept ValueError:\n    pass",
            "for m in meshes:\n    y = {x}", "with ctx:\n    z: object = {x}"]
HEADER = ("import torch\nimport torch.distributed as dist\n"
          "from torch.distributed.device_mesh import init_device_mesh\n")


@st.composite
def torch_programs(draw) -> str:
    imports = draw(st.lists(st.sampled_from(IMPORTS), max_size=3))
    body = []
    for _ in range(draw(st.integers(1, 4))):
        wrapper = draw(st.sampled_from(WRAPPERS))
        body.append(wrapper.format(x=draw(st.sampled_from(USES))))
    make = draw(st.sampled_from(["mesh = init_device_mesh(device_type, (ws,))",
                                 "mesh = init_device_mesh('cuda', mesh_shape=(ws,), mesh_dim_names=('dp',))",
                                 "mesh = get_mesh()"]))
    function = "def build(device_type, ws, out, inp, meshes, cond, ctx, f, get_mesh):\n" + \
        textwrap.indent(make + "\n" + "\n".join(body) + "\nreturn None\n", "    ")
    return HEADER + "\n".join(imports) + "\n\n" + function


def _fix(source: bytes) -> bytes:
    result = check_source(source, "gen.py", CTX, "unsafe")
    return result.fixed if result.fixed is not None else source


@FAST
@given(torch_programs())
def test_fix_output_compiles_and_is_idempotent(program):
    source = program.encode()
    fixed = _fix(source)
    cst.parse_module(fixed)
    compile(fixed, "gen.py", "exec")
    assert _fix(fixed) == fixed
    after = check_source(fixed, "gen.py", CTX)
    assert not [f for f in after.findings if f.fix and f.fix["applicability"] == "safe"]


# Generated programs rarely mention torch, so the prefilters would reject nearly all of them
# and the detector would never see one: run them with the prefilters off, after a line that
# always has a finding, so each run shows the detector reached the program (or reported it
# unparsable).
UNFILTERED = Context.build(load_catalog(), Settings(), use_prefilter=False)


@FAST
@given(hypothesmith.from_grammar())
def test_check_never_raises_on_generated_programs(program):
    source = ("import torch\ntorch._C._known_private()\n" + program).encode("utf-8", "surrogatepass")
    result = check_source(source, "gen.py", UNFILTERED, "unsafe")
    codes = {(f.code, f.line) for f in result.findings}
    assert ("PRV401", 2) in codes or any(code == "PRV002" for code, _ in codes), codes
    if result.fixed is not None:
        cst.parse_module(result.fixed)


@FAST
@given(st.binary(max_size=300))
def test_check_never_raises_on_arbitrary_bytes(data):
    check_source(b"import torch\n" + data, "gen.py", CTX)
