"""One rank of `privlint verify`: run each call as is (A) and with private APIs hidden (B).

Started by torch's elastic launcher (launch.py), or directly by `torchrun ... -m privlint
verify` on each node. Writes its progress and results to files in the run directory as it
goes, so that a rank that hangs or dies can still be named with the step it was in.
"""

from __future__ import annotations

import datetime
import importlib
import importlib.util
import json
import os
import sys
import traceback
from pathlib import Path
from typing import Any


def package_root(path: Path) -> tuple[Path, str]:
    """(directory to put on sys.path, dotted module name) for a file, the way pytest's default
    import mode finds a test file's basedir: walk up past every directory with __init__.py."""
    directory = path.resolve().parent
    parts = [path.stem]
    while (directory / "__init__.py").is_file() and directory.parent != directory:
        parts.insert(0, directory.name)
        directory = directory.parent
    return directory, ".".join(parts)


def _load_target(target: str):
    path = Path(target)
    if path.suffix == ".py" or path.exists():
        root, dotted = package_root(path)
        if str(root) not in sys.path:
            sys.path.insert(0, str(root))
        package = dotted[: -len(path.stem)].rstrip(".")
        if package and path.stem.isidentifier():  # inside a package: import it by its name
            return importlib.import_module(dotted)
        name = "privlint_verify_target"
        if package:  # a file name that is no identifier: load it as a member of its package
            importlib.import_module(package)
            name = f"{package}.privlint_verify_target"
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot load {target}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        return module
    return importlib.import_module(target)


def _library_prefixes() -> tuple[str, ...]:
    import sysconfig

    import torch

    prefixes = {os.path.dirname(os.path.abspath(torch.__file__)) + os.sep,
                os.path.dirname(os.path.abspath(__file__)) + os.sep}
    for key in ("stdlib", "platstdlib"):
        where = sysconfig.get_paths().get(key)
        if where:
            prefixes.add(os.path.abspath(where) + os.sep)
    return tuple(sorted(prefixes))


def where_raised(exc: BaseException) -> str | None:
    """`file:line in function: source` of the innermost frame in the user's code (not torch's,
    not the standard library's, not privlint's), else of the innermost frame."""
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return None
    prefixes = _library_prefixes()
    own = [f for f in frames if not os.path.abspath(f.filename).startswith(prefixes)
           and not f.filename.startswith("<")]
    frame = (own or frames)[-1]
    line = (frame.line or "").strip()
    return f"{frame.filename}:{frame.lineno} in {frame.name}" + (f": {line}" if line else "")


def _group_count() -> int | None:
    try:
        from torch.distributed import distributed_c10d

        return len(distributed_c10d._world.pg_map)  # private, read only for a warning
    except Exception:  # noqa: BLE001
        return None


class Recorder:
    def __init__(self, run_dir: Path, rank: int) -> None:
        self.progress_path = run_dir / f"progress.{rank}"
        self.result_path = run_dir / f"result.{rank}.json"
        self.data: dict[str, Any] = {"rank": rank, "calls": []}

    def progress(self, step: str) -> None:
        self.progress_path.write_text(step)

    def save(self) -> None:
        temporary = self.result_path.with_suffix(".tmp")
        temporary.write_text(json.dumps(self.data, default=str))
        os.replace(temporary, self.result_path)


