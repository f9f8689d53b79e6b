#!/usr/bin/env bash
# The encoder's GPU check, one command on a GPU system: a FRESH randomized sweep (seeds never used for
# tests/data) through the driver and through tmakit, compared line by line (decisions and bytes),
# then the encode benchmark. Expects the binaries in $BIN (default .probe): driver_sweep, tmakit,
# bench_encode. Logs go to $OUT (default ./gpu-out). SEED (default 1001) is the first of the six
# seeds: give a new one for a sweep no earlier run has seen (used so far, each recorded in the sweep
# table of docs/lab/README.md: 1001 to 10001 in steps of 1000 on 2026-11-22; 11001 to 17001 in steps
# of 1000 on 2026-11-26).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
BIN=${BIN:-.probe}
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
W=$(mktemp -d)
G=tools/driver_sweep/gen_configs.py
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
date -u +%Y-%m-%dT%H:%M:%SZ | tee -a "$OUT/gpu.txt"
S=${SEED:-1001}
{
  for s in $S $((S + 1)) $((S + 2)); do python3 $G --seed $s --count 100000; done
  python3 $G --family tiled --seed $((S + 3)) --count 100000
  python3 $G --family im2col --seed $((S + 4)) --count 50000
  python3 $G --family im2col_wide --seed $((S + 5)) --count 50000
  python3 $G --family onefactor
} > "$W/cfg.jsonl"
"$BIN/driver_sweep" --meta "$OUT/meta.json" < "$W/cfg.jsonl" > "$W/driver.jsonl"
t0=$(date +%s.%N)
"$BIN/tmakit" encode --jsonl "$W/cfg.jsonl" > "$W/tmakit.jsonl"
t1=$(date +%s.%N)
echo "tmakit encode --jsonl: $(wc -l < "$W/cfg.jsonl") lines in $(echo "$t1 - $t0" | bc 2>/dev/null || python3 -c "print($t1-$t0)") s" | tee "$OUT/jsonl_time.txt"
python3 tools/driver_sweep/compare.py "$W/driver.jsonl" "$W/tmakit.jsonl" --show 10 | tee "$OUT/compare.txt"
"$BIN/bench_encode" | tee "$OUT/bench_encode.txt"
