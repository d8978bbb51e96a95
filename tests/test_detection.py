"""Detection on real files through the real CLI: guards, traps, receivers, aliases.

Each case is a file; `expected` lists the (code, line) pairs the check must report for it,
exactly. All cases run in one CLI invocation.
"""

from __future__ import annotations

import pytest

from conftest import check_batch

MESH = 'from torch.distributed.device_mesh import DeviceMesh, init_device_mesh\n'
# A flag a `try` sets for a private import (the test cases that read it, or fail to).
INDUCTOR_FLAG = """try:
    import torch._inductor.config
    HAS_X = True
except ImportError:
    HAS_X = False
"""

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

    # ---- false alarms a maintainer met on real code (issue 11) ------------------------------
    "fp_project_operator_namespace": ('''
import torch

def f(x):
    return torch.ops.mylib._split_cat(x) + torch.ops.mylib._fused.default(x)
''', []),
    "fp_future_annotations_never_run": ('''
from __future__ import annotations
import torch

def f(x: torch.distributed._tensor.DTensor) -> torch._C._SomeType:
    y: torch._C._Other = x
    return y
''', []),
    "fp_local_annotations_never_run": ('''
import torch
import torch.nn as nn

class C:
    def __init__(self):
        self.momenta: dict[nn.modules.batchnorm._BatchNorm, float] = {}
        local: torch._C._Other = None

def g(x) -> torch._C._Evaluated:
    return x
''', [("PRV401", 9)]),
    "fp_one_finding_per_use_when_wrapping": ('''
import torch.distributed as dist

def wrap(f):
    return f

dist._all_gather_base = wrap(dist._all_gather_base)
''', [("PRV303", 6)]),
    "fp_vendor_namespace": ('''
import torch

torch.npu._lazy_init()
torch.mlu._is_in_bad_fork()
torch.supa._lazy_call(print)
''', []),
    "fp_project_sets_its_own_attribute": ('''
import torch.nn as nn

nn.Module._old_apply = nn.Module.apply

def patched(module, fn):
    return nn.Module._old_apply(module, fn)
''', []),
    "fp_test_doubles": ('''
from unittest.mock import MagicMock, Mock

def test_root():
    mesh = Mock()
    mesh._get_root_mesh = Mock(return_value=mesh)
    mesh._get_root_mesh.return_value = mesh
    assert mesh._get_root_mesh() is mesh
    other = MagicMock()
    other._unflatten(0, (2, 2), ("a", "b"))
''', []),
    "fp_make_sure_it_exists": (MESH + '''
def f(mesh: DeviceMesh):
    if not hasattr(mesh, "_flatten_mapping"):
        mesh._flatten_mapping = {}
    return mesh._flatten_mapping.get("dp")
''', []),
    "fp_other_package_version_is_no_torch_gate": ('''
import tensordict
from packaging.version import parse

if parse(tensordict.__version__) < parse("0.10"):
    from torch.distributed._tensor import DTensor
''', [("PRV201", 5)]),
    "same_api_in_both_branches_is_unguarded": ('''
import torch
from packaging import version

def mm(a, b):
    if version.parse(torch.__version__) >= version.parse("2.2"):
        return torch.distributed._functional_collectives.all_reduce(a, "sum", b)
    else:
        return torch.distributed._functional_collectives.all_reduce(a, "sum", b)
''', [("PRV320", 6), ("PRV320", 8)]),
    # ---- silent misses (issue 11) ------------------------------------------------------------
    "miss_guarded_import_elsewhere_does_not_hide_a_use": ('''
import torch

def a():
    try:
        from torch.distributed._functional_collectives import all_reduce
    except ImportError:
        all_reduce = None
    return all_reduce

def b(x, g):
    return torch.distributed._functional_collectives.all_reduce(x, "sum", g)
''', [("PRV320", 11)]),
    "miss_other_route_after_from_import": ('''
import torch.distributed as dist
from torch.distributed.distributed_c10d import _get_default_group

pg = _get_default_group()
other = dist.distributed_c10d._get_default_group()
''', [("PRV301", 2), ("PRV301", 5)]),
    "miss_handler_repeats_the_body": ('''
import torch.distributed as dist
from megatron.core.utils import is_torch_min_version

try:
    if is_torch_min_version("2.4.0"):
        gather = dist.all_gather_into_tensor
    else:
        gather = dist._all_gather_base
except Exception:
    gather = dist._all_gather_base
''', [("PRV001", 8), ("PRV303", 10)]),
    "miss_import_error_does_not_catch_attribute_access": ('''
import torch.distributed as dist

try:
    pg = dist.distributed_c10d._get_default_group()
except ImportError:
    pg = None
''', [("PRV301", 4)]),
    "miss_def_inside_try_runs_later": (MESH + '''
try:
    def split(mesh: DeviceMesh):
        return mesh._unflatten(0, (2, 2), ("a", "b"))
    late = lambda mesh: mesh._get_root_mesh()
except AttributeError:
    split = None
''', [("PRV101", 5), ("PRV103", 6)]),
    "guard_dir_probe_self_flag_and_predicate": (MESH + '''
import torch.distributed as dist

def has_unflatten(mesh):
    return hasattr(mesh, "_unflatten")

class Trainer:
    def __init__(self, mesh: DeviceMesh):
        self.mesh = mesh
        self.can_flatten = hasattr(mesh, "_flatten")

    def build(self):
        if self.can_flatten:
            return self.mesh._flatten("dp")

def f(mesh: DeviceMesh):
    if "_get_root_mesh" in dir(mesh):
        mesh._get_root_mesh()
    if "_all_gather_base" not in dir(dist):
        return None
    dist._all_gather_base(None, None)
    if has_unflatten(mesh):
        mesh._unflatten(0, (2, 2), ("a", "b"))
    assert has_unflatten(mesh)
    return mesh._unflatten(0, (2, 2), ("a", "b"))
''', []),
    "guard_predicate_method": ('''
import torch

HAS_TASK_ID = hasattr(torch._C, "_current_graph_task_id")

class Tracker:
    def task_id(self):
        return torch._C._current_graph_task_id() if self.supported() else -1

    @staticmethod
    def supported():
        return hasattr(torch._C, "_current_graph_task_id")

    @classmethod
    def task_id_of_class(cls):
        if cls.known():
            return torch._C._current_graph_task_id()
        return -1

    def known(self):
        """A predicate through a flag."""
        return HAS_TASK_ID

    def unguarded(self):
        return torch._C._current_graph_task_id()

    def a_bound_method_is_always_true(self):
        if self.supported:
            return torch._C._current_graph_task_id()
''', [("PRV401", 24), ("PRV401", 28)]),
    "miss_predicate_methods_that_prove_nothing": ('''
import torch

HAS_TASK_ID = hasattr(torch._C, "_current_graph_task_id")

def pick(value):
    return lambda cls: cls

class Outer:
    def run(self):
        @pick(torch._C._current_graph_task_id if self.supported() else None)
        class Inner:
            def supported(self):
                return HAS_TASK_ID
        return Inner

class Tracker:
    async def supported(self):
        return HAS_TASK_ID

    def redefined(self):
        return HAS_TASK_ID

    def redefined(self):
        return True

    def task_id(self):
        if self.supported():
            torch._C._current_graph_task_id()
        if self.redefined():
            torch._C._current_graph_task_id()
''', [("PRV401", 10), ("PRV401", 28), ("PRV401", 30)]),
    "miss_probe_object_is_a_use": ('''
import torch

if hasattr(torch._C._cpu, "_is_vnni_supported"):
    vnni = torch._C._cpu._is_vnni_supported()
if hasattr(torch._C, "_cuda_getDevice"):
    d = torch._C._cuda_getDevice()
''', [("PRV401", 3)]),
    "miss_helper_return_and_mapping_values": (MESH + '''
def build(world: DeviceMesh):
    def make():
        return world._unflatten(0, (2, 2), ("a", "b"))
    loss_mesh = make()
    return loss_mesh["a", "b"]._flatten("loss")

def pick(meshes: dict[str, DeviceMesh]):
    meshes["dp"]._flatten("x")
    return meshes.get("tp")._layout
''', [("PRV101", 5), ("PRV102", 7), ("PRV102", 10), ("PRV111", 11)]),
    "keyword_newer_than_the_member": (MESH + '''
def f(mesh: DeviceMesh, options):
    if hasattr(mesh, "_flatten"):
        mesh._flatten("dp")
        mesh._flatten("dp", backend_override=options)
    try:
        mesh._flatten("dp", backend_override=options)
    except TypeError:
        mesh._flatten("dp")
''', [("PRV102", 6), ("PRV102", 8), ("PRV102", 10)]),
    "string_dim_works_from_2_12_only": (MESH + '''
def f(mesh: DeviceMesh):
    if hasattr(mesh, "_unflatten"):
        a = mesh._unflatten(0, (2, 2), ("a", "b"))
        b = mesh._unflatten("dp", (2, 2), ("a", "b"))
        c = mesh._unflatten(dim="dp", mesh_sizes=(2, 2), mesh_dim_names=("a", "b"))
''', [("PRV101", 6), ("PRV101", 7)]),
    "version_chain_still_gates_what_one_branch_lacks": ('''
import torch
from megatron.core.utils import is_torch_min_version

if is_torch_min_version("2.2.0a0"):
    pass
elif is_torch_min_version("1.10.0a0"):
    torch._C._jit_set_profiling_executor(True)
else:
    torch._C._jit_set_profiling_executor(False)
''', [("PRV001", 7), ("PRV001", 9)]),
    "read_before_the_project_reassigns_it": ('''
import torch.distributed as dist

orig = dist._all_gather_base
dist._all_gather_base = orig
''', [("PRV303", 3)]),
    "isinstance_narrows_the_receiver": ('''
import torch
from torch.distributed.tensor import DTensor
from torch.distributed.device_mesh import DeviceMesh

def local(p):
    if isinstance(p, DeviceMesh):
        p._get_root_mesh()
    q = p if isinstance(p, DeviceMesh) and p._layout else None
    p._layout
    return q
''', [("PRV103", 7), ("PRV111", 8)]),
    "uncatalogued_import_hides_only_its_own_path": ('''
import torch
import torch._functorch.config

torch._functorch.config.donated_buffer = False
x = torch._higher_order_ops.flex_attention
''', [("PRV422", 2), ("PRV900", 5)]),
    "dtensor_spec_mesh_reaches_the_mesh": ('''
from typing import cast
from torch.distributed.tensor import DTensor

def f(x: DTensor, y):
    x._spec.mesh._flatten("x")
    x.device_mesh._get_root_mesh()
    if isinstance(y, DTensor):
        return y._local_tensor

def g(x, w, p):
    a = x._local_tensor if isinstance(x, DTensor) else x
    b = isinstance(p, DTensor) and cast(DTensor, p)._spec
    assert isinstance(w, DTensor)
    return w._local_tensor
''', [("PRV102", 5), ("PRV342", 5), ("PRV103", 6), ("PRV343", 8), ("PRV343", 11),
      ("PRV342", 12), ("PRV343", 14)]),
    "typed_receivers_of_other_torch_types": ('''
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh

def unflatten_mesh(world, names, sizes):
    if hasattr(world, "_unflatten"):
        return world._unflatten(0, sizes, names)
    return init_device_mesh("cuda", sizes, mesh_dim_names=names)

def build():
    mesh = unflatten_mesh(init_device_mesh("cuda", (8,)), ("dp", "tp"), (2, 4))
    return mesh["dp", "tp"]._flatten("loss")

class Wrapper(dist.ProcessGroup):
    def __init__(self, inner: dist.ProcessGroup) -> None:
        self._inner = inner
        self._set_default_backend(None)

    def gather(self, out, inp, opts):
        return self._inner._allgather_base(out, inp, opts)
''', [("PRV102", 11), ("PRV900", 16), ("PRV900", 19)]),
    "miss_star_import_of_torch": ('''
from torch.distributed import *

def group():
    return distributed_c10d._get_default_group()
''', [("PRV301", 4)]),
    # A star import binds no `_` name (torch's `__all__` lists none): `_C` here is unbound,
    # not torch's, and neither prefilter reads a bare private name either.
    # A guarded import covers the uses its own `try` makes (its body, its `else`); a handler
    # that lets the failure pass leaves every other use to be guarded on its own.
    "miss_guarded_import_whose_handler_lets_the_failure_pass": ('''
import torch
try:
    import torch._dynamo
except ImportError:
    pass

def later():
    return torch._dynamo.optimize("x")

try:
    import torch._dynamo as dyn
except ImportError:
    dyn = None

def rebound_by_the_handler():
    return dyn.optimize("x")

def in_a_function():
    try:
        from torch import _dynamo
    except ImportError:
        print("no dynamo")
    else:
        _dynamo.optimize("x")
    finally:
        _dynamo.optimize("y")
    _dynamo.optimize("z")

def a_later_handler_lets_it_pass():
    try:
        from torch import _dynamo
    except ModuleNotFoundError:
        raise
    except ImportError:
        pass
    return _dynamo.optimize("x")

def the_first_handler_takes_every_import_error():
    try:
        from torch import _dynamo
    except ImportError:
        raise
    except Exception:
        pass
    return _dynamo.optimize("x")

def the_handler_returns():
    try:
        from torch import _dynamo
    except ImportError:
        return None
    return _dynamo.optimize("x")

try:
    from torch._higher_order_ops.effects import _EffectType, _register_effectful_op
except ImportError:
    _register_effectful_op = None

def a_sentinel_the_handler_sets(op):
    if _register_effectful_op is not None:
        _register_effectful_op(op, _EffectType.ORDERED)

def a_handler_that_skips_the_test_module():
    import pytest
    try:
        from torch import _dynamo
    except ImportError:
        pytest.skip("needs dynamo", allow_module_level=True)
    return _dynamo.optimize("x")
''', [("PRV231", 8), ("PRV231", 26), ("PRV231", 27), ("PRV231", 36)]),
    # `HAS_X = True` after the imports (or in `else`), `HAS_X = False` in the handler: a flag.
    "guard_try_flag": ('''
import torch

try:
    import torch._dynamo
    HAS_DYNAMO = True
except ImportError:
    HAS_DYNAMO = False

try:
    from torch.distributed._composable.fsdp import fully_shard
except ImportError:
    HAS_FSDP2 = False
else:
    HAS_FSDP2 = True

def compiled(model):
    if HAS_DYNAMO:
        return torch._dynamo.optimize("x")(model)
    return HAS_DYNAMO and torch._dynamo.optimize("y")(model)

def early(model):
    if not HAS_DYNAMO:
        return model
    return torch._dynamo.optimize("x")(model)

def unguarded(model):
    return torch._dynamo.optimize("x")(model)

def shard(model):
    if HAS_FSDP2:
        torch.distributed._composable.fsdp.fully_shard(model)
    torch.distributed._composable.fsdp.fully_shard(model)

def set_before_the_import():
    try:
        ready = True
        from torch import _dynamo
    except ImportError:
        ready = False
    if ready:
        torch._dynamo.optimize("x")

def every_flag_the_try_sets(model):
    try:
        import torch._dynamo
        ok = True
        loaded = True
    except ImportError:
        return model
    if ok:
        torch._dynamo.reset()
    if loaded:
        torch._dynamo.optimize("x")(model)

DEFAULT_TRUE = True
try:
    import torch._dynamo
except ImportError:
    DEFAULT_TRUE = False

DEFAULT_FALSE = False
try:
    from torch import _dynamo
    DEFAULT_FALSE = True
except ImportError:
    pass

try:
    from torch import _dynamo
except ImportError: ON_ONE_LINE = False
else: ON_ONE_LINE = True

try:
    from torch import _dynamo
    ANNOTATED: bool = True
except ImportError:
    ANNOTATED: bool = False

def defaults_and_forms(model):
    if DEFAULT_TRUE:
        torch._dynamo.optimize("a")
    if DEFAULT_FALSE:
        torch._dynamo.optimize("b")
    if ON_ONE_LINE:
        torch._dynamo.optimize("c")
    if ANNOTATED:
        torch._dynamo.optimize("d")

def a_handler_whose_branches_return(m):
    try:
        from torch import _dynamo
    except ImportError:
        if m:
            return 1
        else:
            return 2
    return _dynamo.optimize("x")

def a_handler_that_ends_the_process(m):
    import sys
    try:
        from torch import _dynamo
    except ImportError:
        print("no dynamo"); sys.exit(1)
    return _dynamo.optimize("x")
''', [("PRV231", 27), ("PRV210", 32)]),
    "miss_try_flags_that_prove_nothing": ('''
import torch

try:
    from torch import _dynamo
    LEFT_AS_IT_WAS = True
except ImportError:
    pass

try:
    from torch import _dynamo
    REBOUND = True
except ImportError:
    REBOUND = False
    REBOUND = torch.cuda.is_available()

try:
    from torch import _dynamo
    FINALLY = True
except ImportError:
    FINALLY = False
finally:
    FINALLY = True

BROKEN_OUT = True
for attempt in range(2):
    try:
        from torch import _dynamo
        BROKEN_OUT = True
    except ImportError:
        break

TWO_HANDLERS = True
try:
    from torch import _dynamo
    TWO_HANDLERS = True
except ImportError:
    TWO_HANDLERS = False
except AttributeError:
    pass

def f():
    if LEFT_AS_IT_WAS:
        torch._dynamo.optimize("a")
    if REBOUND:
        torch._dynamo.optimize("b")
    if FINALLY:
        torch._dynamo.optimize("c")
    if BROKEN_OUT:
        torch._dynamo.optimize("d")
    if TWO_HANDLERS:
        torch._dynamo.optimize("e")

DEFAULT_FALSE_SET_TOO_EARLY = False
try:
    DEFAULT_FALSE_SET_TOO_EARLY = True
    from torch import _dynamo
except ImportError:
    pass

try:
    from torch._C._distributed_c10d import _SymmetricMemory
    from torch.distributed._composable.fsdp import fully_shard
    PROVES_WHAT_IT_IMPORTED = True
except ImportError:
    PROVES_WHAT_IT_IMPORTED = False

def g(pg, m):
    if DEFAULT_FALSE_SET_TOO_EARLY:
        torch._dynamo.optimize("f")
    if PROVES_WHAT_IT_IMPORTED:
        torch._C._distributed_c10d._SymmetricMemory.rendezvous(m)
        torch.distributed._composable.fsdp.fully_shard(m)
        torch._C._distributed_c10d._resolve_process_group(pg)
        torch.distributed._composable.replicate(m)
''', [("PRV231", 43), ("PRV231", 45), ("PRV231", 47), ("PRV231", 49), ("PRV231", 51),
      ("PRV231", 69), ("PRV402", 73), ("PRV211", 74)]),
    # An untracked private name's fallback for its public twin (deepspeed's comm/torch.py).
    "guard_the_public_twin_s_fallback": ('''
import torch

def get_global_rank(group, group_rank):
    if hasattr(torch.distributed.distributed_c10d, "get_global_rank"):
        from torch.distributed.distributed_c10d import get_global_rank as _get_global_rank
    else:
        from torch.distributed.distributed_c10d import _get_global_rank
    return _get_global_rank(group, group_rank)

def by_handler(group, group_rank):
    try:
        from torch.distributed.distributed_c10d import get_global_rank
    except ImportError:
        from torch.distributed.distributed_c10d import _get_global_rank as get_global_rank
    return get_global_rank(group, group_rank)

def another_name(group, group_rank):
    if hasattr(torch.distributed.distributed_c10d, "get_rank"):
        from torch.distributed.distributed_c10d import get_global_rank as _get_global_rank
    else:
        from torch.distributed.distributed_c10d import _get_global_rank
    return _get_global_rank(group, group_rank)

def unguarded(group, group_rank):
    from torch.distributed.distributed_c10d import _get_global_rank
    return _get_global_rank(group, group_rank)
''', [("PRV900", 21), ("PRV900", 25)]),
    # torchao's benchmarks: the CUDA toolkit's version and cuDNN's are no torch release.
    "miss_a_cuda_version_check_is_no_torch_gate": ('''
import torch
assert torch.version.cuda is not None
major, minor = map(int, torch.version.cuda.split("."))
assert major >= 12 and minor >= 9, "CUDA 12.9+ is required"
torch._dynamo.config.cache_size_limit = 1000

def f():
    if torch.backends.cudnn.version() >= 8000:
        torch._dynamo.config.cache_size_limit = 10

def g():
    if torch.version.__version__ >= "2.1":
        torch._dynamo.config.cache_size_limit = 10
    if torch.torch_version.TorchVersion(torch.__version__) >= "2.1":
        torch._dynamo.config.cache_size_limit = 10
''', [("PRV231", 5), ("PRV231", 9), ("PRV001", 13), ("PRV001", 15)]),
    # torchao's mx_tensor.py: under `x or <check>` the true branch runs on any torch when `x`
    # holds; under `x and <check>` the false one does.
    "miss_a_version_check_beside_another_condition": ('''
import torch

def f(fp8):
    if fp8 or torch.__version__ < "2.13":
        torch._dynamo.optimize("a")
    else:
        torch._dynamo.optimize("b")

def g(fp8):
    if fp8 and torch.__version__ >= "2.1":
        torch._dynamo.optimize("c")
    else:
        torch._dynamo.optimize("d")

def h(fp8):
    if not (fp8 or torch.__version__ < "2.13"):
        torch._dynamo.optimize("e")
    if torch.__version__ < "2.1" or torch.__version__ >= "2.13":
        torch._dynamo.optimize("f")
    return fp8 or torch._dynamo.optimize("g")
''', [("PRV231", 5), ("PRV001", 7), ("PRV001", 11), ("PRV231", 13), ("PRV001", 17),
      ("PRV001", 19), ("PRV231", 20)]),
    # A second review's holes: what a try flag proves, a failure an outer try swallows, a
    # default in a loop, except*, a public twin of another object's member.
    "miss_guarded_imports_and_flags_a_second_look": ('''
import logging
import torch
import torch.distributed as dist
try:
    try:
        import torch._dynamo
    except ImportError:
        logging.warning("no dynamo"); raise
except Exception:
    pass
def swallowed_further_out(m):
    return torch._dynamo.optimize("eager")(m)

try:
    from torch._inductor import config
    HAS = True
except ImportError:
    HAS = False
def proves_what_it_imported():
    if HAS:
        torch._dynamo.config.suppress_errors = True
        torch._inductor.config.x = 1

def a_default_in_a_loop(flags):
    ready = False
    for name in flags:
        try:
            import torch._dynamo
            ready = True
        except ImportError:
            pass
        if ready:
            return torch._dynamo.optimize("e")
        ready = True

ONLY_NOT_FOUND = True
try:
    try:
        import torch._dynamo
    except ModuleNotFoundError:
        ONLY_NOT_FOUND = False
except Exception:
    pass
def only_not_found(m):
    if ONLY_NOT_FOUND:
        torch._dynamo.optimize("k")

try:
    import torch._dynamo
except* ImportError:
    STARRED = False
else:
    STARRED = True
def starred():
    if STARRED:
        torch._dynamo.optimize("q")

def twin_of_another_object(args, g):
    if hasattr(args, "get_global_rank"):
        return args.get_global_rank
    else:
        return dist.distributed_c10d._get_global_rank(g, 0)
''', [("PRV231", 12), ("PRV231", 21), ("PRV231", 33), ("PRV231", 46), ("PRV900", 62)]),
    # Test files: a flag in `pytestmark`, a class's skip decorator, `pytest.skip` in an if.
    "guard_test_skips_on_a_try_flag": ('''
import unittest
import pytest
import torch
try:
    import torch._dynamo
    HAS = True
except ImportError:
    HAS = False

def test_a(m):
    return torch._dynamo.optimize("e")(m)

@unittest.skipIf(not HAS, "needs dynamo")
class T(unittest.TestCase):
    def test_b(self):
        torch._dynamo.optimize("e")

def test_c(m):
    if not HAS:
        pytest.skip("needs dynamo")
    torch._dynamo.optimize("e")
''', [("PRV231", 11)]),
    "guard_a_pytestmark_on_a_try_flag": ('''
import pytest
import torch
try:
    import torch._dynamo
    HAS = True
except ImportError:
    HAS = False

pytestmark = [pytest.mark.skipif(not HAS, reason="needs dynamo"), pytest.mark.slow]

def test_a(m):
    return torch._dynamo.optimize("e")(m)
''', []),
    "miss_a_flag_test_that_neither_leaves_nor_sets": ('''
import torch
try:
    import torch._dynamo
    HAS = True
except ImportError:
    HAS = False

def f():
    if not HAS:
        print("no dynamo")
    torch._dynamo.optimize("x")
''', [("PRV231", 11)]),
    # deepspeed's comm/torch.py: `torch` comes from a project module's star import.
    "guard_the_public_twin_s_fallback_on_a_name_bound_elsewhere": ('''
from .utils import *

def get_global_rank(group, group_rank):
    if hasattr(torch.distributed.distributed_c10d, "get_global_rank"):
        from torch.distributed.distributed_c10d import get_global_rank as _get_global_rank
    else:
        from torch.distributed.distributed_c10d import _get_global_rank
    return _get_global_rank(group, group_rank)
''', []),
    # A third review's holes. pytest reads a module's last `pytestmark`, for its tests only.
    "miss_pytestmarks_that_guard_nothing_here": ('''
import sys
import unittest
import pytest
import torch
''' + INDUCTOR_FLAG + '''
pytestmark = pytest.mark.skipif(not HAS_X, reason="x")

def test_a():
    torch._inductor.config.foo = 1

if sys.platform == "win32":
    pytestmark = pytest.mark.slow
''', [("PRV421", 14)]),
    "miss_what_a_skip_does_not_skip": ('''
import unittest
import pytest
import torch
''' + INDUCTOR_FLAG + '''
pytestmark = pytest.mark.skipif(not HAS_X, reason="x")

def default_threads():
    return torch._inductor.config.compile_threads

THREADS = default_threads()

@unittest.skipIf(not HAS_X, "no inductor")
class T(unittest.TestCase):
    fn = torch._inductor.config.foo

    def test_b(self):
        torch._inductor.config.foo = 1

class U(unittest.TestCase):
    def test_c(self):
        if not HAS_X:
            self.skipTest("no inductor")
        torch._inductor.config.foo = 1
''', [("PRV421", 13), ("PRV421", 19)]),
    "guard_a_public_twin_through_a_re_export": ('''
import torch.distributed as dist

def f(g, r):
    if hasattr(dist, "get_global_rank"):
        return dist.get_global_rank(g, r)
    return dist.distributed_c10d._get_global_rank(g, r)

def h(g, r):
    try:
        return dist.get_global_rank(g, r)
    except AttributeError:
        return dist.distributed_c10d._get_global_rank(g, r)

try:
    from torch.distributed import get_global_rank
except ImportError:
    from torch.distributed.distributed_c10d import _get_global_rank as get_global_rank
''', []),
    "miss_a_parent_s_probe_or_import_proves_nothing_below_it": ('''
import torch

def default_group():
    if hasattr(torch, "distributed") and torch.distributed.is_initialized():
        return torch.distributed.distributed_c10d._get_default_group()

def snapshot():
    if hasattr(torch.cuda, "memory"):
        torch.cuda.memory._dump_snapshot("x.pickle")

try:
    import torch._C
    HAS_C = True
except ImportError:
    HAS_C = False
if HAS_C:
    torch._C._host_emptyCache()

try:
    import torch._inductor.config
    HAS_IND = True
except ModuleNotFoundError:
    HAS_IND = False
if HAS_IND:
    torch._inductor.config.foo = 1
''', [("PRV301", 5), ("PRV414", 9), ("PRV403", 17)]),
    # A fourth review's holes: `torch` re-exports few of its subpackages' names, and the false
    # branch of `probe and x` may run with the probed name present.
    "miss_fallbacks_whose_twin_may_be_present": ('''
import torch
import torch.distributed as dist

def b(g, r):
    if hasattr(torch, "get_global_rank"):
        return 1
    return dist.distributed_c10d._get_global_rank(g, r)

def h(g, r):
    try:
        return torch.get_global_rank(g, r)
    except AttributeError:
        return dist.distributed_c10d._get_global_rank(g, r)

def a(g, r, use):
    if hasattr(dist.distributed_c10d, "get_global_rank") and use:
        return dist.distributed_c10d.get_global_rank(g, r)
    else:
        return dist.distributed_c10d._get_global_rank(g, r)

def o(g, r, use):
    if hasattr(dist.distributed_c10d, "get_global_rank") or use:
        return 1
    return dist.distributed_c10d._get_global_rank(g, r)
''', [("PRV900", 7), ("PRV900", 13), ("PRV900", 19)]),
    "miss_pytestmarks_deleted_or_nested": ('''
import pytest
import torch
''' + INDUCTOR_FLAG + '''
pytestmark = pytest.mark.skipif(not HAS_X, reason="x")

def make():
    def test_inner():
        torch._inductor.config.foo = 1
    return test_inner

def test_outer():
    torch._inductor.config.foo = 2
''', [("PRV421", 13)]),
    "miss_a_deleted_pytestmark": ('''
import pytest
import torch
''' + INDUCTOR_FLAG + '''
pytestmark = pytest.mark.skipif(not HAS_X, reason="x")

def test_a():
    torch._inductor.config.foo = 1

del pytestmark
''', [("PRV421", 12)]),
    # A fifth review: a twin on `torch` itself has no package above (a bare name is no path).
    "miss_a_twin_on_torch_probed_on_another_object": ('''
import torch

def f(args, t):
    if hasattr(args, "made_up_fn"):
        pass
    else:
        torch._made_up_fn(t)

def g(model, t):
    try:
        model.made_up_fn(t)
    except AttributeError:
        torch._made_up_fn(t)
''', [("PRV900", 7), ("PRV900", 13)]),
    "ok_star_import_binds_no_private_name": ('''
from torch import *
from torch.distributed import *

_C._jit_set_profiling_executor(False)
_functional_collectives.all_reduce(t, "sum", group)
''', []),
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


