"""Start the ranks with torch's elastic launcher, bounded by a wall-clock timeout.

The launcher runs in its own process session (`python -m privlint.runtime.launch SPEC`):
when the deadline passes, the whole session — launcher and every rank — is killed, so a
hung collective ends in a FAIL and never leaves an orphaned process behind.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path


@dataclass
class LaunchOutcome:
    timed_out: bool
    returncode: int
    log: str
    seconds: float


def kill_session(process: subprocess.Popen) -> None:
    """End a process's whole session: SIGTERM, then SIGKILL; no member outlives it."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=5)
            return
        except subprocess.TimeoutExpired:
            continue


def launch(spec: dict, nproc: int, timeout: float, python: str | None = None,
           env: dict[str, str] | None = None) -> LaunchOutcome:
    """Run `nproc` local ranks of worker.main(spec); return when they end or the time is up.

    `python` and `env`: another torch build's interpreter and environment (verify --torch);
    by default this interpreter and this environment."""
    run_dir = Path(spec["run_dir"])
    spec_path = run_dir / "spec.json"
    spec_path.write_text(json.dumps(spec))
    log_path = run_dir / "launcher.log"
    start = time.monotonic()
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            [python or sys.executable, "-m", "privlint.runtime.launch", str(spec_path), str(nproc)],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            env=_quiet({**(os.environ if env is None else env), "PYTHONUNBUFFERED": "1"}))
        returncode, timed_out = _wait(process, start, timeout, nproc, spec)
    # Children of the launcher share its session: make sure none outlives it.
    kill_session(process)
    return LaunchOutcome(timed_out, returncode, log_path.read_text(errors="replace"),
                         time.monotonic() - start)


def _status_stream():
    """stderr when a person watches it (a terminal, not CI); else None: logs get no countdown."""
    return sys.stderr if sys.stderr.isatty() and not os.environ.get("CI") else None


def _wait(process: subprocess.Popen, start: float, timeout: float, nproc: int,
          spec: dict) -> tuple[int, bool]:
    """Wait for the launcher; on a terminal, say what runs and how long is left."""
    stream = _status_stream()
    what = f"{nproc} ranks on {spec.get('device', 'cpu')} ({spec.get('backend', 'gloo')})"
    deadline = start + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            kill_session(process)
            returncode, timed_out = -1, True
            break
        try:
            returncode, timed_out = process.wait(timeout=min(0.5, left)), False
            break
        except subprocess.TimeoutExpired:
            if stream is not None:
                stream.write(f"\rprivlint verify: {what} running for "
                             f"{time.monotonic() - start:.0f} s, {left:.0f} s left before the "
                             f"timeout ")
                stream.flush()
    if stream is not None:
        stream.write("\r\x1b[2K")
        stream.flush()
    return returncode, timed_out


def _launcher_main(spec_path: str, nproc: int) -> int:
    from torch.distributed.elastic.multiprocessing.errors import ChildFailedError
    from torch.distributed.launcher.api import LaunchConfig, elastic_launch

    from privlint.runtime.worker import main as worker_main

    config = LaunchConfig(
        min_nodes=1, max_nodes=1, nproc_per_node=nproc, run_id=f"privlint-{uuid.uuid4().hex[:8]}",
        rdzv_backend="c10d", rdzv_endpoint="127.0.0.1:0", max_restarts=0, monitor_interval=0.1,
        start_method="spawn")
    try:
        elastic_launch(config, worker_main)(spec_path)
    except ChildFailedError as exc:
        print(f"privlint: a rank failed: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(_launcher_main(sys.argv[1], int(sys.argv[2])))


# CPU builds without numpy warn at import ("Failed to initialize NumPy"); it says nothing
# about the meshes, and every rank would print it into the report.
_NUMPY_WARNING = "ignore:Failed to initialize NumPy"


def _quiet(env: dict[str, str]) -> dict[str, str]:
    filters = [f for f in env.get("PYTHONWARNINGS", "").split(",") if f]
    return {**env, "PYTHONWARNINGS": ",".join([*filters, _NUMPY_WARNING])}
