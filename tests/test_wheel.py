"""The built wheel carries the catalog and works outside the source tree."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

from conftest import REPO, write


def _build_wheel(out: Path) -> Path:
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "-q", "-w", str(out), str(REPO)], check=True, capture_output=True)
    return next(out.glob("privlint-*.whl"))


def test_wheel_ships_rules_and_runs_outside_the_tree(tmp_path):
    wheel = _build_wheel(tmp_path / "dist")
    names = zipfile.ZipFile(wheel).namelist()
    assert "privlint/rules/device_mesh.toml" in names and "privlint/rules/engine.toml" in names
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target",
                    str(target), str(wheel)], check=True, capture_output=True)
    work = tmp_path / "elsewhere"
    write(work, "train.py", "import torch\nx = torch.distributed._tensor.DTensor\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(target)
    # -I would drop PYTHONPATH; -P is 3.11+. Run from a directory with no privlint/ beside it.
    result = subprocess.run([sys.executable, "-c",
                             "import privlint.cli, sys; print(privlint.cli.__file__, file=sys.stderr);"
                             "sys.exit(privlint.cli.main(['check', 'train.py']))"],
                            cwd=work, env=env, capture_output=True, text=True)
    assert str(target) in result.stderr, result.stderr
    assert result.returncode == 1, result.stderr
    assert "train.py:2:5: PRV201" in result.stdout
