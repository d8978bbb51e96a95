"""What torch build this is: version, CUDA or ROCm, devices, distributed backends."""

from __future__ import annotations

from typing import Any


def describe_build() -> dict[str, Any]:
    import torch
    import torch.distributed as dist

    hip = getattr(torch.version, "hip", None)
    cuda_available = torch.cuda.is_available()
    devices = []
    if cuda_available:
        for index in range(torch.cuda.device_count()):
            devices.append(torch.cuda.get_device_name(index))
    backends = {}
    if dist.is_available():
        backends = {
            "gloo": dist.is_gloo_available(),
            "nccl": dist.is_nccl_available(),  # RCCL on ROCm builds, under the same name
            "mpi": dist.is_mpi_available(),
            "ucc": bool(getattr(dist, "is_ucc_available", lambda: False)()),
            "xccl": bool(getattr(dist, "is_xccl_available", lambda: False)()),
        }
    nccl_version = None
    if cuda_available and backends.get("nccl"):
        try:
            nccl_version = ".".join(str(p) for p in torch.cuda.nccl.version())
        except Exception:  # noqa: BLE001 - some builds cannot report it
            nccl_version = None
    return {
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "hip": hip,
        "platform": "rocm" if hip else ("cuda" if torch.version.cuda else "cpu"),
        "device_count": len(devices),
        "devices": devices,
        "distributed": dist.is_available(),
        "backends": backends,
        "nccl_or_rccl": nccl_version,
        "collective_library": ("RCCL" if hip else "NCCL") if backends.get("nccl") else None,
    }
