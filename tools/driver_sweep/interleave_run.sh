#!/usr/bin/env bash
# Runs ./interleave_probe over ./il_cases.txt (both next to this script, e.g. copied into .probe/),
# resuming after a case that kills the context. Usage: interleave_run.sh [OUT_FILE]
cd "$(dirname "$0")"
total=$(wc -l < il_cases.txt); start=1; out=${1:-il_out.txt}; : > "$out"
while [ "$start" -le "$total" ]; do
  tail -n +"$start" il_cases.txt | ./interleave_probe >> "$out" 2>&1
  rc=$?
  done_n=$(grep -c '^case ' "$out")
  [ $rc -eq 0 ] && break
  start=$((done_n + 1))
done
echo "run_il: $(grep -c '^case ' "$out") cases, $(grep -c KERNEL_ERROR "$out") kernel errors, $(grep -c 'enc 0 ' "$out") encoded"
