"""Check many files: the cache first, then parsing, in worker processes when it pays.

The parent reads each file, answers from the cache and the prefilter, and sends only the
files that need a parse to a process pool (`-j`). A worker that dies is reported on stderr
and its files are checked again in the parent, so the results are always complete.
"""

from __future__ import annotations

import os
import sys
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path

from privlint.cache import Cache
from privlint.safety import with_big_stack
from privlint.checker import IO_ERROR, Context, FileResult, _file_error, check_source

MIN_FILES_PER_WORKER = 8  # below this, starting processes costs more than it saves

_worker_context: Context | None = None


def _init_worker(ctx: Context) -> None:
    global _worker_context
    _worker_context = ctx


def _check_in_worker(item: tuple[str, bytes, str | None]) -> FileResult:
    display, data, fix = item
    if os.environ.get("PRIVLINT_TEST_KILL_WORKER") == display:
        os._exit(9)  # lets the test suite prove that a dying worker is survived
    assert _worker_context is not None
    return with_big_stack(check_source, data, display, _worker_context, fix)


@dataclass
class Job:
    path: Path
    display: str


def default_jobs() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def run_files(jobs_list: list[Job], ctx: Context, fix: str | None, cache: Cache | None,
              jobs: int) -> list[tuple[Job, FileResult]]:
    results: dict[int, FileResult] = {}
    pending: list[tuple[int, bytes, str | None]] = []
    for index, job in enumerate(jobs_list):
        try:
            data = job.path.read_bytes()
        except OSError as exc:
            results[index] = FileResult(_file_error(ctx, job.display, IO_ERROR,
                                                    f"cannot read: {exc.strerror or exc}"))
            continue
        if ctx.use_prefilter and not ctx.relevant.search(data):
            results[index] = FileResult([], data)
            continue
        key = cache.key(job.display, data) if cache is not None and fix is None else None
        cached = cache.get(key) if key is not None else None
        if cached is not None:
            results[index] = FileResult(cached, data)
            continue
        pending.append((index, data, key))
    workers = min(jobs, len(pending) // MIN_FILES_PER_WORKER)
    computed: dict[int, FileResult] = {}
    if workers >= 2:
        computed = _parallel(pending, jobs_list, ctx, fix, workers)
    for index, data, _ in pending:
        if index not in computed:
            computed[index] = with_big_stack(check_source, data, jobs_list[index].display, ctx, fix)
    for index, data, key in pending:
        result = computed[index]
        result.original = data
        results[index] = result
        if key is not None and cache is not None:
            cache.put(key, result.findings)
    return [(jobs_list[i], results[i]) for i in range(len(jobs_list))]


def _parallel(pending, jobs_list, ctx, fix, workers) -> dict[int, FileResult]:
    done: dict[int, FileResult] = {}
    try:
        with ProcessPoolExecutor(workers, initializer=_init_worker, initargs=(ctx,)) as pool:
            items = [(jobs_list[i].display, data, fix) for i, data, _ in pending]
            for (index, _, _), result in zip(pending, pool.map(_check_in_worker, items, chunksize=4)):
                done[index] = result
    except BrokenProcessPool:
        print(f"privlint: a worker process died; checking the remaining "
              f"{len(pending) - len(done)} files in the main process", file=sys.stderr)
    return done
