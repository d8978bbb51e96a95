"""Check many files: the cache first, then parsing, in worker processes when it pays.

The parent answers what it can from the cache (a stat, and a read for the content hash) and
sends the other files to a process pool (`-j`), by path, so no file's bytes are held twice.
The text prefilter runs in the workers too, so that the parent's serial part is only stats
and the cache. The largest files are sent first, so that no large file is left to one worker
at the end. A worker that dies is reported on stderr and its files are checked again in the
parent, so the results are always complete.
"""

from __future__ import annotations

import gc
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from privlint.cache import Cache
from privlint.progress import Progress
from privlint.checker import IO_ERROR, Context, FileResult, _file_error, check_source, origin_of
from privlint.safety import with_big_stack

MIN_FILES_PER_WORKER = 8  # below this, starting processes costs more than it saves
# Files go to the workers in batches, not one by one: a round trip to a worker costs about as
# much as checking a small file the text prefilter rejects, and most files are such. A batch
# closes at this many bytes or files; the largest files, sent first, go one or two at a time,
# and the last batches, of the smallest files, end the run evenly.
BATCH_BYTES = 256 * 1024
BATCH_FILES = 64
BATCHES_PER_WORKER = 8

_worker_context: Context | None = None


@dataclass
class Job:
    path: Path
    display: str


def default_jobs() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def _unreadable(ctx: Context, job: Job, exc: OSError) -> FileResult:
    return FileResult(_file_error(ctx, job.display, IO_ERROR, f"cannot read: {exc.strerror or exc}"))


def _check_file(job: Job, ctx: Context, fix: str | None) -> FileResult:
    try:
        data = job.path.read_bytes()
    except OSError as exc:
        return _unreadable(ctx, job, exc)
    relevant = ctx.relevant.search(data, origin_of(ctx, job.display))
    if ctx.use_prefilter and fix is None and not relevant:
        return FileResult([])  # no thread hand-off for the many files that mention no private name
    # The cyclic collector runs once per file, on what the file left, not every few hundred
    # allocations over the million nodes of a large file's tree (a tenth of the check).
    # Memory stays bounded: the file's garbage is collected before the next file.
    gc.disable()
    try:
        result = with_big_stack(check_source, data, job.display, ctx, fix, relevant)
    finally:
        gc.enable()
        gc.collect(0)
    if fix is None:
        result.original = b""  # only --fix needs the bytes back
    return result


def _init_worker(ctx: Context) -> None:
    global _worker_context
    _worker_context = ctx
    gc.freeze()  # the catalog and the modules live as long as the process: never scan them


def _check_in_worker(item: tuple[Job, str | None]) -> FileResult:
    job, fix = item
    if os.environ.get("PRIVLINT_TEST_KILL_WORKER") == job.display:
        os._exit(9)  # lets the test suite prove that a dying worker is survived
    assert _worker_context is not None
    return _check_file(job, _worker_context, fix)


def run_files(jobs_list: list[Job], ctx: Context, fix: str | None, cache: Cache | None,
              jobs: int, progress: "Progress | None" = None) -> list[tuple[Job, FileResult]]:
    results: dict[int, FileResult] = {}
    pending: list[int] = []
    fingerprints: dict[int, tuple[str, os.stat_result]] = {}
    sizes: dict[int, int] = {}
    use_cache = cache is not None and fix is None
    for index, job in enumerate(jobs_list):
        try:
            stat = job.path.stat()
        except OSError as exc:
            results[index] = _unreadable(ctx, job, exc)
            continue
        if use_cache:
            cached = cache.by_stat(job.display, stat)
            if cached is not None:
                results[index] = FileResult(cached)
                continue
        sizes[index] = stat.st_size
        if use_cache:
            try:
                data = job.path.read_bytes()
            except OSError as exc:
                results[index] = _unreadable(ctx, job, exc)
                continue
            digest = cache.content_hash(data)
            cached = cache.by_content(job.display, digest, stat)
            if cached is not None:
                results[index] = FileResult(cached)
                continue
            fingerprints[index] = (digest, stat)
        pending.append(index)
    if progress is not None:
        progress.advance(len(jobs_list) - len(pending))  # answered without a parse
    pending.sort(key=lambda index: -sizes[index])
    workers = min(jobs, len(pending) // MIN_FILES_PER_WORKER)
    computed = _parallel(batches(pending, sizes, workers), jobs_list, ctx, fix, workers, progress) \
        if workers >= 2 else {}
    for index in pending:
        if index not in computed:
            computed[index] = _check_file(jobs_list[index], ctx, fix)
            if progress is not None:
                progress.advance()
        results[index] = computed[index]
        if index in fingerprints and cache is not None:
            digest, stat = fingerprints[index]
            cache.put(jobs_list[index].display, digest, stat, results[index].findings)
    if cache is not None:
        cache.save()
    return [(jobs_list[i], results[i]) for i in range(len(jobs_list))]


def batches(pending: list[int], sizes: dict[int, int], workers: int) -> list[list[int]]:
    """`pending` (largest file first) cut into consecutive batches of at most BATCH_BYTES bytes
    or BATCH_FILES files, and small enough that each worker gets several (BATCHES_PER_WORKER);
    a file larger than the byte limit is a batch of its own."""
    share = workers * BATCHES_PER_WORKER
    most_bytes = min(BATCH_BYTES, sum(sizes[index] for index in pending) // share)
    most_files = max(1, min(BATCH_FILES, len(pending) // share))
    cut: list[list[int]] = []
    batch: list[int] = []
    size = 0
    for index in pending:
        if batch and (size + sizes[index] > most_bytes or len(batch) == most_files):
            cut.append(batch)
            batch, size = [], 0
        batch.append(index)
        size += sizes[index]
    if batch:
        cut.append(batch)
    return cut


def _check_batch_in_worker(items: list[tuple[Job, str | None]]) -> list[FileResult]:
    return [_check_in_worker(item) for item in items]


def _parallel(work: list[list[int]], jobs_list, ctx, fix, workers, progress=None) -> dict[int, FileResult]:
    from concurrent.futures import ProcessPoolExecutor  # only a run with many files needs it
    from concurrent.futures.process import BrokenProcessPool

    done: dict[int, FileResult] = {}
    try:
        with ProcessPoolExecutor(workers, initializer=_init_worker, initargs=(ctx,)) as pool:
            items = [[(jobs_list[i], fix) for i in batch] for batch in work]
            for batch, results in zip(work, pool.map(_check_batch_in_worker, items)):
                done.update(zip(batch, results))
                if progress is not None:
                    progress.advance(len(batch))
    except BrokenProcessPool:
        remaining = sum(map(len, work)) - len(done)
        print(f"privlint: a worker process died; checking the remaining "
              f"{remaining} files in the main process", file=sys.stderr)
    return done
