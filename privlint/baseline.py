"""Baselines: record today's findings, then report only new ones.

A finding is identified by its fingerprint (path, code, API and the normalised source of
its statement), so it survives lines moving; identical findings are counted, not merged.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from privlint.errors import ConfigError
from privlint.findings import Finding


def write_baseline(path: Path, findings: list[Finding]) -> None:
    counts = Counter(f.fingerprint for f in findings)
    first = {}
    for finding in findings:
        first.setdefault(finding.fingerprint, finding)
    entries = [{"fingerprint": key, "count": counts[key], "path": first[key].path,
                "code": first[key].code, "api": first[key].api} for key in sorted(counts)]
    path.write_text(json.dumps({"privlint-baseline": 1, "findings": entries}, indent=1) + "\n")


def read_baseline(path: Path) -> Counter:
    try:
        data = json.loads(path.read_text())
        return Counter({e["fingerprint"]: int(e["count"]) for e in data["findings"]})
    except OSError as exc:
        raise ConfigError(f"cannot read baseline: {exc.strerror or exc}", path=str(path)) from None
    except (ValueError, KeyError, TypeError):
        raise ConfigError("not a privlint baseline (written by --write-baseline)",
                          path=str(path)) from None


def new_findings(findings: list[Finding], known: Counter) -> list[Finding]:
    remaining = Counter(known)
    fresh = []
    for finding in findings:
        if remaining[finding.fingerprint] > 0:
            remaining[finding.fingerprint] -= 1
        else:
            fresh.append(finding)
    return fresh
