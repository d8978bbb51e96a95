#!/usr/bin/env bash
# The GPU half of the verify-across-builds record (issue 13), run from the repo root on a machine
# with >= 2 GPUs and no network:   bash docs/gpu-run-matrix.sh OUTDIR
# That machine cannot download other torch builds, so the matrix there is the installed build
# alone, on NCCL; the other builds run on CPU elsewhere (docs/verify-matrix-record-2026-11-30.md).
set -uo pipefail
out=${1:?outdir}
mkdir -p "$out"
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
own=$(python3 -c 'from importlib.metadata import version; print(version("torch"))')
{
  date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "nccl", torch.cuda.nccl.version(), "gpus", torch.cuda.device_count())'
  python3 -c 'import libcst' 2>&1 | tail -1
  env | grep -E '^(NCCL_NVLS_ENABLE|TORCH_SYMM_MEM_DISABLE_MULTICAST|NVSHMEM_DISABLE_NVLS)=' || true
} > "$out/build.txt" 2>&1
timed() {  # NAME CMD...: output to NAME.txt, rc and wall time to times.txt
  local name=$1; shift
  local t0; t0=$(date +%s.%N)
  "$@" > "$out/$name.txt" 2>&1; local rc=$?
  echo "$name rc=$rc wall=$(python3 -c "print(round($(date +%s.%N) - $t0, 1))") s" >> "$out/times.txt"
}
timed probe-matrix python3 -m privlint probe --torch "$own"
timed matrix python3 -m privlint verify tests/fixtures/verify/matrix_cases.py \
  --call 'seed(device_type, world_size)' --call 'with_backend_override(device_type, world_size)' \
  --call 'transposed(device_type, world_size)' --torch "$own" --timeout 120
timed seed-matrix python3 -m privlint verify tests/fixtures/fix/seed_build_fsdp_meshes.out.py \
  --call 'build_fsdp_meshes(device_type, world_size, 2)' --torch "$own" --json
timed ab-root-mesh python3 -m privlint verify tests/fixtures/verify/pkgroot/mypkg/meshes.py \
  --call 'build(device_type, world_size)' --timeout 120
timed uninstallable python3 -m privlint verify tests/fixtures/verify/matrix_cases.py \
  --call 'seed(device_type, world_size)' --torch 2.4.1 --env-dir /tmp/privlint-envs \
  --install-timeout 60
timed pytest-gpu python3 -m pytest -q -p no:cacheprovider tests/test_runtime.py tests/test_runtime_matrix.py \
  -k "gpu or probe_of_a_member or usage_errors"
cat "$out/times.txt"