HANDLER_FALLBACK = '''
from torch.distributed.device_mesh import DeviceMesh

def names(mesh: DeviceMesh):
    try:
        return list(mesh._get_root_mesh()._flatten_mapping)
    except AttributeError:
        from torch.distributed.device_mesh import _mesh_resources
        return list(_mesh_resources.child_to_root_mapping)
'''


@pytest.mark.parametrize("target,expected", [
    # The handler runs only where the body's 2.10 members are missing; from 2.6, every such
    # release has the 2.5-2.9 `child_to_root_mapping`.
    (">=2.6", []),
    # From 2.0 it also runs on 2.0-2.4, which lack it.
    (">=2.0", [("PRV130", 7), ("PRV133", 8)]),
])
def test_a_handler_is_judged_on_the_releases_it_runs_on(tmp_path, target, expected):
    found = check_batch(tmp_path, {"fallback": HANDLER_FALLBACK}, "--target-torch", target)
    assert sorted((f["code"], f["line"]) for f in found["fallback"]) == expected


VERSION_CHECKS = '''
import pytest
import torch
from packaging.version import Version
from megatron.core.utils import is_torch_min_version
from lightning.pytorch.utilities.testing import RunIf
from torch.distributed.device_mesh import init_device_mesh

mesh = init_device_mesh("cpu", (4,))
if is_torch_min_version("1.13.0"):
    pg = torch.distributed.distributed_c10d._get_default_group()
else:
    pg = torch.distributed._all_gather_base
assert is_torch_min_version("2.3.0")
a = torch.distributed.distributed_c10d._world
TORCH_GE_2_10 = Version(torch.__version__) >= Version("2.10")
if TORCH_GE_2_10:
    mesh._unflatten(0, (2, 2), ("a", "b"))

@pytest.mark.skipif(Version(torch.__version__) < Version("2.10"), reason="needs _unflatten")
def test_unflatten():
    mesh._unflatten(0, (2, 2), ("a", "b"))

@RunIf(min_torch="2.10")
def test_root():
    mesh._get_root_mesh()
'''


