#!/usr/bin/env bash
# The GEMM on a machine with a Hopper GPU, in one call: its GPU test against cuBLAS, then the
# benchmark against cuBLASLt (bench/bench_gemm.cu), side by side in one process.
#   bash scripts/gemm_gpu.sh BUILD_DIR [bench_gemm arguments: samples, shape filter]
# BUILD_DIR holds tests/tmakit_gpu_test_gemm and bench/bench_gemm (built with -DTMAKIT_BUILD_BENCH=ON;
# the CUDA runtime is linked statically, cuBLAS / cuBLASLt come from PyTorch's CUDA 13 libraries or
# the toolkit's). Logs go to $OUT (default .): gemm_test.txt, gemm_bench.txt.
# Environment:
#   TESTS=0        skip the test
#   GTEST_FILTER   the test's filter (default: every GEMM test)
#   BASELINE=BIN   another bench_gemm (e.g. built from an earlier commit), run right after with the
#                  same arguments: an A/B in one call, on one machine, one after the other
#   CLUSTERS="1 2" also run the benchmark with TMAKIT_GEMM_CLUSTER_M forced to each value
#   TMAKIT_BENCH_REFERENCE, TMAKIT_GEMM_SPLITS: see bench/bench_gemm.cu
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
[ $# -ge 1 ] || { echo "usage: $0 BUILD_DIR [bench_gemm arguments]" >&2; exit 2; }
BUILD=$1
shift
OUT_DIR=${OUT:-.}
mkdir -p "$OUT_DIR"
for d in /opt/torch/.venv/lib/python3*/site-packages/nvidia/cu13/lib; do
  [ -d "$d" ] && export LD_LIBRARY_PATH="$d:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
done
header() {
  echo "== $(date -u +%Y-%m-%dT%H:%M:%SZ) $*"
  nvidia-smi --query-gpu=name,driver_version,compute_cap,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv,noheader 2>&1
}
rc=0
if [ "${TESTS:-1}" != 0 ]; then
  {
    header "tmakit_gpu_test_gemm ${GTEST_FILTER:-}"
    timeout -k 10 "${TEST_LIMIT_S:-300}" "$BUILD/tests/tmakit_gpu_test_gemm" ${GTEST_FILTER:+--gtest_filter=$GTEST_FILTER}
    echo "test exit status: $?"
  } 2>&1 | tee "$OUT_DIR/gemm_test.txt"
  grep -q "test exit status: 0" "$OUT_DIR/gemm_test.txt" || rc=1
fi
{
  header "bench_gemm $*"
  timeout -k 10 "${BENCH_LIMIT_S:-240}" "$BUILD/bench/bench_gemm" "$@"
  echo "bench_gemm exit status: $?"
  for c in ${CLUSTERS:-}; do
    header "TMAKIT_GEMM_CLUSTER_M=$c bench_gemm $*"
    TMAKIT_GEMM_CLUSTER_M=$c timeout -k 10 "${BENCH_LIMIT_S:-240}" "$BUILD/bench/bench_gemm" "$@"
    echo "bench_gemm exit status: $?"
  done
  if [ -n "${BASELINE:-}" ]; then
    header "baseline $BASELINE $*"
    TMAKIT_BENCH_REFERENCE= timeout -k 10 "${BENCH_LIMIT_S:-240}" "$BASELINE" "$@"
    echo "baseline exit status: $?"
  fi
} 2>&1 | tee "$OUT_DIR/gemm_bench.txt"
exit $rc
