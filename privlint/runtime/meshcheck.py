"""On each rank: describe every DeviceMesh in a value and exercise its groups with collectives.

Every collective carries rank-distinct payloads and is checked against the values the
mesh's own layout implies (the group for a dim is the row of the mesh tensor through this
rank), so a mesh whose groups merely *look* right still fails. Runs identically on every
rank, in the same order, so the collectives match up.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Iterator

Progress = Callable[[str], None]


def find_meshes(value: Any, path: str = "result", seen: set[int] | None = None) -> Iterator[tuple[str, Any]]:
    """Every DeviceMesh in dicts, lists, tuples, dataclasses and object attributes, in order."""
    from torch.distributed.device_mesh import DeviceMesh

    seen = set() if seen is None else seen
    if id(value) in seen:
        return
    seen.add(id(value))
    if isinstance(value, DeviceMesh):
        yield path, value
    elif isinstance(value, dict):
        for key in value:
            yield from find_meshes(value[key], f"{path}[{key!r}]", seen)
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            yield from find_meshes(item, f"{path}[{index}]", seen)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for item in dataclasses.fields(value):
            yield from find_meshes(getattr(value, item.name), f"{path}.{item.name}", seen)
    elif hasattr(value, "__dict__") and not isinstance(value, type) \
            and type(value).__module__.split(".")[0] not in ("torch", "builtins"):
        for key, item in vars(value).items():
            if not key.startswith("__"):
                yield from find_meshes(item, f"{path}.{key}", seen)


def _row_through(mesh_list: Any, coordinate: list[int], dim: int) -> list[int]:
    """The ranks along `dim` through `coordinate` in a nested list."""
    row = []
    shape_len = len(coordinate)
    for index in range(_size(mesh_list, dim)):
        point = list(coordinate)
        point[dim] = index
        node = mesh_list
        for axis in range(shape_len):
            node = node[point[axis]]
        row.append(int(node))
    return row


def _size(mesh_list: Any, dim: int) -> int:
    node = mesh_list
    for _ in range(dim):
        node = node[0]
    return len(node)


def identify(mesh: Any, rank: int) -> dict[str, Any]:
    """The mesh's identity and, per dim, the group this rank is in; no collectives run."""
    import torch.distributed as dist

    info: dict[str, Any] = {
        "device_type": mesh.device_type,
        "dim_names": list(mesh.mesh_dim_names) if mesh.mesh_dim_names else None,
        "shape": list(mesh.mesh.shape),
        "mesh": mesh.mesh.tolist(),
        "coordinate": mesh.get_coordinate(),
        "own_root": None,
        "dims": [],
    }
    root = getattr(mesh, "_get_root_mesh", None)
    if callable(root):
        try:
            info["own_root"] = root() is mesh
        except Exception:  # noqa: BLE001 - informational only
            info["own_root"] = None
    coordinate = info["coordinate"]
    if coordinate is None:
        return info  # this rank is not part of the mesh
    for dim in range(mesh.ndim):
        group = mesh.get_group(dim)
        info["dims"].append({
            "dim": info["dim_names"][dim] if info["dim_names"] else str(dim),
            "group_ranks": dist.get_process_group_ranks(group),
            "group_name": getattr(group, "group_name", None),
            "layout_ranks": _row_through(info["mesh"], coordinate, dim),
            "local_rank": mesh.get_local_rank(dim),
            "checks": {},
        })
    return info


def exercise(mesh: Any, info: dict[str, Any], rank: int, device: str, progress: Progress,
             label: str) -> None:
    """Run real collectives on each dim's group; record got/expected in `info`."""
    import torch
    import torch.distributed as dist

    for dim, entry in enumerate(info["dims"]):
        step = f"{label} dim {entry['dim']}"
        group = mesh.get_group(dim)
        ranks, layout = entry["group_ranks"], entry["layout_ranks"]
        size = len(layout)
        me = layout.index(rank)

        def run(check: str, got: Any, expected: Any) -> None:
            entry["checks"][check] = {"got": got, "expected": expected}

        mine = float(rank + 1)
        progress(f"{step}: all_reduce")
        t = torch.tensor([mine], device=device)
        dist.all_reduce(t, group=group)
        run("all_reduce", t.item(), float(sum(r + 1 for r in layout)))

        progress(f"{step}: all_gather")
        outs = [torch.zeros(1, device=device) for _ in range(size)]
        dist.all_gather(outs, torch.tensor([mine], device=device), group=group)
        run("all_gather", [o.item() for o in outs], [float(r + 1) for r in layout])

        progress(f"{step}: reduce_scatter")
        inputs = [torch.tensor([mine * 100 + j], device=device) for j in range(size)]
        out = torch.zeros(1, device=device)
        try:
            dist.reduce_scatter(out, inputs, group=group)
            run("reduce_scatter", out.item(),
                float(sum((r + 1) * 100 + me for r in layout)))
        except RuntimeError as exc:  # gloo has no reduce_scatter on some builds: all_reduce + pick
            message = str(exc).lower()  # "not supported", "unsupported", "does not support" (2.4)
            if not any(words in message for words in ("not supported", "unsupported",
                                                      "does not support")):
                raise
            stacked = torch.stack(inputs)
            dist.all_reduce(stacked, group=group)
            run("reduce_scatter", stacked[me].item(),
                float(sum((r + 1) * 100 + me for r in layout)))

        progress(f"{step}: broadcast")
        t = torch.tensor([mine], device=device)
        dist.broadcast(t, src=ranks[0], group=group)
        run("broadcast", t.item(), float(layout[0] + 1))

        progress(f"{step}: all_to_all")
        send = torch.tensor([mine * 1000 + j for j in range(size)], device=device)
        recv = torch.zeros(size, device=device)
        dist.all_to_all_single(recv, send, group=group)
        run("all_to_all", recv.tolist(), [float((r + 1) * 1000 + me) for r in layout])
