"""Run privlint on pinned snapshots of real training-framework repositories (issue 11).

    python bench/realrepos.py [--only NAME ...] [--privlint-src DIR] [--jobs N]

Each repository is extracted (``git archive COMMIT | tar -x``) from its mirror under
``/work/.mirror/<owner>+<name>/repo`` into ``bench/realrepos/<name>/`` (git-ignored; their code is
never committed).  A missing mirror is reported with the ``fetch`` source to get it.  privlint runs
with the repository root as the working directory, so the repository's own ``pyproject.toml`` is
the one in use:

    python -m privlint check . --format json --no-cache

The exit code, wall time and counts by code go to ``bench/realrepos-results.json``; the full JSON
report of each run goes to ``bench/realrepos/_out/<name>.json`` (git-ignored) for auditing.
Exit code 2 (usage / configuration error) is a failure and is reported loudly; this script then
exits 2 as well.

privlint is imported from ``--privlint-src`` (default: the repository this file is in), with the
interpreter running this script, e.g.

    PYTHONPATH=/work/main /work/main/.venv/bin/python bench/realrepos.py --privlint-src /work/main
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
MIRRORS = Path(os.environ.get("REALREPOS_MIRRORS", "/work/.mirror"))

# (name, fetch source, commit) — commits recorded from the snapshots fetched for issue 11.
REPOS: list[tuple[str, str, str]] = [
    ("miles", "github:radixark/miles", "31f1ca961a94cb860cec3b2dea34ec332bfa8f76"),
    ("slime", "github:THUDM/slime", "624b824a898ab0ec1fcb4d373004c7f3852bf515"),
    ("torchtitan", "github:pytorch/torchtitan", "b5bcd76c66d0acb1a08b176d9639425bc55e0b2a"),
    ("verl", "github:volcengine/verl", "b178a3cd56f58b2d502255daba591e92833930a7"),
    ("megatron-lm", "github:NVIDIA/Megatron-LM", "d98e8a64ddf34856e74b24714e3bedb2f5a39553"),
    ("pytorch-lightning", "github:Lightning-AI/pytorch-lightning",
     "7f0c3436cd3f6ad3753125672024fc415cbcb414"),
]


def mirror_of(source: str) -> Path:
    owner, name = source.removeprefix("github:").split("/", 1)
    return MIRRORS / f"{owner}+{name}" / "repo"


def extract(name: str, source: str, commit: str, dest_root: Path) -> Path | None:
    """Extract COMMIT of SOURCE's mirror into dest_root/name; None (with a message) if absent."""
    dest = dest_root / name
    stamp = dest / ".realrepos-commit"
    if stamp.is_file() and stamp.read_text().strip() == commit:
        return dest
    git_dir = mirror_of(source)
    if not git_dir.exists():
        print(f"!! {name}: no mirror at {git_dir}; run the search tool's fetch with "
              f"source {source!r} first, then re-run this script", file=sys.stderr)
        return None
    have = subprocess.run(["git", f"--git-dir={git_dir}", "cat-file", "-e", f"{commit}^{{commit}}"],
                          capture_output=True)
    if have.returncode != 0:
        print(f"!! {name}: commit {commit} is not in {git_dir}; fetch {source!r} again "
              f"(the snapshot moved) or update the commit in REPOS", file=sys.stderr)
        return None
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    skipped = write_tree(git_dir, commit, dest)
    if skipped:
        print(f"   {name}: {len(skipped)} blobs absent from the snapshot (large files), not "
              f"extracted, e.g. {skipped[:3]}", file=sys.stderr)
    stamp.write_text(commit + "\n")
    return dest


