"""Parallelism setup for a hybrid-sharded FSDP2 + tensor-parallel training run.

A realistic example for `privlint check examples/`: some private torch uses here are
guarded the way real frameworks guard them, others are not.
"""

from __future__ import annotations

import os

import torch
import torch.distributed as dist
from torch.distributed._composable.fsdp import MixedPrecisionPolicy, fully_shard
from torch.distributed.device_mesh import DeviceMesh, init_device_mesh

try:
    from torch.distributed.tensor import DTensor
except ImportError:  # torch < 2.5
    from torch.distributed._tensor import DTensor


def build_fsdp_meshes(device_type: str, world_size: int, dp_replicate_size: int) -> dict[str, DeviceMesh]:
    """The data-parallel view and the FSDP2 (replicate, shard) mesh."""
    dp_mesh = init_device_mesh(device_type, mesh_shape=(world_size,), mesh_dim_names=("dp",))
    fsdp_mesh = dp_mesh
    if dp_replicate_size > 1:
        # Capability probe, not a version check: ROCm images lag behind CUDA ones.
        if hasattr(dp_mesh, "_unflatten"):
            fsdp_mesh = dp_mesh._unflatten(
                0, (dp_replicate_size, world_size // dp_replicate_size), ("dp_replicate", "dp_shard")
            )
        else:
            fsdp_mesh = init_device_mesh(
                device_type,
                mesh_shape=(dp_replicate_size, world_size // dp_replicate_size),
                mesh_dim_names=("dp_replicate", "dp_shard"),
            )
    return {"dp": dp_mesh, "fsdp": fsdp_mesh}


def build_world_mesh(device_type: str, dp: int, tp: int) -> DeviceMesh:
    world = init_device_mesh(device_type, (dp, tp), mesh_dim_names=("dp", "tp"))
    # Unguarded: `_flatten` exists only from torch 2.5.
    world["dp", "tp"]._flatten("dp_tp")
    return world


def split_replicas(world: DeviceMesh, replicas: int) -> DeviceMesh:
    # Unguarded: `_unflatten` exists only from torch 2.10.
    return world._unflatten(0, (replicas, world.size(0) // replicas), ("rep", "shard"))


def root_of(mesh: DeviceMesh) -> DeviceMesh:
    if torch.__version__ >= "2.10":  # a version gate: wrong on vendor builds
        return mesh._get_root_mesh()
    return mesh


def shard_model(model: torch.nn.Module, mesh: DeviceMesh) -> torch.nn.Module:
    policy = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
    for block in model.children():
        fully_shard(block, mesh=mesh, mp_policy=policy)
    return fully_shard(model, mesh=mesh, mp_policy=policy)


def gather_flat(out: torch.Tensor, inp: torch.Tensor) -> None:
    dist._all_gather_base(out, inp)


def default_group():
    return dist.distributed_c10d._get_default_group()


def release_host_memory() -> None:
    torch._C._host_emptyCache()


def is_dtensor(value: object) -> bool:
    return isinstance(value, DTensor)


if __name__ == "__main__":
    dist.init_process_group("nccl" if torch.cuda.is_available() else "gloo")
    meshes = build_fsdp_meshes("cuda", int(os.environ["WORLD_SIZE"]), 2)
    print(meshes)
