"""Detection on real files through the real CLI: guards, traps, receivers, aliases.

Each case is a file; `expected` lists the (code, line) pairs the check must report for it,
exactly. All cases run in one CLI invocation.
"""

from __future__ import annotations

import pytest

from conftest import check_batch

MESH = 'from torch.distributed.device_mesh import DeviceMesh, init_device_mesh\n'

CASES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    # ---- guards that protect ---------------------------------------------------------------
    "guard_hasattr_body": (MESH + '''
def f(mesh: DeviceMesh):
    if hasattr(mesh, "_unflatten"):
        return mesh._unflatten(0, (2, 2), ("a", "b"))
''', []),
    "guard_hasattr_class": (MESH + '''
def f(mesh: DeviceMesh):
    if hasattr(DeviceMesh, "_unflatten"):
        return mesh._unflatten(0, (2, 2), ("a", "b"))
''', []),
    "guard_inside_and": (MESH + '''
def f(mesh: DeviceMesh, r):
    if r > 1 and hasattr(mesh, "_unflatten"):
        return mesh._unflatten(0, (r, 2), ("a", "b"))
''', []),
    "guard_else_of_not": (MESH + '''
def f(mesh: DeviceMesh):
    if not hasattr(mesh, "_flatten"):
        return None
    else:
        return mesh._flatten("dp")
''', []),
    "guard_early_return": (MESH + '''
def f(mesh: DeviceMesh):
    if not hasattr(mesh, "_unflatten"):
        return init_device_mesh("cuda", (2, 2))
    return mesh._unflatten(0, (2, 2), ("a", "b"))
''', []),
    "guard_early_raise": (MESH + '''
def f(mesh: DeviceMesh):
    if not hasattr(mesh, "_get_root_mesh"):
        raise RuntimeError("torch too old")
    return mesh._get_root_mesh()
''', []),
    "guard_early_continue": (MESH + '''
def f(meshes: list[DeviceMesh]):
    for mesh in meshes:
        if not hasattr(mesh, "_flatten"):
            continue
        mesh._flatten("x")
''', []),
    "guard_module_flag": (MESH + '''
HAS_UNFLATTEN = hasattr(DeviceMesh, "_unflatten")

def f(mesh: DeviceMesh):
    if HAS_UNFLATTEN:
        return mesh._unflatten(0, (2, 2), ("a", "b"))
''', []),
    "guard_module_flag_early_exit": (MESH + '''
_HAS_ROOT = hasattr(DeviceMesh, "_get_root_mesh")

def f(mesh: DeviceMesh):
    if not _HAS_ROOT:
        return mesh
    return mesh._get_root_mesh()
''', []),
    "guard_getattr_default_none_check": (MESH + '''
def f(mesh: DeviceMesh):
    if getattr(mesh, "_unflatten", None) is not None:
        return mesh._unflatten(0, (2, 2), ("a", "b"))
    unflatten = getattr(mesh, "_unflatten", None)
    if unflatten is not None:
        return unflatten(0, (2, 2), ("a", "b"))
''', []),
    "guard_try_attribute_error": (MESH + '''
def f(mesh: DeviceMesh):
    try:
        return mesh._get_root_mesh()
    except AttributeError:
        return mesh
''', []),
    "guard_try_exception_bare_tuple": (MESH + '''
def f(mesh: DeviceMesh):
    try:
        a = mesh._get_root_mesh()
    except Exception:
        a = None
    try:
        b = mesh._flatten("x")
    except:
        b = None
    try:
        c = mesh._flatten_mapping
    except (ValueError, AttributeError):
        c = None
    try:
        d = mesh._unflatten(0, (2,), ("a",))
    except BaseException:
        d = None
    return a, b, c, d
''', []),
    "guard_try_import_error": ('''
try:
    from torch.distributed._composable.fsdp import fully_shard
except ImportError:
    fully_shard = None
try:
    import torch.distributed._symmetric_memory as symm_mem
except ModuleNotFoundError:
    symm_mem = None
''', []),
    "guard_import_fallback_in_handler": ('''
try:
    from torch.distributed.tensor import DTensor
except ImportError:
    from torch.distributed._tensor import DTensor
''', []),
    "guard_public_twin_else": ('''
import torch.distributed as dist

def gather(out, inp):
    if hasattr(dist, "all_gather_into_tensor"):
        dist.all_gather_into_tensor(out, inp)
    else:
        dist._all_gather_base(out, inp)
''', []),
    "guard_conditional_expression": (MESH + '''
def f(mesh: DeviceMesh):
    return mesh._get_root_mesh() if hasattr(mesh, "_get_root_mesh") else mesh
''', []),
    "guard_assert": (MESH + '''
def f(mesh: DeviceMesh):
    assert hasattr(mesh, "_flatten"), "needs torch 2.5"
    return mesh._flatten("dp")
''', []),
    "guard_type_checking": ('''
from typing import TYPE_CHECKING
if TYPE_CHECKING:
    from torch.distributed._tensor import DTensor
''', []),
    # ---- guards that do not protect ----------------------------------------------------------
    "unguarded_wrong_member": (MESH + '''
def f(mesh: DeviceMesh):
    if hasattr(mesh, "_flatten"):
        return mesh._unflatten(0, (2, 2), ("a", "b"))
''', [("PRV101", 5)]),
    "unguarded_else_of_hasattr": (MESH + '''
def f(mesh: DeviceMesh):
    if hasattr(mesh, "_get_root_mesh"):
        return mesh
    else:
        return mesh._get_root_mesh()
''', [("PRV103", 7)]),
    "unguarded_wrong_exception": (MESH + '''
def f(mesh: DeviceMesh):
    try:
        return mesh._get_root_mesh()
    except ValueError:
        return mesh
''', [("PRV103", 5)]),
    "unguarded_import_with_attribute_error": ('''
try:
    from torch.distributed._composable.fsdp import fully_shard
except AttributeError:
    fully_shard = None
''', [("PRV210", 2)]),
    "unguarded_after_check_without_exit": (MESH + '''
def f(mesh: DeviceMesh):
    if not hasattr(mesh, "_get_root_mesh"):
        print("old torch")
    return mesh._get_root_mesh()
''', [("PRV103", 6)]),
    "unguarded_try_else_clause": (MESH + '''
def f(mesh: DeviceMesh):
    try:
        x = 1
    except AttributeError:
        x = 0
    else:
        return mesh._get_root_mesh()
''', [("PRV103", 9)]),
    "unguarded_or_condition": (MESH + '''
def f(mesh: DeviceMesh, force):
    if force or hasattr(mesh, "_get_root_mesh"):
        return mesh._get_root_mesh()
''', [("PRV103", 5)]),
    # ---- version gates get their own code ---------------------------------------------------
    "version_dunder": ('''
import torch
from torch.distributed.device_mesh import DeviceMesh

def f(mesh: DeviceMesh):
    if torch.__version__ >= "2.10":
        return mesh._unflatten(0, (2, 2), ("a", "b"))
''', [("PRV001", 6)]),
    "version_packaging": ('''
import torch
from packaging import version
from torch.distributed.device_mesh import DeviceMesh

def f(mesh: DeviceMesh):
    if version.parse(torch.__version__) < version.parse("2.10"):
        return mesh
    else:
        return mesh._unflatten(0, (2, 2), ("a", "b"))
''', [("PRV001", 9)]),
    "version_helper_and_flag": ('''
from torch.distributed.device_mesh import DeviceMesh
from utils import is_torch_min_version, is_torch_version

TORCH_GE_2_10 = is_torch_min_version("2.10")

def f(mesh: DeviceMesh):
    if is_torch_version(">=", "2.5.0"):
        mesh._flatten("x")
    if TORCH_GE_2_10:
        return mesh._get_root_mesh()
''', [("PRV001", 8), ("PRV001", 10)]),
    "version_early_exit": ('''
import torch
from torch.distributed.device_mesh import DeviceMesh

def f(mesh: DeviceMesh):
    if tuple(int(p) for p in torch.__version__.split(".")[:2]) < (2, 10):
        return None
    return mesh._get_root_mesh()
''', [("PRV001", 7)]),
    # ---- nothing in strings, comments, docstrings -------------------------------------------
    "strings_comments": ('''
"""Calls mesh._unflatten(0, ...) and torch._C._foo on new torch."""
import torch
# torch.distributed._tensor.DTensor is old; mesh._unflatten too
MSG = "use torch._C._host_emptyCache() or mesh._unflatten"
''', []),
    # ---- same-name traps --------------------------------------------------------------------
    "trap_own_method": ('''
class Mesh:
    def _unflatten(self, dim):
        return dim

    def run(self):
        return self._unflatten(0)
''', []),
    "trap_pytree_leaf": ('''
def flatten_leaves(leaf):
    return leaf._flatten()
''', []),
    "trap_own_layout": ('''
class Block:
    def __init__(self):
        self._layout = None

    def layout(self):
        return self._layout
''', []),
    "trap_other_type": ('''
class Grid:
    def _unflatten(self, *args):
        return args

grid = Grid()
grid._unflatten(0, (2, 2))

def f(grid: Grid):
    return grid._get_root_mesh()
''', []),
    # ---- receivers ---------------------------------------------------------------------------
    "receiver_unknown_distinctive": ('''
def f(dp_mesh, r, ws):
    return dp_mesh._unflatten(0, (r, ws // r), ("rep", "shard"))
''', [("PRV101", 2)]),
    "receiver_subscript": (MESH + '''
mesh = init_device_mesh("cuda", (2, 4), mesh_dim_names=("dp", "tp"))
dp_tp = mesh["dp", "tp"]._flatten("dp_tp")
''', [("PRV102", 4)]),
    "receiver_annotations": (MESH + '''
from typing import Optional

def f(a: DeviceMesh, b: Optional[DeviceMesh], c: "DeviceMesh | None"):
    return a._flatten("x"), b._flatten("y"), c._layout
''', [("PRV102", 6), ("PRV102", 6), ("PRV111", 6)]),
    "receiver_list_loop_and_comprehension": (MESH + '''
def f(meshes: list[DeviceMesh]):
    for m in meshes:
        m._flatten("x")
    return [sub._layout for sub in meshes]
''', [("PRV102", 5), ("PRV111", 6)]),
    "receiver_self_attribute": (MESH + '''
class Trainer:
    def __init__(self):
        self.world = init_device_mesh("cuda", (8,))

    def shard(self):
        return self.world._flatten("dp")
''', [("PRV102", 8)]),
    "receiver_chained_call": (MESH + '''
mesh = init_device_mesh("cuda", (2, 4), mesh_dim_names=("dp", "tp"))
root = mesh["dp"]._flatten("x")._get_root_mesh()
''', [("PRV102", 4), ("PRV103", 4)]),
    "receiver_reassigned_to_other": (MESH + '''
mesh = init_device_mesh("cuda", (8,))
mesh = {"layout": 1}
mesh._layout
''', []),
    "receiver_constructor_and_annotated_variable": (MESH + '''
import torch

built = DeviceMesh("cpu", torch.arange(4).reshape(2, 2), mesh_dim_names=("a", "b"))
built._flatten("ab")
def f(make):
    declared: DeviceMesh = make()
    return declared._layout
''', [("PRV102", 6), ("PRV111", 9)]),
    "getattr_without_default": (MESH + '''
def f(mesh: DeviceMesh):
    return getattr(mesh, "_flatten")("x")
''', [("PRV102", 4)]),
    # ---- aliases and imports -----------------------------------------------------------------
    "alias_function_local_import": ('''
def f():
    from torch.distributed import distributed_c10d as c10d
    return c10d._get_default_group()
''', [("PRV301", 3)]),
    "alias_module_import": ('''
import torch.distributed.device_mesh as dm

def root_of(mesh):
    return dm._mesh_resources.get_root_mesh(mesh)
''', [("PRV131", 4)]),
    "import_flagged_once": ('''
import torch.distributed._functional_collectives as funcol

def f(x, g):
    a = funcol.all_gather_tensor(x, 0, g)
    b = funcol.reduce_scatter_tensor(x, "sum", 0, g)
    return funcol.all_reduce(a + b, "sum", g)
''', [("PRV320", 1)]),
    "import_private_name_from_public_module": ('''
from torch.distributed.device_mesh import _mesh_resources

def f(mesh):
    return _mesh_resources.root_to_flatten_mapping[mesh]
''', [("PRV130", 1), ("PRV132", 4)]),
}


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    return check_batch(tmp_path_factory.mktemp("detect"), {k: v[0] for k, v in CASES.items()})


@pytest.mark.parametrize("name", list(CASES))
def test_case(results, name):
    expected = sorted(CASES[name][1])
    got = sorted((f["code"], f["line"]) for f in results[name])
    assert got == expected, f"{name}: {results[name]}"


def test_api_is_resolved_through_aliases_and_receivers(tmp_path):
    found = check_batch(tmp_path, {"apis": '''
import torch
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh

mesh = init_device_mesh("cuda", (8,), mesh_dim_names=("w",))
a = mesh._unflatten(0, (2, 4), ("a", "b"))
b = dist.distributed_c10d._get_default_group()
c = torch._C._distributed_c10d._resolve_process_group("g")
'''})["apis"]
    assert [f["api"] for f in found] == [
        "torch.distributed.device_mesh.DeviceMesh._unflatten",
        "torch.distributed.distributed_c10d._get_default_group",
        "torch._C._distributed_c10d._resolve_process_group",
    ]
    first = found[0]
    assert (first["line"], first["column"], first["end_line"], first["end_column"]) == (6, 5, 6, 20)
    assert first["fix"]["applicability"] == "safe" and first["severity"] == "error"
    assert found[2]["fix"] is None  # the raw c10d binding has no fix template
    assert "absent before torch 2.10" in first["message"]
