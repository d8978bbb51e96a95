"""privlint verify and probe on real CPU ranks (gloo), started by torch's elastic launcher."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import REPO, run_privlint

pytest.importorskip("torch")
VERIFY = Path(__file__).parent / "fixtures" / "verify"
FIXED_SEED = Path(__file__).parent / "fixtures" / "fix" / "seed_build_fsdp_meshes.out.py"


def _privlint_processes() -> list[str]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            if "privlint.runtime" in cmdline or "privlint_verify_target" in cmdline:
                found.append(f"{entry.name}: {cmdline}")
    return found


def verify(*args: str, cwd: Path, timeout: float = 240):
    result = run_privlint("verify", *args, "--json", cwd=cwd, timeout=timeout)
    assert result.returncode in (0, 1), result.stderr[-3000:]
    return result.returncode, json.loads(result.stdout)


@pytest.mark.parametrize("world_size", [2, 4, 8])
def test_seed_guarded_function_passes(tmp_path, world_size):
    shutil.copyfile(FIXED_SEED, tmp_path / "parallel.py")
    code, data = verify("parallel.py", "--call", "build_fsdp_meshes(device_type, world_size, 2)",
                        "--nproc", str(world_size), "--timeout", "200", cwd=tmp_path)
    assert code == 0, data["calls"][0]["failures"]
    call = data["calls"][0]
    checks = {(r["mesh"], r["dim"], r["check"]) for r in call["rows"]}
    assert ("result['fsdp']", "dp_shard", "all_to_all") in checks
    assert any("its own root" in w for w in call["warnings"])
    assert data["run"]["backend"] == "gloo" and data["run"]["ranks"] == world_size


def test_fallback_on_a_submesh_fails(tmp_path):
    code, data = verify(str(VERIFY / "submesh_fallback.py"), "--call", "build(device_type, world_size)",
                        "--nproc", "4", "--timeout", "200", cwd=tmp_path)
    assert code == 1
    failures = data["calls"][0]["failures"]
    assert any("mesh: A=[[0], [2]] B=[[0], [1]]" in f for f in failures), failures


def test_reshape_fallback_fails_within_the_timeout(tmp_path):
    start = time.monotonic()
    code, data = verify(str(VERIFY / "reshape_fallback.py"), "--call", "build(device_type, world_size)",
                        "--nproc", "4", "--timeout", "30", cwd=tmp_path)
    failures = data["calls"][0]["failures"]
    # The crossed groups hang, return wrong values, or by luck the right ones (seen in CI);
    # every outcome must be a FAIL, and a completed run must name the crossed group.
    assert code == 1 and not data["calls"][0]["passed"], failures
    assert any("timed out" in f for f in failures) or \
        any("has different members on different ranks" in f for f in failures), failures
    assert time.monotonic() - start < 30 + 30
    assert _privlint_processes() == []


@pytest.mark.parametrize("call,needle", [
    ("raises_on_rank_1(device_type, world_size, rank)", "raised on rank 1: RuntimeError: boom on rank 1"),
    ("exits_on_rank_1(device_type, world_size, rank)", "rank 1 did not finish"),
    ("hangs(device_type, world_size, rank)", "timed out after 20 s"),
])
def test_faulty_ranks_end_in_fail_without_orphans(tmp_path, call, needle):
    start = time.monotonic()
    code, data = verify(str(VERIFY / "faults.py"), "--call", call, "--nproc", "2",
                        "--timeout", "20", cwd=tmp_path)
    assert code == 1
    assert any(needle in f for f in data["calls"][0]["failures"]), data["calls"][0]["failures"]
    assert time.monotonic() - start < 20 + 30
    assert _privlint_processes() == []


def test_fix_then_the_printed_verify_command_passes(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.privlint]\n")
    (tmp_path / "hsdp.py").write_text(
        "from torch.distributed.device_mesh import init_device_mesh\n\n\n"
        "def make_world(device_type, world_size):\n"
        "    # _unflatten raises on a mesh without dim names (torch 2.13): name it.\n"
        "    return init_device_mesh(device_type, (world_size,), mesh_dim_names=(\"dp\",))\n\n\n"
        "def build(device_type, world_size):\n"
        "    world = make_world(device_type, world_size)  # privlint cannot see it is 1-D\n"
        "    return world._unflatten(0, (2, world_size // 2), (\"rep\", \"shard\"))\n")
    fixed = run_privlint("check", "hsdp.py", "--fix", "--unsafe-fixes", cwd=tmp_path)
    assert "Fixed 1 finding (1 unsafe)" in fixed.stdout, fixed.stdout
    commands = [line.strip() for line in fixed.stdout.splitlines()
                if line.strip().startswith("privlint verify")]
    assert commands == ["privlint verify hsdp.py --call 'build(device_type, world_size)' --nproc 4"]
    args = commands[0].split(" ", 2)[2]
    import shlex

    result = run_privlint("verify", *shlex.split(args), "--timeout", "200", cwd=tmp_path, timeout=260)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert "Verdict: PASS" in result.stdout


def test_builtin_recipes_in_one_launch(tmp_path):
    code, data = verify("--builtin", "--nproc", "4", "--timeout", "200", cwd=tmp_path)
    assert code == 0, [c["failures"] for c in data["calls"] if c["failures"]]
    assert len(data["calls"]) == 9  # (1,4) (2,2) (4,1) and six 3-D factorisations of 4
    assert data["run"]["builtin"] is True


def test_usage_errors_exit_2(tmp_path):
    missing = run_privlint("verify", "nope.py", "--call", "f()", cwd=tmp_path)
    assert missing.returncode == 2 and "target file not found" in missing.stderr
    bad = run_privlint("verify", str(VERIFY / "faults.py"), "--call", "hangs(", cwd=tmp_path)
    assert bad.returncode == 2 and "is not a Python expression" in bad.stderr


def test_probe_reports_build_and_catalog(tmp_path):
    result = run_privlint("probe", "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    import torch

    assert data["build"]["torch"] == torch.__version__
    assert data["build"]["backends"]["gloo"] is True
    rows = {row["code"]: row for row in data["catalog"]}
    assert rows["PRV101"]["present"] is True and rows["PRV101"]["replacement_present"] is True
    assert rows["PRV105"]["present"] is False  # _dim_group_infos was removed in 2.8


def test_probe_without_torch_names_the_extra(tmp_path):
    env_dir = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env_dir)], check=True)
    python = env_dir / "bin" / "python"
    result = subprocess.run([str(python), "-m", "privlint", "probe"], capture_output=True, text=True,
                            env={**os.environ, "PYTHONPATH": str(REPO)}, cwd=tmp_path)
    assert result.returncode == 2
    assert "pip install 'privlint[runtime]'" in result.stderr


def _gpus() -> int:
    import torch

    return torch.cuda.device_count() if torch.cuda.is_available() else 0


needs_two_gpus = pytest.mark.skipif(_gpus() < 2, reason="needs two GPUs (NCCL)")


@needs_two_gpus
def test_gpu_seed_function_with_nccl(tmp_path):
    shutil.copyfile(FIXED_SEED, tmp_path / "parallel.py")
    code, data = verify("parallel.py", "--call", "build_fsdp_meshes(device_type, world_size, 2)",
                        "--nproc", "2", "--device", "cuda", "--backend", "nccl", cwd=tmp_path)
    assert code == 0, data["calls"][0]["failures"]
    assert data["run"]["device"] == "cuda" and data["run"]["backend"] == "nccl"


@needs_two_gpus
def test_gpu_builtin_with_nccl(tmp_path):
    code, data = verify("--builtin", "--nproc", "2", "--device", "cuda", cwd=tmp_path)
    assert code == 0, [c["failures"] for c in data["calls"] if c["failures"]]
    assert len(data["calls"]) == 5  # (1,2) (2,1) (1,1,2) (1,2,1) (2,1,1)


@needs_two_gpus
def test_gpu_fallback_on_a_submesh_fails(tmp_path):
    code, data = verify(str(VERIFY / "submesh_fallback.py"), "--call", "build(device_type, world_size)",
                        "--nproc", "2", "--device", "cuda", "--timeout", "60", cwd=tmp_path)
    assert code == 1
