#!/usr/bin/env bash
# DRAM and L2 traffic of the streaming copy's SM kernels, to see whether they move more DRAM bytes
# than the copy needs (read = write = MIB MiB each) and how busy DRAM is while they run:
#   bash scripts/stream_copy_ncu.sh [BINARY] [MIB] [FILTER]
# BINARY: bench_stream_copy (default build-bench/bench/bench_stream_copy), MIB: copy size (default
# 1024), FILTER: also profile every probe variant whose name contains it (bench_stream_copy's
# `once` mode: one launch of each kernel after the fill, no verification, no cudaMemcpyAsync:
# ncu profiles no kernel for the driver's D2D copy). Clocks are left alone (--clock-control none)
# so durations compare with the benchmark's; caches are flushed before each kernel. Runs in well
# under a minute on an H100 or H200 (a few replay passes of two 1 GiB copies).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-build-bench/bench/bench_stream_copy}
MIB=${2:-1024}
FILTER=${3:-}
NCU=$(command -v ncu || true)
[ -n "$NCU" ] || [ ! -x /usr/local/cuda/bin/ncu ] || NCU=/usr/local/cuda/bin/ncu
[ -n "$NCU" ] || { echo "stream_copy_ncu: ncu not found" >&2; exit 1; }
[ -x "$BIN" ] || { echo "stream_copy_ncu: no $BIN (configure with -DTMAKIT_BUILD_BENCH=ON, build bench_stream_copy)" >&2; exit 1; }
METRICS=dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
METRICS=$METRICS,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,gpu__time_duration.sum
echo "stream_copy_ncu: $MIB MiB copies: the copy itself reads and writes $((MIB * 1048576)) bytes" \
  "($((MIB * 32768)) sectors of 32 B) each way"
# Copy kernels are named tma_* or vec_* (tma_copy, vec_copy, stream_copy::tma_phased, vec_wave, ...).
"$NCU" --clock-control none --cache-control all --print-units base \
  -k 'regex:(^|::)(tma_|vec_)' --metrics "$METRICS" \
  "$BIN" "" "$MIB" once ${FILTER:+"$FILTER"}
