"""Write a fixed file atomically, and only if nobody changed it since it was read.

The new bytes go to a temporary file in the same directory (same filesystem), get the
original's permission bits, are flushed to disk, and replace the original with one
`os.replace`: a reader sees the old file or the new one, never half of either.
"""

from __future__ import annotations

import os
import signal
import stat
import tempfile
import threading
from pathlib import Path


class ChangedOnDisk(Exception):
    """The file no longer holds the bytes the fix was computed from."""


class LinkOutsideProject(Exception):
    """The path is a symbolic link to a file outside the project: privlint leaves it alone."""


def write_fixes(results, project_root: Path) -> list[tuple[str, str]]:
    """Write each `(path, display, result)`'s fixed bytes; (display, reason) for each failure.

    A symbolic link is written through to its target when the target lies inside the project
    (the link stays a link); a link that leads outside the project is reported, not written.
    """
    failures = []
    for path, display, result in results:
        try:
            write_atomic(_write_target(path, project_root), result.original, result.fixed)
        except LinkOutsideProject as exc:
            failures.append((display, f"a symbolic link to {exc}, outside the project; fix the target "
                                      "there, or check it from its own project"))
            result.fixed = None
        except ChangedOnDisk:
            failures.append((display, "the file changed on disk while privlint was fixing it"))
            result.fixed = None
        except OSError as exc:
            failures.append((display, exc.strerror or str(exc)))
            result.fixed = None
    return failures


def _write_target(path: Path, project_root: Path) -> Path:
    if not path.is_symlink():
        return path
    target = path.resolve(strict=True)
    root = project_root.resolve()
    if target != root and root not in target.parents:
        raise LinkOutsideProject(str(target))
    return target


_INTERRUPTS = {signal.SIGINT, signal.SIGTERM}


def write_atomic(path: Path, original: bytes, new: bytes) -> None:
    """Replace `path`'s content `original` with `new`; OSError or ChangedOnDisk on failure.

    SIGINT and SIGTERM are held back for the few milliseconds this takes, so an interrupt lands
    between files, never between creating the temporary file and renaming or removing it.
    """
    blocking = hasattr(signal, "pthread_sigmask") and threading.current_thread() is threading.main_thread()
    if blocking:
        signal.pthread_sigmask(signal.SIG_BLOCK, _INTERRUPTS)
    try:
        _write(path, original, new)
    finally:
        if blocking:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, _INTERRUPTS)


def _write(path: Path, original: bytes, new: bytes) -> None:
    mode = stat.S_IMODE(os.stat(path).st_mode)
    if not mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH) or not os.access(path, os.W_OK):
        # Even root honours a read-only mode: the user marked the file not to be changed.
        raise PermissionError(13, "file is read-only", str(path))
    descriptor, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".privlint-tmp",
                                             dir=path.parent)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(new)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, mode)
        if path.read_bytes() != original:
            raise ChangedOnDisk(str(path))
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except FileNotFoundError:
            pass
        raise