@pytest.mark.parametrize("target,expected", [
    # Under >=2.6: line 11 is plain (every 2.6+ passes the 1.13 check), line 13 dead; the
    # assert passes on every 2.6+ (plain PRV302); the 2.10 checks really choose (PRV001,
    # judged on 2.10+ only: a warning).
    (">=2.6", [("PRV001", 17, "warning"), ("PRV001", 21, "warning"), ("PRV001", 25, "warning"),
               ("PRV301", 10, "warning"), ("PRV302", 14, "warning")]),
    # Under >=2.0,<2.10 the 2.10 branches are dead, and the 2.3 assert now chooses.
    (">=2.0,<2.10", [("PRV001", 14, "warning"), ("PRV301", 10, "warning")]),
])
def test_version_checks_are_read_against_the_supported_range(tmp_path, target, expected):
    found = check_batch(tmp_path, {"checks": VERSION_CHECKS}, "--target-torch", target)
    assert sorted((f["code"], f["line"], f["severity"]) for f in found["checks"]) == expected


VERSION_RANGES = '''
import torch
from packaging.version import Version
from torch.distributed.device_mesh import init_device_mesh

mesh = init_device_mesh("cpu", (4,))
V = Version(torch.__version__)
if Version("2.4") <= V < Version("2.6"):
    mesh._get_root_mesh()
if V >= Version("2.4") and V < Version("2.6"):
    mesh._get_root_mesh()
if not (V >= Version("2.4") and V < Version("2.6")):
    mesh._get_root_mesh()
if mesh.ndim > 1 and V >= Version("2.12"):
    mesh._get_root_mesh()
if mesh.ndim > 1 or V >= Version("2.12"):
    mesh._get_root_mesh()
OLD = V < Version("2.1") or V >= Version("2.99")
if OLD:
    mesh._get_root_mesh()
if 0 < mesh.ndim and V < Version("2.1"):
    mesh._get_root_mesh()
'''


