#!/usr/bin/env bash
# Runs ./im2col_probe over ./im2col_cases.txt (both next to this script, e.g. copied into .probe/),
# resuming after a case that kills the context. Usage: im2col_run.sh [OUT_FILE]
cd "$(dirname "$0")"
total=$(wc -l < im2col_cases.txt); start=1; out=${1:-il_out.txt}; : > "$out"
while [ "$start" -le "$total" ]; do
  tail -n +"$start" im2col_cases.txt | ./im2col_probe >> "$out" 2>&1
  rc=$?
  done_n=$(grep -c '^case ' "$out")
  [ $rc -eq 0 ] && break
  start=$((done_n + 1))
done
echo "run_im2col: $(grep -c '^case ' "$out") cases, $(grep -c KERNEL_ERROR "$out") kernel errors, $(grep -c 'enc 0 ' "$out") encoded"
