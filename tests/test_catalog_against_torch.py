"""The catalog's version windows against a real torch build (the pinned CPU torch 2.13).

For every rule whose window says torch 2.13 has the API, the installed torch must have it;
for every rule whose window ends before 2.13, it must not. Skipped without torch.
"""

from __future__ import annotations

import pytest

from privlint.catalog import load_catalog

torch = pytest.importorskip("torch")

# C-extension symbols that exist only on CUDA/ROCm builds; the CPU build cannot show them.
CUDA_ONLY = {"torch._C._host_emptyCache"}


def _resolve(path: str):
    """Present in this build? (the same lookup `privlint probe` uses)"""
    from privlint.runtime.capabilities import resolve

    return True if resolve(path)[0] else None


def _installed_minor() -> tuple[int, int]:
    major, minor = torch.__version__.split("+")[0].split(".")[:2]
    return int(major), int(minor)


@pytest.fixture(scope="module")
def mesh():
    """A real one-rank DeviceMesh (gloo on CPU): members set in __init__ live on instances."""
    import socket

    import torch.distributed as dist
    from torch.distributed.device_mesh import init_device_mesh

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=0, world_size=1)
    try:
        yield init_device_mesh("cpu", (1,), mesh_dim_names=("dp",))
    finally:
        dist.destroy_process_group()


@pytest.fixture(scope="module")
def receivers(mesh):
    """A live object per owner type of a member rule: members set in __init__ (or slots filled
    in __new__) live on instances. FSDPModule is checked on the class (its members are methods)."""
    import torch.distributed as dist
    from torch.distributed.fsdp import FSDPModule
    from torch.distributed.fsdp._fully_shard._fsdp_state import FSDPState
    from torch.distributed.tensor import DTensor, Replicate

    return {
        "torch.distributed.device_mesh.DeviceMesh": mesh,
        "torch.distributed.tensor.DTensor": DTensor.from_local(torch.zeros(2), mesh, [Replicate()]),
        "torch.distributed.ProcessGroup": dist.group.WORLD,
        "torch.distributed.fsdp.FSDPModule": FSDPModule,
        "torch.distributed.fsdp._fully_shard._fsdp_state.FSDPState": FSDPState(),
    }


RULES = [r for r in load_catalog().rules
         if r.kind in ("module", "attribute", "member") and "*" not in r.api and r.api not in CUDA_ONLY]


@pytest.mark.parametrize("rule", RULES, ids=[r.code for r in RULES])
def test_window_matches_installed_torch(rule, receivers):
    if rule.kind == "member":
        assert rule.owner in receivers, f"{rule.code}: add a receiver for {rule.owner} to this test"
        present = hasattr(receivers[rule.owner], rule.member)
    else:
        present = _resolve(rule.api) is not None
    expected = rule.window.has(_installed_minor())
    assert present == expected, (
        f"{rule.code} {rule.api}: catalog says {'present' if expected else 'absent'} in "
        f"torch {torch.__version__}, the build says {'present' if present else 'absent'}")
    for alias in rule.aliases:
        assert (_resolve(alias) is not None) == expected, f"{rule.code} alias {alias}"
