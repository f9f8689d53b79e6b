#!/usr/bin/env bash
# The attention forward pass on a GPU machine in one call: its GPU test (every case, both grid forms:
# one CTA per tile and persistent), then the benchmark against PyTorch's SDPA (bench/bench_attention.py
# through scripts/attention_bench_gpu.sh: every configuration, both grid forms side by side).
#   bash scripts/attention_gpu.sh DIR [bench_attention.py arguments, e.g. --quick]
# DIR holds the two binaries built on the development machine (they need no CUDA runtime of the GPU
# machine: both link it statically):
#   DIR/tmakit_gpu_test_attention      build/tests/tmakit_gpu_test_attention
#   DIR/libtmakit_attention_capi.so    build/bench/libtmakit_attention_capi.so (-DTMAKIT_BUILD_BENCH=ON)
# Writes six files into $OUT (default .): attention_test.txt (the test's output) and attention_test.xml
# (its per-test results), then attention_bench.txt, attention_bench.csv, attention_bench.rc and, with
# matplotlib present, attention_bench.svg. Exit status: 0 when both passed.
# Environment: TEST_LIMIT_S (the test's time limit, default 90 s), LIMIT_S (the benchmark's, default
# 120 s); together with the start-up they stay under 4 minutes.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
[ $# -ge 1 ] || { echo "usage: $0 DIR [bench_attention.py arguments]" >&2; exit 2; }
DIR=$(realpath "$1")
shift
for f in tmakit_gpu_test_attention libtmakit_attention_capi.so; do
  [ -f "$DIR/$f" ] || { echo "$0: $DIR/$f is missing" >&2; exit 2; }
done
OUT_DIR=${OUT:-.}
mkdir -p "$OUT_DIR"
export OUT=$OUT_DIR

{
  echo "== $(date -u +%Y-%m-%dT%H:%M:%SZ) $(hostname): $DIR/tmakit_gpu_test_attention"
  nvidia-smi --query-gpu=name,driver_version,compute_cap,clocks.sm,clocks.max.sm --format=csv 2>&1
  start=$(date +%s)
  timeout -k 10 "${TEST_LIMIT_S:-90}" "$DIR/tmakit_gpu_test_attention" --gtest_output="xml:$OUT_DIR/attention_test.xml"
  rc=$?
  echo "tmakit_gpu_test_attention exit status: $rc ($(( $(date +%s) - start )) s)"
  echo "$rc" > "$OUT_DIR/.attention_test.rc"
} > "$OUT_DIR/attention_test.txt" 2>&1
test_rc=$(cat "$OUT_DIR/.attention_test.rc" 2>/dev/null || echo 1)
rm -f "$OUT_DIR/.attention_test.rc"
grep -E "^\[ +(OK|FAILED|PASSED) +\]|exit status" "$OUT_DIR/attention_test.txt"

LIMIT_S=${LIMIT_S:-120} bash scripts/attention_bench_gpu.sh "$DIR/libtmakit_attention_capi.so" "$@" > /dev/null 2>&1
bench_rc=$?
grep -E "^ *[0-9]+ +[0-9]+ +[0-9]+ |^#|exit status" "$OUT_DIR/attention_bench.txt" | tail -60
echo "test exit status $test_rc, benchmark exit status $bench_rc"
[ "$test_rc" = 0 ] && [ "$bench_rc" = 0 ]