@pytest.mark.parametrize("target,expected", [
    # Under >=2.6 the 2.4-2.5 ranges (lines 8, 10) are dead, and so are the branches that need
    # 2.0 (a flag holding an `or` of two bounds, line 19; `0 < n and`, line 21); the range's
    # `not` (12) runs on every 2.6+, as does the `or` with a plain test (16): plain PRV103;
    # `n > 1 and v >= 2.12` runs on 2.12+ only: chosen by the version (PRV001).
    (">=2.6", [("PRV001", 14), ("PRV103", 12), ("PRV103", 16)]),
    # Under <2.4 the ranges are dead, and so is 2.12+; the 2.1 bounds choose.
    (">=2.0,<2.4", [("PRV001", 19), ("PRV001", 21), ("PRV103", 12), ("PRV103", 16)]),
    # Every release: each version check chooses, but for the `or` with a plain test.
    (">=2.0", [("PRV001", 8), ("PRV001", 10), ("PRV001", 12), ("PRV001", 14), ("PRV001", 19),
               ("PRV001", 21), ("PRV103", 16)]),
])
def test_a_range_of_releases_is_read_as_one(tmp_path, target, expected):
    """`lo <= v < hi`, an `and` or `or` of version checks, and one beside a plain test bound
    the releases a branch runs on together: a range below the supported ones is dead code."""
    found = check_batch(tmp_path, {"ranges": VERSION_RANGES}, "--target-torch", target)
    assert sorted((f["code"], f["line"]) for f in found["ranges"]) == expected


