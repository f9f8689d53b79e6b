#!/usr/bin/env bash
# The multi-GPU collectives on a machine with 2 or more Hopper GPUs of one NVLink domain: the
# tests against NCCL (every byte) and the planted faults, each rank under compute-sanitizer
# memcheck (small shapes), and the benchmark against NCCL. One command, logs and CSV into OUT:
#   bash scripts/collectives_gpu.sh BIN OUT [STEPS]
# BIN holds tmakit_ranks, tmakit_gpu_test_collectives and bench_collectives (copied from a build:
# build/kernels/collectives_sm90/tmakit_ranks, build/tests/tmakit_gpu_test_collectives,
# build/bench/bench_collectives); STEPS (default "tests sanitizer bench") any of
# tests, sanitizer, bench, sweep, tune, probe (bench = sizes, SM sweep and pipeline shapes; sweep,
# tune = the SM sweep / the pipeline shapes only; probe = bench_collectives' probe mode: copy
# engines, NCCL and tmakit's store orders at 256 MiB and 1 GiB with NVLink counters per link, CSV
# probe_N.csv, and nvidia-smi's NVLink status and data counters before and after it in
# probe_N_nvlink.txt).
# The all-gather fused into the GEMM (kernels/allgather_gemm_sm90) has steps of its own, for a BIN
# that also holds build/tests/tmakit_gpu_test_allgather_gemm and build/bench/bench_allgather_gemm:
# fused_tests (against NCCL all-gather + the GEMM on 2 GPUs, and on 4 where there are 4; the
# planted faults), fused_sanitizer (2 ranks under memcheck, small shapes), fused_bench (every rank).
# libnccl: the system's, else PyTorch's (/opt/torch/.venv/.../nvidia/nccl/lib); it must be 2.28 or
# later (symmetric windows, the device API). NVLink multicast stays off in every process.
# Steps after a failed tests step are skipped unless FORCE=1 (a hang in the release build, which
# has no watchdog, would run until the step's timeout).
# Environment: SAMPLES (benchmark samples per point, default 20), GPUS (ranks, default all GPUs).
set -u
BIN=$(cd "$1" && pwd)
OUT=$2
STEPS=${3:-"tests sanitizer bench"}
mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
export NCCL_DEBUG=${NCCL_DEBUG:-WARN}
for d in /opt/torch/.venv/lib/python3*/site-packages/nvidia/nccl/lib; do
  [ -d "$d" ] && export LD_LIBRARY_PATH="$d:${LD_LIBRARY_PATH:-}"
done
for d in /opt/torch/.venv/lib/python3*/site-packages/nvidia/cu13/lib; do
  [ -d "$d" ] && export LD_LIBRARY_PATH="$d:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
