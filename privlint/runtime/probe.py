"""`privlint probe`: which catalog entries this torch build has, and their public fallbacks."""

from __future__ import annotations

import importlib
import json
from typing import Any, TextIO

from privlint.catalog import Catalog
from privlint.runtime.build_info import describe_build


def resolve(path: str) -> tuple[bool, str]:
    """(present, how): import the longest importable prefix, then walk attributes."""
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        module_name = ".".join(parts[:cut])
        try:
            obj = importlib.import_module(module_name)
        except Exception:  # noqa: BLE001 - ImportError, or a module that fails to import here
            continue
        for name in parts[cut:]:
            if not hasattr(obj, name):
                return False, f"{'.'.join([module_name] + parts[cut:])}: no `{name}`"
            obj = getattr(obj, name)
        return True, "importable" if cut == len(parts) else "hasattr"
    return False, "not importable"


def member_present(class_path: str, member: str, instance: Any | None) -> bool:
    """A class member, or an attribute set in __init__ (seen only on an instance)."""
    present, _ = resolve(f"{class_path}.{member}")
    return present or (instance is not None and hasattr(instance, member))


def probe_catalog(catalog: Catalog, mesh: Any | None = None) -> list[dict[str, Any]]:
    rows = []
    for rule in sorted(catalog.rules, key=lambda r: r.code):
        if rule.kind not in ("module", "attribute", "member") or "*" in rule.api:
            continue
        if rule.kind == "member":
            present = member_present(rule.owner, rule.member, mesh)
        else:
            present = resolve(rule.api)[0]
        fallback = resolve(rule.replacement)[0] if rule.replacement else None
        rows.append({"code": rule.code, "api": rule.api, "present": present,
                     "catalog_says": rule.window.describe(catalog.known_releases),
                     "replacement": rule.replacement or None, "replacement_present": fallback})
    return rows


def _one_rank_mesh():
    """A one-rank gloo DeviceMesh, so members set in __init__ can be probed too."""
    import socket

    import torch.distributed as dist
    from torch.distributed.device_mesh import init_device_mesh

    if dist.is_initialized():
        return None
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    try:
        dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=0, world_size=1)
        return init_device_mesh("cpu", (1,))
    except Exception:  # noqa: BLE001 - a build without gloo: probe classes only
        return None


def run_probe(catalog: Catalog, as_json: bool, out: TextIO) -> int:
    import torch.distributed as dist

    build = describe_build()
    mesh = _one_rank_mesh() if build["distributed"] else None
    try:
        rows = probe_catalog(catalog, mesh)
    finally:
        if mesh is not None:
            dist.destroy_process_group()
    if as_json:
        json.dump({"build": build, "catalog": rows}, out, indent=2)
        out.write("\n")
        return 0
    out.write(f"torch {build['torch']} ({build['platform']}"
              f"{', CUDA ' + build['cuda'] if build['cuda'] else ''}"
              f"{', HIP ' + build['hip'] if build['hip'] else ''})\n")
    out.write(f"devices: {build['device_count']} {', '.join(build['devices'])}\n")
    backends = ", ".join(name for name, ok in build["backends"].items() if ok) or "none"
    out.write(f"distributed backends: {backends}"
              f"{' (' + build['collective_library'] + ' ' + str(build['nccl_or_rccl']) + ')' if build['nccl_or_rccl'] else ''}\n\n")
    for row in rows:
        mark = "+" if row["present"] else "."
        fallback = ""
        if row["replacement"]:
            fallback = f"  public: {row['replacement']} {'+' if row['replacement_present'] else '.'}"
        out.write(f"{mark} {row['code']}  {row['api']}{fallback}\n")
    present = sum(1 for row in rows if row["present"])
    out.write(f"\n{present} of {len(rows)} catalog entries present in this build.\n")
    return 0
