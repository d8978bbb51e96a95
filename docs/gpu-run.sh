#!/usr/bin/env bash
# The GPU record for privlint probe/verify (run on a machine with >= 2 GPUs, from the repo root):
#   bash docs/gpu-run.sh OUTDIR [NPROC]
# Writes the build, probe, verify --builtin and the seed function's verify, with wall times.
set -uo pipefail
out=${1:?outdir}; nproc=${2:-2}
mkdir -p "$out"
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
{
  date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "hip", torch.version.hip, "nccl", torch.cuda.nccl.version(), "gpus", torch.cuda.device_count())'
  env | grep -E '^(NCCL_NVLS_ENABLE|TORCH_SYMM_MEM_DISABLE_MULTICAST|NVSHMEM_DISABLE_NVLS)=' || true
} > "$out/build.txt" 2>&1
python3 -m privlint probe > "$out/probe.txt" 2>&1
python3 -m privlint probe --json > "$out/probe.json" 2>/dev/null
run() {
  local name=$1; shift
  local t0; t0=$(python3 -c 'import time; print(time.time())')
  python3 -m privlint verify "$@" > "$out/$name.txt" 2>&1; local rc=$?
  python3 -c "import time; print('$name rc=$rc wall=%.1f s' % (time.time() - $t0))" >> "$out/times.txt"
}
run builtin --builtin --nproc "$nproc"
run seed tests/fixtures/fix/seed_build_fsdp_meshes.out.py --call "build_fsdp_meshes(device_type, world_size, $nproc)" --nproc "$nproc"
run submesh tests/fixtures/verify/submesh_fallback.py --call "build(device_type, world_size)" --nproc "$nproc" --timeout 60
python3 -m pytest -q tests/test_runtime.py -k gpu -p no:cacheprovider > "$out/pytest-gpu.txt" 2>&1
cat "$out/times.txt"
