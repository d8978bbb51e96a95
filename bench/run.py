"""privlint against its peers on a real-framework corpus, interleaved over several rounds.

    python bench/run.py [--rounds 3] [--out bench/RESULTS.md]

Builds the pinned corpus (bench/corpus.py) and a venv of peers (bench/.peers: ruff, pylint,
TorchFix), then runs, in every round and in the same order: privlint cold (--no-cache),
privlint warm (cache filled), privlint on 10 named files (pre-commit sized, cold and warm),
`privlint --version`, ruff SLF001, and on a subset pylint protected-access and TorchFix
(time-capped). Prints medians, files/s, ratios against ruff on the same files, peak RSS.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
PEERS = {"ruff": "ruff==0.17.6", "pylint": "pylint==4.1.4", "torchfix": "torchfix==0.7.0"}


def run(command: list[str], cwd: Path, cap: float | None = None) -> tuple[float, int, bool]:
    """(wall seconds, peak RSS in MB of the process itself, whether it finished before `cap`)."""
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    finished = True
    while True:
        pid, status, usage = os.wait4(process.pid, os.WNOHANG if cap is not None else 0)
        if pid:
            break
        if time.perf_counter() - start > cap:
            process.kill()
            _, status, usage = os.wait4(process.pid, 0)
            finished = False
            break
        time.sleep(0.02)
    process.returncode = status  # reaped here (wait4 gives the child's own peak RSS)
    return time.perf_counter() - start, usage.ru_maxrss // 1024, finished


def peers_venv() -> Path:
    venv = HERE / ".peers"
    python = venv / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    if not all((venv / "bin" / tool).exists() for tool in PEERS):  # also after a failed install
        subprocess.run([str(python), "-m", "pip", "install", "-q", *PEERS.values()], check=True)
    return venv / "bin"


def version(command: list[str]) -> str:
    try:
        return subprocess.run(command, capture_output=True, text=True).stdout.strip().splitlines()[0]
    except (OSError, IndexError):
        return "?"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", type=Path, default=HERE / "RESULTS.md")
    parser.add_argument("--subset-files", type=int, default=200, help="pylint/TorchFix subset size")
    parser.add_argument("--torchfix-cap", type=float, default=120.0)
    args = parser.parse_args()
    sys.path.insert(0, str(HERE))
    from corpus import FULL, build

    src = build(HERE / "corpus", FULL)
    # As pip does when it installs a wheel: with PYTHONDONTWRITEBYTECODE set (as on some CI
    # machines), an edited checkout would otherwise compile privlint's modules on every run.
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(HERE.parent / "privlint")],
                   check=True, stdout=subprocess.DEVNULL)
    files = sorted(src.rglob("*.py"))
    bin_dir = peers_venv()
    subset_dir = Path(tempfile.mkdtemp(prefix="privlint-bench-subset-"))
    torchy = [p for p in files if b"torch" in p.read_bytes()][: args.subset_files]
    for index, path in enumerate(torchy):
        shutil.copyfile(path, subset_dir / f"f{index:04}_{path.name}")
    named = [str(p) for p in torchy[:10]]
    cache = Path(tempfile.mkdtemp(prefix="privlint-bench-cache-"))
    privlint = [sys.executable, "-m", "privlint"]
    quiet = ["--exit-zero", "--format", "json", "-o", os.devnull]
    subprocess.run(privlint + ["check", str(src), "--cache-dir", str(cache), *quiet], check=True)
    subprocess.run(privlint + ["check", *named, "--cache-dir", str(cache), *quiet], check=True)
    cases = {
        "privlint cold (--no-cache)": (privlint + ["check", str(src), "--no-cache", *quiet], len(files), None),
        "privlint warm (cache filled)": (privlint + ["check", str(src), "--cache-dir", str(cache), *quiet],
                                         len(files), None),
        "privlint 10 named files, cold": (privlint + ["check", *named, "--no-cache", *quiet], 10, None),
        "privlint 10 named files, warm": (privlint + ["check", *named, "--cache-dir", str(cache), *quiet],
                                          10, None),
        "privlint --version": (privlint + ["--version"], 0, None),
        "ruff SLF001 (--no-cache)": ([str(bin_dir / "ruff"), "check", "--isolated", "--select", "SLF001",
                                      "--no-cache", "--exit-zero", "-q", str(src)], len(files), None),
        "privlint cold, subset": (privlint + ["check", str(subset_dir), "--no-cache", *quiet],
                                  len(torchy), None),
        "ruff SLF001, subset": ([str(bin_dir / "ruff"), "check", "--isolated", "--select", "SLF001",
                                 "--no-cache", "--exit-zero", "-q", str(subset_dir)], len(torchy), None),
        "pylint protected-access, subset": ([str(bin_dir / "pylint"), "--disable=all",
                                             "--enable=protected-access", "--exit-zero", "-j", "1",
                                             str(subset_dir)], len(torchy), None),
        "TorchFix, subset (capped)": ([str(bin_dir / "torchfix"), str(subset_dir)], len(torchy),
                                      args.torchfix_cap),
    }
    walls: dict[str, list[float]] = {name: [] for name in cases}
    peaks: dict[str, int] = {name: 0 for name in cases}
    capped: dict[str, bool] = {name: False for name in cases}
    for round_index in range(args.rounds):
        for name, (command, _, cap) in cases.items():
            wall, peak, finished = run(command, REPO, cap)
            walls[name].append(wall)
            peaks[name] = max(peaks[name], peak)
            capped[name] = capped[name] or not finished
            print(f"round {round_index + 1} {name}: {wall:.2f} s, {peak} MB", flush=True)
    median = {name: statistics.median(values) for name, values in walls.items()}
    ruff_full, ruff_subset = median["ruff SLF001 (--no-cache)"], median["ruff SLF001, subset"]
    lines = [
        "# Benchmark results", "",
        f"Date: {time.strftime('%Y-%m-%d')}. Machine: {platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}. Command: `python bench/run.py --rounds {args.rounds}`.",
        f"Corpus: {len(files)} files from {', '.join(FULL)}; subset: {len(torchy)} files that mention torch.",
        f"Versions: privlint {version(privlint + ['--version'])}; {version([str(bin_dir / 'ruff'), '--version'])}; "
        f"{version([str(bin_dir / 'pylint'), '--version'])}; torchfix {PEERS['torchfix'].split('==')[1]}.",
        "", "| run | files | median wall (s) | files/s | vs ruff, same files | peak RSS (MB) |",
        "|---|---|---|---|---|---|",
    ]
    for name, (_, count, _) in cases.items():
        base = ruff_subset if "subset" in name else ruff_full
        same_files = count in (len(files), len(torchy))
        ratio = f"{median[name] / base:.1f}×" if same_files else "—"
        rate = f"{count / median[name]:.0f}" if count else "—"
        note = " (hit the cap)" if capped[name] else ""
        lines.append(f"| {name}{note} | {count} | {median[name]:.2f} | {rate} | {ratio} | {peaks[name]} |")
    # The machine's speed drifts between rounds (the same code by 15%), and ruff's with it: each
    # round's own ratio shows how far the median's may be trusted.
    cold = [privlint_wall / ruff_wall for privlint_wall, ruff_wall
            in zip(walls["privlint cold (--no-cache)"], walls["ruff SLF001 (--no-cache)"])]
    lines += ["", "privlint cold against ruff SLF001 in each round: "
              + ", ".join(f"{ratio:.1f}×" for ratio in cold) + "."]
    report = "\n".join(lines) + "\n"
    print(report)
    notes = ""
    if args.out.exists() and "<!-- notes -->" in args.out.read_text():
        notes = "\n<!-- notes -->" + args.out.read_text().split("<!-- notes -->", 1)[1]
    args.out.write_text(report + notes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
