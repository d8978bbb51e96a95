"""Sweep the real-framework corpus: check, fix (unsafe too), fix again, compile everything.

    python bench/sweep.py [--corpus bench/corpus] [--small]

Works on a copy of the corpus. Prints the counts the reliability issue asks for: files
swept, crashes (a traceback or an exit code other than 0/1), fixed files that do not
compile, and files a second --fix still changes.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def privlint(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "privlint", *args], cwd=cwd, capture_output=True,
                          text=True)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--small", action="store_true", help="torchtitan and accelerate only")
    args = parser.parse_args()
    sys.path.insert(0, str(HERE))
    from corpus import FULL, SMALL, build

    src = build(HERE / "corpus", SMALL if args.small else FULL)
    work = Path(tempfile.mkdtemp(prefix="privlint-sweep-")) / "src"
    shutil.copytree(src, work)
    (work / "pyproject.toml").write_text("[tool.privlint]\n")
    files = sorted(work.rglob("*.py"))
    before = {p: p.read_bytes() for p in files}
    crashes = 0
    check = privlint("check", ".", "--no-cache", "--statistics", cwd=work)
    crashes += check.returncode not in (0, 1) or "Traceback" in check.stderr
    first = privlint("check", ".", "--no-cache", "--fix", "--unsafe-fixes", "--fix-only", cwd=work)
    crashes += first.returncode not in (0, 1) or "Traceback" in first.stderr
    changed = [p for p in files if p.read_bytes() != before[p]]
    not_compiling = []
    for path in changed:
        try:
            compile(path.read_bytes(), str(path), "exec")
        except SyntaxError as exc:
            not_compiling.append(f"{path.relative_to(work)}: {exc}")
    after = {p: p.read_bytes() for p in files}
    second = privlint("check", ".", "--no-cache", "--fix", "--unsafe-fixes", "--fix-only", cwd=work)
    crashes += second.returncode not in (0, 1) or "Traceback" in second.stderr
    unstable = [p for p in files if p.read_bytes() != after[p]]
    print(check.stdout)
    print(first.stdout.strip() or first.stderr.strip())
    print(f"files swept: {len(files)}; crashes: {crashes}; files fixed: {len(changed)}; "
          f"fixed files that do not compile: {len(not_compiling)}; "
          f"files a second --fix changed: {len(unstable)}")
    for line in not_compiling[:20]:
        print("  does not compile:", line)
    for path in unstable[:20]:
        print("  unstable:", path.relative_to(work))
    shutil.rmtree(work.parent, ignore_errors=True)
    return 0 if not crashes and not not_compiling and not unstable else 1


if __name__ == "__main__":
    sys.exit(main())