MIN_VERSION_KEYWORD = '''
import torch
from deepspeed.utils.torch import required_torch_version

def f(group_name):
    if not required_torch_version(min_version=2.5):
        raise RuntimeError("needs 2.5")
    from torch.distributed._symmetric_memory import enable_symm_mem_for_group
    return enable_symm_mem_for_group(group_name)

if required_torch_version(min_version="2.12"):
    torch._grouped_mm(1, 2)
if required_torch_version(min_version=2.10):
    torch._grouped_mm(1, 2)
if required_torch_version(min_version=2.5, max_version=2.9):
    torch._grouped_mm(1, 2)
'''


@pytest.mark.parametrize("target,expected", [
    # Under >=2.6 every 2.6+ passes the 2.5 check (plain PRV321, line 7); the 2.12 check
    # chooses (11); `min_version=2.10` is the number 2.1 to the helper, which reads it through
    # `str`: every 2.6+ passes it, and 2.6-2.7 lack `_grouped_mm` (plain PRV404, 13); a check
    # with `max_version` too is not read (PRV001 on every release, 15).
    (">=2.6", [("PRV001", 11), ("PRV001", 15), ("PRV321", 7), ("PRV404", 13)]),
    # Under <2.5 the code after the 2.5 check and the 2.12 branch are dead.
    (">=2.0,<2.5", [("PRV001", 13), ("PRV001", 15)]),
])
def test_a_min_version_keyword_bounds_the_releases(tmp_path, target, expected):
    found = check_batch(tmp_path, {"minv": MIN_VERSION_KEYWORD}, "--target-torch", target)
    assert sorted((f["code"], f["line"]) for f in found["minv"]) == expected


