"""The child side of `privlint probe --torch`: run inside another torch build's interpreter with
privlint's runtime snapshot on its path (no catalog, no TOML, no libcst). It reads the catalog's
entries as JSON on stdin and prints the build and each entry's presence as JSON.
"""

from __future__ import annotations

import importlib
import json
import sys
from typing import Any

MARKER = "privlint-capabilities: "


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


def probe_entries(entries: list[dict[str, Any]], mesh: Any | None) -> list[dict[str, Any]]:
    rows = []
    for entry in entries:
        if entry["kind"] == "member":
            present = member_present(entry["owner"], entry["member"], mesh)
        else:
            present = resolve(entry["api"])[0]
        replacement = resolve(entry["replacement"])[0] if entry.get("replacement") else None
        rows.append({"code": entry["code"], "present": present,
                     "replacement_present": replacement})
    return rows


def main() -> None:
    from privlint.runtime.build_info import describe_build

    entries = json.loads(sys.stdin.read())
    build = describe_build()
    mesh = _one_rank_mesh() if build["distributed"] else None
    try:
        rows = probe_entries(entries, mesh)
    finally:
        if mesh is not None:
            import torch.distributed as dist

            dist.destroy_process_group()
    # Gloo (C++) writes to stdout too, e.g. "[Gloo] Rank 0 is connected to 0 peer ranks" on
    # torch 2.9: the answer is the one line after the marker.
    sys.stdout.write("\n" + MARKER + json.dumps({"build": build, "rows": rows}) + "\n")


if __name__ == "__main__":
    main()
