#!/usr/bin/env bash
# tmakit's attention forward against PyTorch's SDPA on a GPU machine, side by side in one process
# (bench/bench_attention.py), with PyTorch's Python:
#   bash scripts/attention_bench_gpu.sh LIB [bench_attention.py arguments, e.g. --quick]
# LIB: libtmakit_attention_capi.so, built with -DTMAKIT_BUILD_BENCH=ON (build/bench/...). It links
# the CUDA runtime statically; the library path below (PyTorch's CUDA 13 libraries, then the
# toolkit's) is for whatever else gets loaded. Checks the C ABI first (--abi-check), then measures;
# the log goes to $OUT/attention_bench.txt and the CSV to $OUT/attention_bench.csv (OUT defaults
# to .), and with matplotlib present the plot to $OUT/attention_bench.svg.
# Environment: PYTHON (default /opt/torch/.venv/bin/python3, else python3), LIMIT_S (the whole
# measurement's time limit, default 540 s: a hang still returns the rows measured before it).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
[ $# -ge 1 ] || { echo "usage: $0 LIB [bench_attention.py arguments]" >&2; exit 2; }
LIB=$(realpath "$1")
shift
OUT_DIR=${OUT:-.}
mkdir -p "$OUT_DIR"
export OUT=$OUT_DIR
PY=${PYTHON:-/opt/torch/.venv/bin/python3}
[ -x "$PY" ] || PY=python3
for d in /opt/torch/.venv/lib/python3*/site-packages/nvidia/cu13/lib; do
  [ -d "$d" ] && export LD_LIBRARY_PATH="$d:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
done
LOG=$OUT_DIR/attention_bench.txt
{
  echo "== $(date -u +%Y-%m-%dT%H:%M:%SZ) $(hostname)"
  nvidia-smi --query-gpu=name,driver_version,compute_cap,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv 2>&1
  "$PY" --version
  echo "== ldd $LIB"
  ldd "$LIB"
  echo "== the C ABI"
  "$PY" bench/bench_attention.py --abi-check --lib "$LIB" || echo "abi-check failed"
  echo "== the benchmark: bench/bench_attention.py --lib $LIB $*"
  timeout -k 10 "${LIMIT_S:-540}" "$PY" -u bench/bench_attention.py --lib "$LIB" --csv "$OUT_DIR/attention_bench.csv" "$@"
  rc=$?
  echo "bench_attention.py exit status: $rc"
  echo "$rc" > "$OUT_DIR/attention_bench.rc"
} 2>&1 | tee "$LOG"
if "$PY" -c "import matplotlib" 2>/dev/null; then
  "$PY" tools/plot_attention_bench.py "$OUT_DIR/attention_bench.csv" "$OUT_DIR/attention_bench.svg" \
    "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1), $(date -u +%Y-%m-%d)" ||
    echo "plot failed (tools/plot_attention_bench.py)"
fi
exit "$(cat "$OUT_DIR/attention_bench.rc" 2>/dev/null || echo 1)"
