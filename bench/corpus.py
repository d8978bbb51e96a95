"""Build a corpus of real framework sources from PyPI (pinned versions), unpacked.

    python bench/corpus.py [--dest bench/corpus] [--small]

Wheels are fetched with `pip download --no-deps` and unzipped, so the files are exactly
what users install. `--small` takes only torchtitan and accelerate (the test-suite sweep).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

SMALL = ["torchtitan==0.3.0", "accelerate==1.15.0"]
FULL = SMALL + [
    "transformers==5.24.0", "diffusers==0.42.1", "megatron-core==0.16.1", "verl==0.9.1",
    "trl==1.16.0", "torchtune==0.6.1", "deepspeed==0.19.8",  # deepspeed ships only an sdist
]


def build(dest: Path, packages: list[str]) -> Path:
    wheels = dest / "wheels"
    src = dest / "src"
    wheels.mkdir(parents=True, exist_ok=True)
    for requirement in packages:
        name = requirement.split("==")[0].replace("-", "_")
        if any(wheels.glob(f"{name}-*")):
            continue
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps",
                        "--prefer-binary", "-d", str(wheels), requirement], check=True)
    for archive_path in sorted(wheels.iterdir()):
        stem = archive_path.name.removesuffix(".whl").removesuffix(".tar.gz")
        target = src / stem
        if target.exists():
            continue
        if archive_path.name.endswith(".whl"):
            with zipfile.ZipFile(archive_path) as archive:
                archive.extractall(target)
        elif archive_path.name.endswith(".tar.gz"):
            with tarfile.open(archive_path) as archive:
                archive.extractall(target, filter="data")
    return src


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dest", type=Path, default=Path(__file__).parent / "corpus")
    parser.add_argument("--small", action="store_true")
    args = parser.parse_args()
    src = build(args.dest, SMALL if args.small else FULL)
    print(f"{sum(1 for _ in src.rglob('*.py'))} Python files under {src}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