PATCH_EDGES = '''
import torch
from packaging.version import Version
from torch.distributed.device_mesh import init_device_mesh

mesh = init_device_mesh("cpu", (4,))
V = Version(torch.__version__)
if V <= Version("2.9"):
    pass
else:
    mesh._get_root_mesh()
if V > Version("2.9.0"):
    mesh._get_root_mesh()
if V >= Version("2.9.1"):
    mesh._get_root_mesh()
if V >= Version("2.9"):
    mesh._get_root_mesh()
if V != Version("2.4"):
    mesh._get_root_mesh()
'''


@pytest.mark.parametrize("target,expected", [
    # torch 2.9.1 is above 2.9 (lines 10, 12) and at 2.9.1 (14): every branch runs on a 2.9
    # release, which lacks `_get_root_mesh`.
    (">=2.9,<2.10", [("PRV103", 10), ("PRV103", 12), ("PRV103", 14), ("PRV103", 16), ("PRV103", 18)]),
    # Below 2.9 only `!= 2.4` runs (2.4.1 is not 2.4.0).
    (">=2.0,<2.9", [("PRV103", 18)]),
])
def test_an_edge_minor_takes_both_branches_where_its_patch_releases_differ(tmp_path, target, expected):
    """At minor precision, `v > 2.9`, `v <= 2.9`, `v >= 2.9.1` and `v != 2.4` each hold on some
    patch releases of the edge's minor and fail on others: that minor is in both branches."""
    found = check_batch(tmp_path, {"edges": PATCH_EDGES}, "--target-torch", target)
    assert sorted((f["code"], f["line"]) for f in found["edges"]) == expected



