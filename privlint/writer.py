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
