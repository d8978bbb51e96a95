"""Per-file results cached on disk, keyed by everything that can change them.

The key covers the file's bytes and path, privlint's version, the rule catalog's bytes and
the effective settings; any change misses. A corrupt entry, or a directory that cannot be
written, is ignored: the cache only ever saves time, it is never needed for a result.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import asdict
from pathlib import Path

from privlint import __version__
from privlint.findings import Finding


class Cache:
    def __init__(self, directory: Path, salt: str) -> None:
        self.root = directory / salt[:16]
        self.salt = salt
        self.broken = False

    @staticmethod
    def salt_for(rule_files: list[str], settings_repr: str) -> str:
        digest = hashlib.sha256(__version__.encode())
        for name in sorted(rule_files):
            digest.update(name.encode())
            try:
                digest.update(Path(name).read_bytes())
            except OSError:
                digest.update(b"?")
        digest.update(settings_repr.encode())
        return digest.hexdigest()

    def key(self, display: str, data: bytes) -> str:
        return hashlib.sha256(self.salt.encode() + display.encode() + b"\0" + data).hexdigest()

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> list[Finding] | None:
        try:
            rows = json.loads(self._path(key).read_text())
            return [Finding(**row) for row in rows]
        except (OSError, ValueError, TypeError):
            return None  # missing or corrupt: recompute (and overwrite)

    def put(self, key: str, findings: list[Finding]) -> None:
        if self.broken:
            return
        path = self._path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            top = self.root.parent
            if not (top / ".gitignore").exists():
                (top / ".gitignore").write_text("# Created by privlint.\n*\n")
            descriptor, temporary = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
            with os.fdopen(descriptor, "w") as handle:
                json.dump([asdict(f) for f in findings], handle)
            os.replace(temporary, path)
        except OSError:
            self.broken = True  # an unwritable cache directory: carry on without it