_HEAD = """import os
import torch
from packaging.version import Version
from torch.distributed.device_mesh import init_device_mesh
mesh = init_device_mesh("cpu", (4,))
V = Version(torch.__version__)
"""
# Each runs its last line on some torch 2.6+, and the version reading must not call it dead.
MISREAD_CHECKS = {
    # "2.10.0" is between "2.0" and "2.4" as letters: a plain string compares that way.
    "string": 'if "2.0" <= str(torch.__version__) < "2.4":\n    mesh._get_root_mesh()\n',
    "slice": 'if torch.__version__[:3] < "2.4":\n    mesh._get_root_mesh()\n',
    # torchvision's release, not torch's: not a version check at all (a plain PRV103).
    "torchvision": ('if V >= Version("2.6") and not _TORCHVISION_GREATER_EQUAL_0_13:\n'
                    '    mesh._get_root_mesh()\n'),
    "torchrl": 'from torchrl._utils import torchrl_version_at_least\nif not torchrl_version_at_least("0.6"):\n'
               '    mesh._get_root_mesh()\n',
    # Rebound on one line, or as a loop's target, after a function that reads it.
    "rebound_one_line": ('LEGACY = V < Version("2.5")\ndef f():\n    if LEGACY:\n        mesh._get_root_mesh()\n'
                         'if os.environ.get("X"): LEGACY = True\n'),
    "rebound_loop_target": ('LEGACY = V < Version("2.5")\ndef f():\n    if LEGACY:\n        mesh._get_root_mesh()\n'
                            'for LEGACY in [True]:\n    pass\n'),
    # `LESS_EQUAL_2_6` holds on 2.6.0.
    "less_equal": 'if _TORCH_GREATER_EQUAL_2_0 and _TORCH_LESS_EQUAL_2_6:\n    mesh._get_root_mesh()\n',
    "less_equal_call": 'if is_torch_version_less_equal("2.6"):\n    mesh._get_root_mesh()\n',
    # Bound in both branches: `if OK:` may hold either.
    "rebound": ('if os.environ.get("X"):\n    OK = V >= Version("2.4")\nelse:\n'
                '    OK = Version("2.0") <= V < Version("2.4")\nif OK:\n    mesh._get_root_mesh()\n'),
    "rebound_by_name": ('TORCH_GE_2_12 = False\nif os.environ.get("X"):\n    TORCH_GE_2_12 = V >= Version("2.12")\n'
                        'if not TORCH_GE_2_12:\n    mesh._get_root_mesh()\n'),
    # A flag whose value the text cannot read as releases is not read by its name either.
    "named_but_string": '_TORCH_GREATER_EQUAL_2_6 = torch.__version__[:3] >= "2.6"\nif not _TORCH_GREATER_EQUAL_2_6:\n'
                        '    mesh._get_root_mesh()\n',
    # Rebound to something else, a parameter of the same name, a handler's default, an
    # annotated rebinding, a class body, a loop, a function defined between two bindings.
    "rebound_false": ('TORCH_AT_LEAST_2_6 = V >= Version("2.6")\nif os.environ.get("X"):\n'
                      '    TORCH_AT_LEAST_2_6 = False\nif not TORCH_AT_LEAST_2_6:\n    mesh._get_root_mesh()\n'),
    "augmented": ('TORCH_AT_LEAST_2_6 = V >= Version("2.6")\nTORCH_AT_LEAST_2_6 &= bool(os.environ.get("X"))\n'
                  'if not TORCH_AT_LEAST_2_6:\n    mesh._get_root_mesh()\n'),
    "parameter": ('TORCH_AT_LEAST_2_6 = V >= Version("2.6")\ndef f(TORCH_AT_LEAST_2_6=False):\n'
                  '    if not TORCH_AT_LEAST_2_6:\n        mesh._get_root_mesh()\n'),
    "handler": ('try:\n    TORCH_GE_2_6 = V >= Version("2.6")\nexcept ImportError:\n    TORCH_GE_2_6 = False\n'
                'if not TORCH_GE_2_6:\n    mesh._get_root_mesh()\n'),
    "class_body": ('class A:\n    OK = False\n    if os.environ.get("X"):\n        OK = V >= Version("2.6")\n'
                   '    if not OK:\n        mesh._get_root_mesh()\n'),
    "loop": ('OK = V >= Version("2.6")\nfor i in range(3):\n    if not OK:\n        mesh._get_root_mesh()\n'
             '    OK = bool(os.environ.get("X"))\n'),
    "def_between": ('OK = V >= Version("2.6")\nif os.environ.get("X"):\n    OK = V >= Version("2.9")\n'
                    'def f():\n    if not OK:\n        mesh._get_root_mesh()\n'),
    # Names that say more than one comparison and one release are not read.
    "name_patch": 'from mylib import TORCH_GE_2_6_1\nif not TORCH_GE_2_6_1:\n    mesh._get_root_mesh()\n',
    "name_or_older": 'from mylib import TORCH_2_6_OR_OLDER\nif TORCH_2_6_OR_OLDER:\n    mesh._get_root_mesh()\n',
    "name_two_bounds": 'from mylib import _TORCH_GE_2_4_LT_2_6\nif not _TORCH_GE_2_4_LT_2_6:\n    mesh._get_root_mesh()\n',
    "name_python": 'from mylib import PY_3_10_AND_TORCH_GE_2_6\nif PY_3_10_AND_TORCH_GE_2_6:\n    mesh._get_root_mesh()\n',
    "name_not_less": ('from mylib import TORCH_VERSION_NOT_LESS_THAN_2_6\nif TORCH_VERSION_NOT_LESS_THAN_2_6:\n'
                      '    mesh._get_root_mesh()\n'),
    # camelCase names are torch's; an annotated flag is a flag.
    "camel": 'from mylib import isTorchVersionAtLeast\nif isTorchVersionAtLeast("2.9"):\n    mesh._get_root_mesh()\n',
    "annotated": 'OK: bool = V >= Version("2.10")\nif not OK:\n    mesh._get_root_mesh()\n',
    # A number too long to be a release is not read, and never a crash.
    "long_number": ('if Version(torch.__version__).release < (2, ' + "9" * 5000 + '):\n    mesh._get_root_mesh()\n'),
    # Too long to read (a flag's bound doubling itself; 40 checks): read as no bound, never a crash.
    "long": ("F = " + " and ".join(['V >= Version("2.0")'] * 40) + "\nfor _ in range(20):\n    F = F and F\n"
             "G = V < Version(\"2.0\")\n" + "G = G or G\n" * 20 + "if not G and (F or G):\n"
             "    mesh._get_root_mesh()\n"),
}


