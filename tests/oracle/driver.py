"""Execute many small programs on one torch build, each isolated, and record what they did.

Standalone (stdlib + torch): it runs under any torch build's interpreter, e.g. an old torch in a
second virtual environment where privlint is not installed.

    python driver.py JOBS.json RESULTS.json

JOBS.json is a list of {"id", "path", "world", "hide", "warm", "fresh"}:
- world 0: no process group; 1: a 1-rank gloo group; N > 1: N gloo ranks (forked processes);
- hide: private API paths made invisible *to the program's own code* (modules refuse to import,
  module attributes and class members raise AttributeError when the program's frames ask), so
  torch's internals keep working while every probe in the program takes its other branch;
- warm: modules to import once before forking (a speed-up only: torch._dynamo alone takes seconds);
- fresh: run in a new interpreter instead of a fork of this one (for programs whose meaning
  depends on when torch is first imported).

A program reports through a module-level `RESULT` (its repr is compared) and through the type of
the exception it ends with, if any. Each job's record: one [result, exception type, message] per
rank. The interpreter imports torch once and forks a child per job (and per rank), so a job costs
milliseconds, not an interpreter start.
"""

from __future__ import annotations

import builtins
import importlib
import json
import os
import shutil
import sys
import tempfile
import time
import traceback
import types

TIMEOUT_S = float(os.environ.get("ORACLE_JOB_TIMEOUT", "40"))
GRACE_S = 3.0
PROGRAMS: set[str] = set()
_HIDDEN_MODULES: set[str] = set()
_HIDDEN_ATTRIBUTES: dict[str, set[str]] = {}
_PENDING: list[str] = []
_real_import = builtins.__import__


def _from_program(depth: int) -> bool:
    try:
        return sys._getframe(depth + 1).f_code.co_filename in PROGRAMS
    except ValueError:
        return False


class _HidingModule(types.ModuleType):
    def __getattribute__(self, name):
        hidden = _HIDDEN_ATTRIBUTES.get(types.ModuleType.__getattribute__(self, "__name__"))
        if hidden and name in hidden and _from_program(1):
            raise AttributeError(f"module has no attribute {name!r} (hidden by the oracle)")
        return types.ModuleType.__getattribute__(self, name)


class _HiddenMember:
    def __init__(self, original, name: str) -> None:
        self.original, self.name = original, name

    def __set_name__(self, owner, name):
        pass

    def __get__(self, instance, owner=None):
        if _from_program(1):
            raise AttributeError(f"{self.name!r} (hidden by the oracle)")
        getter = getattr(type(self.original), "__get__", None)
        return getter(self.original, instance, owner) if getter else self.original


def _hiding_import(name, globals=None, locals=None, fromlist=(), level=0):
    if level == 0 and globals is not None and globals.get("__file__") in PROGRAMS:
        for hidden in _HIDDEN_MODULES:
            if name == hidden or name.startswith(hidden + "."):
                raise ModuleNotFoundError(f"No module named {name!r} (hidden by the oracle)",
                                          name=name)
    module = _real_import(name, globals, locals, fromlist, level)
    if _PENDING and name.split(".")[0] == "torch":
        pending = list(_PENDING)
        _PENDING.clear()
        for path in pending:
            _hide_now(path)
    return module


def _hide_attribute(module: types.ModuleType, name: str) -> None:
    _HIDDEN_ATTRIBUTES.setdefault(module.__name__, set()).add(name)
    if not isinstance(module, _HidingModule):
        module.__class__ = _HidingModule


