"""Per-file results cached on disk, keyed by everything that can change them.

One index file per combination of privlint version, rule catalog (its files' bytes) and
effective settings; any change to those starts a new index. Inside it, each path records
its content hash, size, mtime and findings: a file whose size and mtime are unchanged is
taken as unchanged without being read (as git and ruff do); otherwise its content hash
decides. A corrupt index, or a directory that cannot be written, is ignored: the cache only
ever saves time, it is never needed for a result.
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
        self.directory = directory
        self.index_path = directory / f"index-{salt[:20]}.json"
        self.entries: dict[str, dict] = self._load()
        self.dirty = False

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

    def _load(self) -> dict[str, dict]:
        try:
            data = json.loads(self.index_path.read_text())
            return data if isinstance(data, dict) else {}
        except (OSError, ValueError):
            return {}  # missing or corrupt: start afresh

    @staticmethod
    def content_hash(data: bytes) -> str:
        return hashlib.sha256(data).hexdigest()

    def by_stat(self, display: str, stat: os.stat_result) -> list[Finding] | None:
        entry = self.entries.get(display)
        if entry and entry.get("size") == stat.st_size and entry.get("mtime") == stat.st_mtime_ns:
            return self._findings(entry)
        return None

    def by_content(self, display: str, digest: str, stat: os.stat_result) -> list[Finding] | None:
        entry = self.entries.get(display)
        if entry and entry.get("sha") == digest:
            entry.update(size=stat.st_size, mtime=stat.st_mtime_ns)
            self.dirty = True
            return self._findings(entry)
        return None

    @staticmethod
    def _findings(entry: dict) -> list[Finding] | None:
        try:
            return [Finding(**row) for row in entry["findings"]]
        except (KeyError, TypeError):
            return None

    def put(self, display: str, digest: str, stat: os.stat_result, findings: list[Finding]) -> None:
        self.entries[display] = {"sha": digest, "size": stat.st_size, "mtime": stat.st_mtime_ns,
                                 "findings": [asdict(f) for f in findings]}
        self.dirty = True

    def save(self) -> None:
        if not self.dirty:
            return
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            ignore = self.directory / ".gitignore"
            if not ignore.exists():
                ignore.write_text("# Created by privlint.\n*\n")
            descriptor, temporary = tempfile.mkstemp(dir=self.directory, suffix=".tmp")
            with os.fdopen(descriptor, "w") as handle:
                json.dump(self.entries, handle)
            os.replace(temporary, self.index_path)
        except OSError:
            pass  # an unwritable cache directory: carry on without it
