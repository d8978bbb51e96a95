"""Shared helpers: run the real CLI in a subprocess on real files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


@dataclass
class Result:
    returncode: int
    stdout: str
    stderr: str

    @property
    def json(self) -> dict:
        return json.loads(self.stdout)

    @property
    def findings(self) -> list[dict]:
        return self.json["findings"]


def run_privlint(*args: str, cwd: Path | None = None, stdin: str | None = None,
                 env: dict[str, str] | None = None, timeout: float = 300) -> Result:
    full_env = dict(os.environ)
    full_env.pop("PRIVLINT_CACHE_DIR", None)
    if env:
        full_env.update(env)
    proc = subprocess.run([sys.executable, "-m", "privlint", *args], cwd=cwd, input=stdin,
                          capture_output=True, text=True, env=full_env, timeout=timeout)
    return Result(proc.returncode, proc.stdout, proc.stderr)


def run_with_terminal_stderr(*args: str, cwd: Path) -> tuple[subprocess.CompletedProcess, bytes]:
    """Run privlint with stderr on a pseudo-terminal (outside CI), as a person watching would;
    return the process (stdout piped) and what the terminal showed."""
    import pty

    master, slave = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    proc = subprocess.run([sys.executable, "-m", "privlint", *args], cwd=cwd,
                          stdout=subprocess.PIPE, stderr=slave, env=env, timeout=120)
    os.close(slave)
    shown = b""
    try:
        while chunk := os.read(master, 4096):
            shown += chunk
    except OSError:  # the terminal's other end is closed once everything is read
        pass
    os.close(master)
    return proc, shown


def write(root: Path, relative: str, source: str) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(source).lstrip("\n"), encoding="utf-8")
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """An isolated project directory (its own pyproject.toml stops config discovery)."""
    (tmp_path / "pyproject.toml").write_text("[tool.privlint]\n", encoding="utf-8")
    return tmp_path


def check_batch(root: Path, cases: dict[str, str], *extra: str) -> dict[str, list[dict]]:
    """Write each case to its own file, run `privlint check` once, group findings by case."""
    (root / "pyproject.toml").write_text("[tool.privlint]\n", encoding="utf-8")
    for name, source in cases.items():
        write(root, f"{name}.py", source)
    result = run_privlint("check", ".", "--format", "json", "--no-cache", *extra, cwd=root)
    assert result.returncode in (0, 1), result.stderr
    grouped: dict[str, list[dict]] = {name: [] for name in cases}
    for finding in result.findings:
        grouped[Path(finding["path"]).stem].append(finding)
    return grouped