def _hide_now(path: str) -> None:
    """Make `path` invisible to the program; nothing if this build has no such thing."""
    parts = path.split(".")
    try:
        found = importlib.import_module(path)
    except Exception:  # noqa: BLE001 - not a module (or not on this build)
        found = None
    if isinstance(found, types.ModuleType):
        _HIDDEN_MODULES.add(path)
        parent = sys.modules.get(".".join(parts[:-1]))
        if parent is not None:
            _hide_attribute(parent, parts[-1])
        return
    for cut in range(len(parts) - 1, 0, -1):
        try:
            owner = importlib.import_module(".".join(parts[:cut]))
        except Exception:  # noqa: BLE001
            continue
        for name in parts[cut:-1]:
            owner = getattr(owner, name, None)
            if owner is None:
                return
        name = parts[-1]
        if isinstance(owner, types.ModuleType):
            if hasattr(owner, name):
                _hide_attribute(owner, name)
        elif isinstance(owner, type):
            holder = next((k for k in owner.__mro__ if name in vars(k)), None)
            if holder is not None:
                setattr(holder, name, _HiddenMember(vars(holder)[name], name))
        return


def hide(paths: list[str], now: bool) -> None:
    builtins.__import__ = _hiding_import
    if now:
        for path in paths:
            _hide_now(path)
    else:
        _PENDING.extend(paths)


def _execute(path: str) -> list:
    """Run the program; [repr(RESULT) or None, exception type or None, message]."""
    with open(path, "rb") as handle:
        source = handle.read()
    namespace = {"__name__": "__main__", "__file__": path, "__builtins__": builtins}
    try:
        exec(compile(source, path, "exec", dont_inherit=True), namespace)
    except BaseException as exc:  # noqa: BLE001 - what it raised is the record
        return [_result(namespace), type(exc).__name__, _message(exc)]
    return [_result(namespace), None, ""]


def _message(exc: BaseException) -> str:
    frames = [f"{f.lineno}" for f in traceback.extract_tb(exc.__traceback__) if f.filename in PROGRAMS]
    return f"{str(exc).splitlines()[0] if str(exc) else ''} (program line {','.join(frames)})"[:300]


def _result(namespace: dict):
    if "RESULT" not in namespace:
        return None
    try:
        return repr(namespace["RESULT"])
    except Exception as exc:  # noqa: BLE001
        return f"<unreprable: {type(exc).__name__}>"


def _rank_main(job: dict, rank: int, store_path: str | None, write_fd: int) -> None:
    """In a forked child: hide, join the group, run, write the record, exit without cleanup."""
    record = [None, "OracleError", "no record"]
    try:
        PROGRAMS.add(job["path"])
        world = job["world"]
        if world:
            import datetime

            import torch.distributed as dist

            os.environ.update(RANK=str(rank), WORLD_SIZE=str(world), LOCAL_RANK=str(rank),
                              LOCAL_WORLD_SIZE=str(world), MASTER_ADDR="127.0.0.1")
            dist.init_process_group("gloo", init_method=f"file://{store_path}", rank=rank,
                                    world_size=world, timeout=datetime.timedelta(seconds=TIMEOUT_S / 2))
        hide(job.get("hide", []), now=True)
        record = _execute(job["path"])
        if world:
            # Stay until every rank is done: a rank that leaves early takes its end of the
            # connections with it, and a peer still connecting a group reads that as a crash.
            try:
                import torch.distributed as dist

                dist.barrier()
            except Exception:  # noqa: BLE001 - a failed peer; its record says why
                pass
    except BaseException as exc:  # noqa: BLE001
        record = [None, "OracleError", f"{type(exc).__name__}: {exc}"[:300]]
    finally:
        data = json.dumps(record).encode()
        os.write(write_fd, data)
        os.close(write_fd)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)