@pytest.mark.parametrize("shape", sorted(MISREAD_CHECKS))
def test_a_check_the_text_cannot_read_as_releases_bounds_nothing(tmp_path, shape):
    source = _HEAD + MISREAD_CHECKS[shape]
    found = check_batch(tmp_path, {"checks": source}, "--target-torch", ">=2.6")
    expected = "PRV103" if shape in ("torchvision", "torchrl") else "PRV001"
    use = max(number for number, line in enumerate(source.splitlines(), 1) if "_get_root_mesh" in line)
    assert [(f["code"], f["line"]) for f in found["checks"]] == [(expected, use)]


RUNIF_RANGES = '''
import torch
from lightning.pytorch.utilities.testing import RunIf
from torch.distributed.device_mesh import init_device_mesh

mesh = init_device_mesh("cpu", (4,))

@RunIf(min_torch="2.0", max_torch="2.4")
def test_old():
    mesh._get_root_mesh()

@RunIf(min_torch="2.6", max_torch="2.12")
def test_middle():
    mesh._get_root_mesh()

@RunIf(max_torch="2.12", min_torch=MIN)
def test_unread():
    mesh._get_root_mesh()
'''


def test_a_runif_with_both_ends_runs_between_them(tmp_path):
    """`RunIf(min_torch=..., max_torch=...)` runs its test on the releases both admit: below
    the supported ones it is dead; an end the text cannot read leaves the range unread."""
    found = check_batch(tmp_path, {"runif": RUNIF_RANGES}, "--target-torch", ">=2.6")
    assert sorted((f["code"], f["line"]) for f in found["runif"]) == [("PRV001", 13), ("PRV001", 17)]


SUPERTYPE_ANNOTATIONS = '''
import torch
from torch import nn

def check(module: nn.Module):
    state = module._get_fsdp_state()
    return state._fsdp_param_group

def local(t: torch.Tensor):
    return t._local_tensor

def other(t: "MyThing"):
    return t._local_tensor
'''


def test_an_annotation_with_a_tracked_type_s_base_types_nothing_away(tmp_path):
    """Every FSDPModule is an nn.Module and every DTensor a torch.Tensor (the catalog's
    `bases`): such an annotation may hold one, so a distinctive member on it is reported as on
    an unannotated value; another class's annotation still says it is not torch's."""
    found = check_batch(tmp_path, {"sup": SUPERTYPE_ANNOTATIONS})
    assert sorted((f["code"], f["line"]) for f in found["sup"]) == [("PRV333", 5), ("PRV334", 6), ("PRV343", 9)]