done
N=${GPUS:-$(nvidia-smi -L | wc -l)}
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
{
  date -u '+date: %Y-%m-%d %H:%M:%S UTC'
  nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader
  nvidia-smi topo -m 2>/dev/null | head -12
  echo "ranks: $N"
  echo "LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}"
  for b in bench_collectives bench_allgather_gemm; do [ -x "$BIN/$b" ] && ldd "$BIN/$b" | grep -iE "nccl|cuda|cublas"; done
  L=${LD_LIBRARY_PATH:-}; for d in ${L//:/ }; do ls "$d"/libnccl.so* 2>/dev/null; done
  "$SAN" --version 2>/dev/null | tail -1
  python3 -c "import torch; print('NCCL (PyTorch):', torch.cuda.nccl.version())" 2>/dev/null
} >"$OUT/env.txt" 2>&1
cat "$OUT/env.txt"

status=0
step() {  # step <name> <timeout> <command...>
  local name=$1 t=$2; shift 2
  local t0; t0=$(date +%s.%N)
  timeout -s KILL "$t" "$@" >"$OUT/$name.log" 2>&1
  local rc=$?
  printf '%-22s exit %3d  %6.1f s\n' "$name" "$rc" "$(awk "BEGIN{print $(date +%s.%N) - $t0}")" | tee -a "$OUT/steps.txt"
  [ $rc -eq 0 ] || status=1
  tail -25 "$OUT/$name.log"
}

for s in $STEPS; do
  if [ "$s" != tests ] && [ "$s" != fused_tests ] && [ -n "${TESTS_FAILED:-}" ] && [ -z "${FORCE:-}" ]; then
    echo "skipping $s: the tests failed (FORCE=1 runs it anyway)" | tee -a "$OUT/steps.txt"
    continue
  fi
  case $s in
    tests)
      step "tests_$N" 300 "$BIN/tmakit_gpu_test_collectives" || true
      grep -q "exit   0" <(tail -1 "$OUT/steps.txt") || TESTS_FAILED=1 ;;
    sanitizer)
      # Each rank under its own memcheck; small shapes only (TMAKIT_COLLECTIVES_SMALL=1). API errors
      # are not reported: libnccl's own probes return them and carry on (per rank, 8 x
      # cudaErrorNoKernelImageForDevice from ncclInitKernelsForDevice and 3 x CUDA_ERROR_NOT_PERMITTED
      # from cuMemCreate in ncclMemAlloc, docs/lab/collectives.md 2026-11-27 03:35); memory errors are.
      export TMAKIT_COLLECTIVES_SMALL=1
      for t in AllGather ReduceScatter; do
        step "memcheck_${t}_2" 400 "$BIN/tmakit_ranks" --timeout 380 2 "$SAN" --tool memcheck \
          --report-api-errors no --error-exitcode 97 "$BIN/tmakit_gpu_test_collectives" --gtest_filter="CollectivesRank.$t"
      done
      unset TMAKIT_COLLECTIVES_SMALL ;;
    bench)
      step "bench_$N" 300 "$BIN/tmakit_ranks" --timeout 290 "$N" "$BIN/bench_collectives" "$OUT/bench_$N.csv" all "${SAMPLES:-20}" ;;
    tune)
      step "tune_$N" 300 "$BIN/tmakit_ranks" --timeout 290 "$N" "$BIN/bench_collectives" "$OUT/tune_$N.csv" tune "${SAMPLES:-20}" ;;
    probe)
      { echo "before:"; nvidia-smi nvlink -s; nvidia-smi nvlink -gt d; } >"$OUT/probe_${N}_nvlink.txt" 2>&1
      step "probe_$N" 150 "$BIN/tmakit_ranks" --timeout 140 "$N" "$BIN/bench_collectives" "$OUT/probe_$N.csv" probe "${SAMPLES:-20}"
      { echo "after:"; nvidia-smi nvlink -gt d; } >>"$OUT/probe_${N}_nvlink.txt" 2>&1 ;;
    sweep)
      step "sweep_$N" 300 "$BIN/tmakit_ranks" --timeout 290 "$N" "$BIN/bench_collectives" "$OUT/sweep_$N.csv" sweep "${SAMPLES:-20}" ;;
    fused_tests)
      step "fused_tests_$N" 300 "$BIN/tmakit_gpu_test_allgather_gemm" || true
      grep -q "exit   0" <(tail -1 "$OUT/steps.txt") || TESTS_FAILED=1 ;;
    fused_sanitizer)
      export TMAKIT_ALLGATHER_GEMM_SMALL=1
      step "memcheck_allgather_gemm_2" 400 "$BIN/tmakit_ranks" --timeout 380 2 "$SAN" --tool memcheck \
        --report-api-errors no --error-exitcode 97 "$BIN/tmakit_gpu_test_allgather_gemm" \
        --gtest_filter="AllGatherGemmRank.EqualsNcclAllGatherThenGemm"
      unset TMAKIT_ALLGATHER_GEMM_SMALL ;;
    fused_bench)
      step "fused_bench_$N" 300 "$BIN/tmakit_ranks" --timeout 290 "$N" "$BIN/bench_allgather_gemm" \
        "$OUT/fused_bench_$N.csv" "${SAMPLES:-15}" ;;
  esac
done
exit $status
