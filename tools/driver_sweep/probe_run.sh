#!/usr/bin/env bash
# Runs a probe (interleave_probe, im2col_probe) over a case file, one case per line, resuming after a
# case that kills the CUDA context (the probe prints the case, then KERNEL_ERROR, and exits 3).
# Usage (on the GPU machine): probe_run.sh PROBE CASES OUT
#   e.g. cd .probe && ../tools/driver_sweep/probe_run.sh ./im2col_probe im2col_cases.txt $OUT/im2col_out.txt
set -u
probe=$1 cases=$2 out=$3
total=$(wc -l < "$cases"); start=1; : > "$out"
while [ "$start" -le "$total" ]; do
  tail -n +"$start" "$cases" | "$probe" >> "$out" 2>&1
  rc=$?
  [ $rc -eq 0 ] && break
  start=$(( $(grep -c '^case ' "$out") + 1 ))
done
echo "$(basename "$probe"): $(grep -c '^case ' "$out") cases, $(grep -c KERNEL_ERROR "$out") kernel errors, $(grep -c 'enc 0 ' "$out") encoded"