def _variant(label: str, expr: str, namespace: dict, hide: list[str] | None, rank: int,
             device: str, recorder: Recorder, entry: dict[str, Any], call_label: str) -> None:
    """Evaluate one variant into entry[label]; saved before the collectives, so that a rank
    which then hangs still tells which groups it built."""
    from privlint.runtime.hide import hidden
    from privlint.runtime.meshcheck import exercise, find_meshes, identify

    outcome: dict[str, Any] = {"ran": False, "finished": False, "meshes": {}, "error": None,
                               "hidden": []}
    entry[label] = outcome
    before = _group_count()
    recorder.progress(f"{call_label} {label}: evaluating")
    try:
        if hide is None:
            value = eval(expr, dict(namespace))  # noqa: S307 - the user's own expression
        else:
            with hidden(hide) as removed:
                outcome["hidden"] = removed
                value = eval(expr, dict(namespace))  # noqa: S307
        outcome["ran"] = True
        found = list(find_meshes(value))
        for path, mesh in found:
            outcome["meshes"][path] = identify(mesh, rank)
        recorder.save()
        for path, mesh in found:
            exercise(mesh, outcome["meshes"][path], rank, device, recorder.progress,
                     f"{call_label} {label} {path}")
    except Exception as exc:  # noqa: BLE001 - the target's failure is a verdict, not a crash
        first_line = (str(exc).strip().splitlines() or [""])[0]
        outcome["error"] = f"{type(exc).__name__}: {first_line[:240]}"
        outcome["where"] = where_raised(exc)
        outcome["traceback"] = traceback.format_exc(limit=6)
    after = _group_count()
    outcome["groups_created"] = None if before is None or after is None else after - before
    outcome["finished"] = True
    recorder.save()


def run(spec: dict[str, Any], gather: bool = False) -> list[dict] | None:
    import torch
    import torch.distributed as dist

    from privlint.runtime.hide import present

    rank = int(os.environ["RANK"])
    local_rank = int(os.environ.get("LOCAL_RANK", rank))
    world_size = int(os.environ["WORLD_SIZE"])
    run_dir = Path(spec["run_dir"])
    recorder = Recorder(run_dir, rank)
    device = spec["device"]
    if device == "cuda":
        torch.cuda.set_device(local_rank)
    recorder.progress("init_process_group")
    timeout = datetime.timedelta(seconds=spec["timeout"])
    dist.init_process_group(spec["backend"], timeout=timeout)
    tensor_device = f"cuda:{local_rank}" if device == "cuda" else "cpu"
    try:
        recorder.progress("importing target")
        try:
            module = _load_target(spec["target"])
        except Exception as exc:  # noqa: BLE001 - reported as the build's failure, not a crash
            first_line = (str(exc).strip().splitlines() or [""])[0]
            recorder.data["import_error"] = {"error": f"{type(exc).__name__}: {first_line[:240]}",
                                             "where": where_raised(exc)}
            recorder.progress("import failed")
            return None
        namespace = dict(vars(module))
        namespace.update(device_type=device, world_size=world_size, rank=rank, local_rank=local_rank)
        hide = spec["hide"]
        probed = spec.get("probed") or hide or []
        recorder.data["present"] = {path: present(path) for path in probed}
        lacking = [path for path in (hide or []) if not present(path)]
        recorder.data["lacking"] = lacking
        recorder.data["torch"] = torch.__version__
        for index, expr in enumerate(spec["calls"]):
            call_label = f"call {index + 1}"
            entry: dict[str, Any] = {"expr": expr}
            recorder.data["calls"].append(entry)
            if hide and lacking and len(lacking) == len(hide):
                entry["A"] = {"ran": False, "skipped": "this build lacks " + ", ".join(lacking),
                              "meshes": {}, "error": None, "finished": True}
            else:
                _variant("A", expr, namespace, None, rank, tensor_device, recorder, entry,
                         call_label)
            if hide is not None:  # a build of the matrix runs the call as is, A alone
                _variant("B", expr, namespace, hide, rank, tensor_device, recorder, entry,
                         call_label)
        recorder.progress("done")
        recorder.save()
        if gather:  # multi-node: hand every rank's results to rank 0
            gathered: list[Any] = [None] * world_size
            dist.all_gather_object(gathered, recorder.data)
            return gathered if rank == 0 else None
    finally:
        recorder.save()
        try:
            dist.destroy_process_group()
        except Exception:  # noqa: BLE001
            pass
    return None


def main(spec_path: str) -> None:
    """The elastic launcher's entry point (importable, picklable)."""
    run(json.loads(Path(spec_path).read_text()))
