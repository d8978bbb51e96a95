"""Build a corpus of real framework sources from PyPI (pinned versions), unpacked.

    python bench/corpus.py [--dest bench/corpus] [--small]

Wheels are fetched with `pip download --no-deps` and unzipped, so the files are exactly
what users install. `--small` takes only torchtitan and accelerate (the test-suite sweep).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import zipfile
from pathlib import Path

SMALL = ["torchtitan==0.3.0", "accelerate==1.15.0"]
FULL = SMALL + [
    "transformers==4.57.1", "deepspeed==0.18.2", "megatron-core==0.14.0", "verl==0.6.0",
    "trl==0.25.1", "diffusers==0.35.2", "torchtune==0.6.1",
]


def build(dest: Path, packages: list[str]) -> Path:
    wheels = dest / "wheels"
    src = dest / "src"
    wheels.mkdir(parents=True, exist_ok=True)
    for requirement in packages:
        name = requirement.split("==")[0].replace("-", "_")
        if any(wheels.glob(f"{name}-*.whl")):
            continue
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps",
                        "--only-binary=:all:", "-d", str(wheels), requirement], check=True)
    for wheel in sorted(wheels.glob("*.whl")):
        target = src / wheel.name[: -len(".whl")]
        if not target.exists():
            with zipfile.ZipFile(wheel) as archive:
                archive.extractall(target)
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