def _run_forked(job: dict) -> list:
    world = job["world"]
    ranks = max(world, 1)
    store_dir = tempfile.mkdtemp(prefix="oracle-")
    store_path = os.path.join(store_dir, "store")
    children = []
    for rank in range(ranks):
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read_fd)
            _rank_main(job, rank, store_path, write_fd)
        os.close(write_fd)
        children.append((pid, read_fd))
    records: dict[int, list] = {}
    buffers = {read_fd: [] for _, read_fd in children}
    for _, read_fd in children:
        os.set_blocking(read_fd, False)
    deadline = time.monotonic() + TIMEOUT_S
    open_fds = {read_fd: index for index, (_, read_fd) in enumerate(children)}
    while open_fds and time.monotonic() < deadline:
        progressed = False
        for read_fd, index in list(open_fds.items()):
            try:
                chunk = os.read(read_fd, 65536)
            except BlockingIOError:
                continue
            progressed = True
            if chunk:
                buffers[read_fd].append(chunk)
                continue
            del open_fds[read_fd]
            data = b"".join(buffers[read_fd])
            records[index] = json.loads(data) if data else [None, "OracleError", "rank died"]
            if records[index][1] is not None:
                # A rank that failed leaves its peers waiting in a collective: give them a
                # moment to fail too, then stop waiting.
                deadline = min(deadline, time.monotonic() + GRACE_S)
        if not progressed:
            time.sleep(0.005)
    for read_fd in buffers:
        os.close(read_fd)
    for pid, _ in children:
        try:
            os.kill(pid, 9)
        except ProcessLookupError:
            pass
        os.waitpid(pid, 0)
    shutil.rmtree(store_dir, ignore_errors=True)
    return [records.get(index, [None, "Timeout", "no answer (a peer failed, or it hung)"])
            for index in range(ranks)]


def _run_fresh(job: dict) -> list:
    import subprocess

    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.json")
        with open(os.path.join(tmp, "job.json"), "w") as handle:
            json.dump(job, handle)
        try:
            subprocess.run([sys.executable, __file__, "--fresh", os.path.join(tmp, "job.json"), out],
                           timeout=TIMEOUT_S, capture_output=True)
        except subprocess.TimeoutExpired:
            return [[None, "Timeout", f"no answer in {TIMEOUT_S} s"]]
        if not os.path.exists(out):
            return [[None, "OracleError", "the fresh interpreter wrote nothing"]]
        with open(out) as handle:
            return json.load(handle)


def _fresh_main(job_path: str, out: str) -> None:
    with open(job_path) as handle:
        job = json.load(handle)
    if job["world"]:
        raise SystemExit("a fresh job runs without a process group")
    PROGRAMS.add(job["path"])
    hide(job.get("hide", []), now=False)
    record = _execute(job["path"])
    with open(out, "w") as handle:
        json.dump([record], handle)


_FLAKES = ("connectFullMesh failed", "Connection closed by peer", "Connection reset by peer")


def _transport_flake(rank: list) -> bool:
    """gloo's TCP transport failing to connect on a loaded machine: not the program's doing."""
    return rank[1] is not None and any(flake in (rank[2] or "") for flake in _FLAKES)


def _warm(paths: set[str]) -> None:
    """Import, once and before forking, every module a hide will need (torch._dynamo alone takes
    seconds): each child then finds them loaded."""
    for path in sorted(paths):
        parts = path.split(".")
        for cut in range(len(parts), 0, -1):
            try:
                importlib.import_module(".".join(parts[:cut]))
                break
            except Exception:  # noqa: BLE001 - not a module, or not on this build
                continue


def main(argv: list[str]) -> int:
    if argv[:1] == ["--fresh"]:
        _fresh_main(argv[1], argv[2])
        return 0
    jobs_path, results_path = argv
    with open(jobs_path) as handle:
        jobs = json.load(handle)
    import torch  # noqa: F401 - once, before forking: every child starts with it loaded
    import torch.distributed  # noqa: F401
    try:
        import torch.distributed.device_mesh  # noqa: F401
    except ImportError:
        pass
    _warm({path for job in jobs if not job.get("fresh")
           for path in job.get("hide", []) + job.get("warm", [])})
    results = {"torch": torch.__version__, "jobs": {}}
    results["seconds"] = {}
    for job in jobs:
        started = time.monotonic()
        for _attempt in range(3):
            record = _run_fresh(job) if job.get("fresh") else _run_forked(job)
            if not any(_transport_flake(rank) for rank in record):
                break
        results["jobs"][job["id"]] = record
        results["seconds"][job["id"]] = round(time.monotonic() - started, 3)
    with open(results_path, "w") as handle:
        json.dump(results, handle, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