def write_tree(git_dir: Path, commit: str, dest: Path) -> list[str]:
    """The equivalent of ``git archive COMMIT | tar -x -C DEST``, tolerant of absent blobs.

    A snapshot may list its largest files without holding them; ``git archive`` then fails as a
    whole, so the tree is written blob by blob and the absent ones are returned.
    """
    listing = subprocess.run(["git", f"--git-dir={git_dir}", "ls-tree", "-r", "-z", commit],
                             capture_output=True, check=True).stdout
    entries = []
    for rec in listing.split(b"\0"):
        if not rec:
            continue
        meta, path = rec.split(b"\t", 1)
        mode, kind, sha = meta.split()
        if kind == b"blob":
            entries.append((mode, sha, path.decode("utf-8", "surrogateescape")))
    batch = subprocess.Popen(["git", f"--git-dir={git_dir}", "cat-file", "--batch"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    skipped = []
    for mode, sha, path in entries:
        batch.stdin.write(sha + b"\n")
        batch.stdin.flush()
        header = batch.stdout.readline().split()
        if len(header) < 3 or header[1] == b"missing":
            skipped.append(path)
            continue
        data = batch.stdout.read(int(header[2]))
        batch.stdout.read(1)  # the newline after the contents
        target = dest / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if mode == b"120000":
            try:
                os.symlink(os.fsdecode(data), target)
            except OSError:
                skipped.append(path)
            continue
        target.write_bytes(data)
        if mode == b"100755":
            target.chmod(0o755)
    batch.stdin.close()
    batch.wait()
    return skipped


def run_privlint(root: Path, privlint_src: Path, python: str, jobs: int | None,
                 extra: list[str] | None = None) -> dict:
    cmd = [python, "-m", "privlint", "check", ".", "--format", "json", "--no-cache", *(extra or [])]
    if jobs:
        cmd += ["-j", str(jobs)]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(privlint_src), env.get("PYTHONPATH")]))
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    report = None
    try:
        report = json.loads(proc.stdout) if proc.stdout.strip() else None
    except json.JSONDecodeError:
        pass
    return {"cmd": cmd, "exit_code": proc.returncode, "wall_s": round(wall, 2),
            "stderr": proc.stderr, "report": report, "stdout_head": proc.stdout[:2000]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", help="repository names to run (default: all)")
    parser.add_argument("--privlint-src", type=Path, default=HERE.parent,
                        help="directory holding the privlint package (default: this repository)")
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--jobs", type=int, default=None, help="pass -j N to privlint")
    parser.add_argument("--dest", type=Path, default=HERE / "realrepos")
    parser.add_argument("--results", type=Path, default=None,
                        help="default: bench/realrepos-results.json (with --tag: realrepos-results-TAG.json)")
    parser.add_argument("--extra", action="append", default=[],
                        help="one more privlint argument, e.g. --extra=--no-prefilter (repeatable)")
    parser.add_argument("--tag", default="", help="name this variant: its reports go to _out-TAG/")
    args = parser.parse_args()
    if args.results is None:
        args.results = HERE / (f"realrepos-results-{args.tag}.json" if args.tag else "realrepos-results.json")

    out_dir = args.dest / (f"_out-{args.tag}" if args.tag else "_out")
    out_dir.mkdir(parents=True, exist_ok=True)
    privlint_head = subprocess.run(["git", "-C", str(args.privlint_src), "rev-parse", "HEAD"],
                                   capture_output=True, text=True).stdout.strip() or None
    results: dict = {"privlint_src": str(args.privlint_src), "privlint_commit": privlint_head,
                     "command": " ".join(["python -m privlint check . --format json --no-cache",
                                          *args.extra]),
                     "repos": []}
    failures = []
    for name, source, commit in REPOS:
        if args.only and name not in args.only:
            continue
        root = extract(name, source, commit, args.dest)
        entry: dict = {"name": name, "source": source, "commit": commit}
        if root is None:
            entry["status"] = "missing mirror"
            results["repos"].append(entry)
            failures.append(name)
            continue
        n_py = sum(1 for _ in root.rglob("*.py"))
        print(f"== {name} ({commit[:12]}, {n_py} .py files) ...", flush=True)
        run = run_privlint(root, args.privlint_src, args.python, args.jobs, args.extra)
        report = run["report"]
        findings = report.get("findings", []) if isinstance(report, dict) else []
        by_code = collections.Counter(f["code"] for f in findings)
        entry.update({
            "py_files": n_py,
            "exit_code": run["exit_code"],
            "wall_s": run["wall_s"],
            "findings": len(findings),
            "by_code": dict(sorted(by_code.items())),
            "files_with_findings": len({f["path"] for f in findings}),
            "summary": report.get("summary") if isinstance(report, dict) else None,
            "stderr_tail": run["stderr"][-2000:],
        })
        if run["exit_code"] == 2 or report is None:
            entry["status"] = "FAILED"
            failures.append(name)
            bar = "!" * 72
            print(f"{bar}\n!! {name}: privlint exited {run['exit_code']} "
                  f"(2 = usage/config error){' with no JSON report' if report is None else ''}\n"
                  f"!! stderr: {run['stderr'].strip()[-1500:]}\n{bar}", file=sys.stderr)
        else:
            entry["status"] = "ok"
        (out_dir / f"{name}.json").write_text(json.dumps(
            {"commit": commit, "exit_code": run["exit_code"], "report": report,
             "stderr": run["stderr"]}, indent=1))
        print(f"   exit {run['exit_code']}  {run['wall_s']} s  {len(findings)} findings  "
              f"{dict(sorted(by_code.items()))}", flush=True)
        results["repos"].append(entry)

    if args.only:  # keep the other repositories' last results
        try:
            old = json.loads(args.results.read_text())
            ran = {e["name"] for e in results["repos"]}
            results["repos"] = [e for e in old.get("repos", []) if e["name"] not in ran] \
                + results["repos"]
            order = [n for n, _, _ in REPOS]
            results["repos"].sort(key=lambda e: order.index(e["name"]) if e["name"] in order else 99)
        except (OSError, ValueError):
            pass
    args.results.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {args.results}")
    if failures:
        print(f"!! FAILED: {', '.join(failures)}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
